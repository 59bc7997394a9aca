"""`analytics workbench ...`: the workbench's metadata database and its first administrator."""
from __future__ import annotations

import click

from pipelines.database import connection
from pipelines.database.migrate import MigrationError
from pipelines.settings import Settings, SettingsError
from workbench_app import metadata_database
from workbench_app.accounts import api_tokens, users
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError


def _settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None


@click.group("workbench")
def workbench() -> None:
    """Administer the analysis workbench (accounts, metadata database)."""


@workbench.command("migrate")
def migrate() -> None:
    """Create the workbench database if missing and apply its migrations (idempotent)."""
    try:
        applied = metadata_database.prepare_metadata_database(_settings(), start_embedded=True)
    except (MigrationError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    for migration in applied:
        click.echo(f"applied {migration.version:04d}_{migration.name}")
    if not applied:
        click.echo("workbench database is up to date")


@workbench.command("create-admin")
@click.option("--email", required=True, help="The administrator's e-mail address (their sign-in name).")
@click.option("--password", prompt=True, hide_input=True, confirmation_prompt=True,
              help="At least 10 characters; prompted for when not given.")
@click.option("--name", "display_name", default="", help="Display name.")
@click.option("--with-token", is_flag=True, help="Also create an API token and print its secret (shown once).")
def create_admin(email: str, password: str, display_name: str, with_token: bool) -> None:
    """Create an administrator account (the first one, or another)."""
    settings = _settings()
    try:
        metadata_database.prepare_metadata_database(settings, start_embedded=True)
        with connection.connect(metadata_database.metadata_url(settings)) as conn:
            user = users.create_user(conn, None, email=email, password=password, display_name=display_name,
                                     is_admin=True)
            secret = None
            if with_token:
                owner = Identity(user["user_id"], user["email"], True)
                _, secret = api_tokens.create_token(conn, owner, "created with create-admin")
    except WorkbenchError as exc:
        raise click.ClickException(exc.message) from None
    except (MigrationError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"administrator {user['email']} created (user {user['user_id']})", err=True)
    if secret:
        click.echo("API token (shown once, keep it safe):", err=True)
        click.echo(secret)
