"""The collector's database connections: one small pool per app, opened on first use.

Nothing connects at import or in `create_app`, so gunicorn workers each open their own pool
after the fork. `get_pool(app)` is shared by every blueprint of the collector.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

import psycopg
from flask import Flask, current_app
from psycopg_pool import ConnectionPool, PoolTimeout

from collector_app.errors import ApiError
from pipelines.database.connection import DatabaseUnavailable, server_url
from pipelines.database.pool_check import CheckUnlessRecent

_POOL_KEY = "analytics_pool"
_lock = threading.Lock()

POOL_MAX_SIZE = 10
POOL_TIMEOUT_SECONDS = 5.0
# A connection handed back within a second is lent again without the check's round trip (on the
# server endpoint the check was a fifth of all round trips). See pipelines/database/pool_check.py.
check_unless_recent = CheckUnlessRecent(1.0)


def _on_return(conn: psycopg.Connection) -> None:
    """The pool's reset, on every connection handed back (idle): note when, and put it back in
    transaction mode, which the blueprints expect (the ingestion's reads borrow it in autocommit)."""
    if conn.autocommit:
        conn.autocommit = False
    check_unless_recent.note(conn)


def get_pool(app: Flask | None = None) -> ConnectionPool:
    """The app's pool, created on the first call (thread-safe)."""
    app = app or current_app._get_current_object()
    pool = app.extensions.get(_POOL_KEY)
    if pool is not None:
        return pool
    with _lock:
        pool = app.extensions.get(_POOL_KEY)
        if pool is None:
            url = server_url(app.config["ANALYTICS_SETTINGS"])
            pool = ConnectionPool(url, min_size=1, max_size=POOL_MAX_SIZE, timeout=POOL_TIMEOUT_SECONDS,
                                  check=check_unless_recent, reset=_on_return, open=False,
                                  name="collector")
            pool.open(wait=False)
            app.extensions[_POOL_KEY] = pool
    return pool


def close_pool(app: Flask) -> None:
    """Close the app's pool if it was opened (tests, shutdown)."""
    pool = app.extensions.pop(_POOL_KEY, None)
    if pool is not None:
        pool.close()


@contextmanager
def transaction(app: Flask | None = None) -> Iterator[psycopg.Connection]:
    """A pooled connection in one transaction: committed when the block ends normally, rolled back
    when it raises, so a refused request writes nothing. An unreachable database is a 503."""
    try:
        pool = get_pool(app)
        with pool.connection() as conn:
            yield conn
    except (DatabaseUnavailable, PoolTimeout, psycopg.OperationalError) as exc:
        raise ApiError(503, "database_unavailable", "The database is not reachable; try again shortly.",
                       {"reason": type(exc).__name__}) from None
