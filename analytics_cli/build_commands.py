"""`analytics build` and `analytics demo`: the pipeline run in process, and the demo data."""
from __future__ import annotations

import dataclasses
import os
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import click

from pipelines.database import bootstrap, connection, embedded
from pipelines.database.migrate import MigrationError
from pipelines.settings import Settings, SettingsError


def _prepared_settings() -> tuple[Settings, bool]:
    """Settings pointing at the migrated database, and whether this command started it."""
    try:
        settings = Settings.from_env()
        was_running = not settings.embedded or embedded.status(settings.pgdata).running
        urls, _ = bootstrap.prepare(settings)
    except (SettingsError, MigrationError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None
    return dataclasses.replace(settings, database_url=urls.analytics), not was_running


def _build(settings: Settings) -> None:
    # Dagster's telemetry stays off even when the command runs outside `make`.
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    from orchestration.build import build_everything

    result = build_everything(settings)
    if not result.success:
        raise click.ClickException("the build failed; see the log above")
    click.echo(f"built {len(result.get_asset_materialization_events())} assets")


@contextmanager
def _output_to(log: Path):
    """Send this process's stdout and stderr (Dagster's events, dbt's lines) to `log`; yields a
    stream on the terminal for the progress bar."""
    log.parent.mkdir(parents=True, exist_ok=True)
    saved = os.dup(2), os.dup(1)
    terminal = os.fdopen(os.dup(saved[0]), "w")
    with log.open("a") as target:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os.dup2(target.fileno(), 1)
        os.dup2(target.fileno(), 2)
        try:
            yield terminal
        finally:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            os.dup2(saved[0], 2)
            os.dup2(saved[1], 1)
            for fd in saved:
                os.close(fd)
            terminal.close()


def _build_with_progress(settings: Settings) -> int:
    """The build of `analytics demo`: a progress bar over the assets, Dagster's events in the log."""
    os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
    from analytics_cli.component_logs import log_path
    from orchestration.build import build_everything, expected_materializations

    log = log_path(settings.home, "demo")
    start = log.stat().st_size if log.exists() else 0
    outcome: dict = {}
    with _output_to(log) as terminal:
        worker = threading.Thread(target=lambda: outcome.update(result=build_everything(settings)), daemon=True)
        worker.start()
        with click.progressbar(length=expected_materializations(settings), label="building the views", file=terminal,
                               show_pos=True) as bar:
            done = 0
            while worker.is_alive():
                worker.join(0.5)
                with log.open(errors="replace") as handle:
                    handle.seek(start)
                    seen = handle.read().count("ASSET_MATERIALIZATION")
                seen = min(seen, bar.length)
                bar.update(seen - done)
                done = seen
    result = outcome.get("result")
    if result is None or not result.success:
        raise click.ClickException(f"the build failed; see {log}")
    return len(result.get_asset_materialization_events())


def _stop_if_started(settings: Settings, started: bool) -> None:
    if started:
        embedded.stop(settings.pgdata)


@click.command("build")
def build() -> None:
    """Materialise every asset in process: maintenance, every dbt model, the event views."""
    settings, started = _prepared_settings()
    try:
        _build(settings)
    finally:
        _stop_if_started(settings, started)


class _CollectorThread:
    """The real collector app served on a free local port for the time of the demo."""

    def __init__(self, settings: Settings):
        from werkzeug.serving import WSGIRequestHandler, make_server

        from collector_app.app import create_app

        class QuietHandler(WSGIRequestHandler):
            def log_request(self, *args, **kwargs):  # no access log: it would hold an address
                pass

        self.settings = settings
        self.server = make_server("127.0.0.1", 0, create_app(settings), threaded=True, request_handler=QuietHandler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        from pipelines.ingest.writer import stop_writer

        self.server.shutdown()
        stop_writer(self.settings)


@click.command("demo")
@click.option("--if-missing", is_flag=True, help="Do nothing when the demo site exists already.")
@click.option("--days", default=90, show_default=True, help="Days of traffic.")
@click.option("--collector-url", default=None,
              help="A running collector to send the last 72 hours to (default: one started in process).")
@click.option("--no-build", is_flag=True, help="Load the data without building the views.")
def demo(if_missing: bool, days: int, collector_url: str | None, no_build: bool) -> None:
    """Create a demo site with metadata and realistic traffic, then build the views."""
    from pipelines.demo import create_demo, demo_exists
    from pipelines.demo.send import post_server_events

    settings, started = _prepared_settings()
    try:
        with connection.connect(settings.database_url) as conn:
            exists = demo_exists(conn)
        if exists and if_missing:
            click.echo("demo data exists already")
            return
        if exists:
            raise click.ClickException(
                "a demo site exists already (`make run` loads it once). `analytics build` rebuilds its views; "
                "to start again from nothing, stop `analytics up` and delete $ANALYTICS_HOME (all data).")
        began = time.monotonic()
        click.echo(f"creating the demo site and {days} days of traffic...")

        def send_recent(site_id: str, secret: str, events: list[dict]) -> int:
            if collector_url:
                return post_server_events(collector_url, secret, events)
            with _CollectorThread(settings) as collector:
                return post_server_events(collector.url, secret, events)

        summary = create_demo(settings.database_url, send_recent, days=days)
        built = 0 if no_build else _build_with_progress(settings)
        from analytics_cli.first_run import seed_demo_folder
        from workbench_app.metadata_database import prepare_metadata_database

        prepare_metadata_database(settings)  # a fresh home has no workbench database before `analytics up`
        seed_demo_folder(settings, settings.database_url)
        click.echo(f"demo ready in {time.monotonic() - began:.0f} s: site {summary.site_id}, "
                   f"{summary.imported_events + summary.sent_events:,} events "
                   f"({summary.sent_events:,} through POST /collect/server), {built} assets built; "
                   "the workbench has a Demo folder")
    finally:
        _stop_if_started(settings, started)
