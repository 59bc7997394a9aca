"""The workbench's metadata database (`workbench` on the analytics server by default).

Its schema is a series of numbered SQL files in `workbench_app/migrations`, applied by the
project's migration runner (recorded in that database's `public.schema_migrations`).
"""
from __future__ import annotations

from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Iterator

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from pipelines.database import connection, migrate
from pipelines.database.pool_check import CheckUnlessRecent
from pipelines.settings import Settings
from workbench_app.errors import unavailable

POOL_MAX_SIZE = 10
POOL_TIMEOUT_SECONDS = 5.0


def migrations_directory() -> Path:
    return Path(str(resources.files("workbench_app") / "migrations"))


def metadata_url(settings: Settings, start_embedded: bool = False) -> str:
    """URL of the workbench database on the configured (or embedded) server."""
    return connection.server_url(settings, settings.workbench_database_name, start_embedded=start_embedded)


def prepare_metadata_database(settings: Settings, start_embedded: bool = False) -> list[migrate.Migration]:
    """Create the workbench database if missing and apply its pending migrations (idempotent)."""
    url = metadata_url(settings, start_embedded=start_embedded)
    connection.ensure_database(url, settings.workbench_database_name)
    return migrate.migrate(url, directory=migrations_directory())


# A connection idle for 2 s is checked before it is lent; one used a moment ago is not (a card
# run draws four). See pipelines/database/pool_check.py.
check_unless_recent = CheckUnlessRecent(2.0)


def open_pool(url: str, name: str = "workbench") -> ConnectionPool:
    pool = ConnectionPool(url, min_size=1, max_size=POOL_MAX_SIZE, timeout=POOL_TIMEOUT_SECONDS,
                          check=check_unless_recent, open=False, name=name)
    pool.open(wait=False)
    return pool


@contextmanager
def transaction(pool: ConnectionPool) -> Iterator[psycopg.Connection]:
    """A pooled connection in one transaction (committed on success, rolled back on error).

    An unreachable database becomes a 503 refusal rather than an internal error.
    """
    try:
        with pool.connection() as conn:
            yield conn
        check_unless_recent.note(conn)
    except (connection.DatabaseUnavailable, PoolTimeout, psycopg.OperationalError) as exc:
        raise unavailable() from exc
