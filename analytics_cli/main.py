"""Entry point of the `analytics` console script."""
from __future__ import annotations

import os
import subprocess
import sys

import click

from pipelines.database import bootstrap, connection, embedded
from pipelines.database.migrate import MigrationError
from pipelines.settings import Settings, SettingsError


def _settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
def main() -> None:
    """Privacy-first audience analytics: collector, pipeline and workbench."""


@main.group()
def db() -> None:
    """Control the database (the embedded PostgreSQL unless ANALYTICS_DATABASE_URL is set)."""


def _require_embedded(settings: Settings) -> None:
    if not settings.embedded:
        raise click.ClickException("ANALYTICS_DATABASE_URL is set: that server is managed outside this project")


@db.command("start")
def db_start() -> None:
    """Start the embedded PostgreSQL (initialising it on first use)."""
    settings = _settings()
    _require_embedded(settings)
    state = embedded.start(settings.pgdata)
    click.echo(f"running (pid {state.pid}) on socket {state.socket_dir}")


@db.command("stop")
def db_stop() -> None:
    """Stop the embedded PostgreSQL."""
    settings = _settings()
    _require_embedded(settings)
    click.echo("stopped" if embedded.stop(settings.pgdata) else "not running")


@db.command("status")
def db_status() -> None:
    """Say whether the database answers. Exit status 1 when it does not."""
    settings = _settings()
    try:
        url = connection.server_url(settings)
    except connection.DatabaseUnavailable as exc:
        click.echo(f"stopped: {exc}")
        sys.exit(1)
    state = connection.database_status(url)
    kind = "embedded" if settings.embedded else "configured"
    if state["status"] == "ok":
        click.echo(f"running ({kind}, PostgreSQL {state['server_version']})")
    else:
        click.echo(f"unavailable ({kind}): {state['error']}")
        sys.exit(1)


@db.command("url")
@click.option("--reader", is_flag=True, help="URL of the read-only analytics_reader role.")
def db_url(reader: bool) -> None:
    """Print the connection URL of the analytics database."""
    settings = _settings()
    try:
        urls = bootstrap.database_urls(settings)
    except connection.DatabaseUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(urls.reader if reader else urls.analytics)


@db.command("psql", context_settings={"ignore_unknown_options": True})
@click.argument("psql_args", nargs=-1, type=click.UNPROCESSED)
def db_psql(psql_args: tuple[str, ...]) -> None:
    """Open psql on the analytics database (extra arguments go to psql)."""
    settings = _settings()
    try:
        url = connection.server_url(settings)
    except connection.DatabaseUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    program = str(embedded.binary("psql"))
    os.execv(program, [program, url, *psql_args])


@main.command()
def migrate() -> None:
    """Create the databases and apply pending migrations (idempotent)."""
    settings = _settings()
    from workbench_app.metadata_database import prepare_metadata_database

    try:
        _, applied = bootstrap.prepare(settings)
        applied += prepare_metadata_database(settings)
    except (MigrationError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    if applied:
        for migration in applied:
            click.echo(f"applied {migration.version:04d}_{migration.name}")
    else:
        click.echo("database is up to date")


@main.command()
@click.option("--no-dagster", is_flag=True, help="Run the collector and workbench only.")
@click.option("--verbose", is_flag=True, help="Show every component's output, not only warnings and errors.")
def up(no_dagster: bool, verbose: bool) -> None:
    """Start the database, migrate, and run every component until Ctrl-C."""
    from analytics_cli.supervisor import run_product

    sys.exit(run_product(_settings(), with_dagster=not no_dagster, verbose=verbose))


from analytics_cli.admin_commands import admin_token  # noqa: E402  (a command group of its own module)

main.add_command(admin_token)

from analytics_cli.admin_user_commands import admin  # noqa: E402

main.add_command(admin)

from analytics_cli.follow_commands import follow  # noqa: E402

main.add_command(follow)

from analytics_cli.workbench_commands import workbench  # noqa: E402

main.add_command(workbench)

from analytics_cli.logs_command import logs  # noqa: E402

main.add_command(logs)

from analytics_cli.build_commands import build, demo  # noqa: E402

main.add_command(build)
main.add_command(demo)


if __name__ == "__main__":
    main()
