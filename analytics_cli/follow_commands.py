"""`analytics follow`: run the database-service stream followers (and keep the inbox processed).

`analytics up` starts it as a child process when at least one active stream follower is
configured. `analytics follow --check` prints the check figures of every follower and exits 1 when
one is stopped (a refused token) or failing.
"""
from __future__ import annotations

import logging
import signal
import sys

import click
import psycopg

from pipelines.database import connection
from pipelines.inbound import sources
from pipelines.inbound.processing import process_pending, purge_quarantine
from pipelines.inbound.stream_follower import FollowerGroup
from pipelines.settings import Settings, SettingsError


def _settings_and_url() -> tuple[Settings, str]:
    try:
        settings = Settings.from_env()
        return settings, connection.server_url(settings)
    except (SettingsError, connection.DatabaseUnavailable) as exc:
        raise click.ClickException(str(exc)) from None


def _print_check(database_url: str) -> int:
    status = 0
    with connection.connect(database_url) as conn:
        rows = conn.execute("""select source_id, name, state from collect.inbound_sources
                                where kind = 'db_stream' order by created_at""").fetchall()
        if not rows:
            click.echo("no stream followers configured")
        for source_id, name, state in rows:
            figures = sources.source_figures(conn, source_id)
            click.echo(f"source {source_id} {name or ''} ({state})")
            for follower in figures["followers"]:
                cursor = follower.get("cursor_at")
                line = (f"  {follower['table']:<24} {follower['state']:<11} cursor {cursor.isoformat() if cursor else '-'}"
                        f"  rows read {follower.get('rows_read', 0)}  changes {follower.get('changes_recorded', 0)}"
                        f"  connections {follower.get('connections', 0)}")
                click.echo(line)
                if follower.get("last_error"):
                    click.echo(f"    last error: {follower['last_error']}")
                if follower["state"] == "stopped" and state == "active":
                    status = 1
    return status


@click.command("follow")
@click.option("--check", is_flag=True, help="Print the followers' check figures and exit (1 when one is stopped).")
@click.option("--reload-seconds", default=30.0, show_default=True, help="How often the configuration is re-read.")
def follow(check: bool, reload_seconds: float) -> None:
    """Follow the configured database change streams until Ctrl-C or SIGTERM."""
    settings, url = _settings_and_url()
    if check:
        sys.exit(_print_check(url))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    key = sources.sealing_key(settings)

    def load():
        with connection.connect(url) as conn:
            return sources.follower_configs(conn, key)

    def housekeeping():
        # Deliveries a collector process left unprocessed (it stopped before its worker ran).
        with connection.connect(url) as conn:
            process_pending(conn, max_batches=50)
            with conn.transaction():
                purge_quarantine(conn)

    group = FollowerGroup(load, url, reload_seconds=reload_seconds)
    signal.signal(signal.SIGTERM, lambda *_: group.stop())
    signal.signal(signal.SIGINT, lambda *_: group.stop())
    click.echo("following the configured database change streams; Ctrl-C stops", err=True)
    group.run(on_tick=housekeeping)
    click.echo("stopped", err=True)
