"""The check a connection pool runs before lending a connection, shared by the collector and the
workbench.

After a database restart, a dead connection must be replaced instead of failing the request that
drew it, so the pool checks a connection (an empty query: a round trip) before lending it. A
connection that finished its work a moment ago is lent without it: a restart takes longer than
that, and on the busy paths (a card run's transactions, a batch's key check) the checks were a
fifth of all round trips.
"""
from __future__ import annotations

import time
import weakref

import psycopg
from psycopg_pool import ConnectionPool


class CheckUnlessRecent:
    """A pool's `check`: skipped for a connection `note`d within the last `seconds`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._noted: "weakref.WeakKeyDictionary[psycopg.Connection, float]" = weakref.WeakKeyDictionary()

    def note(self, conn: psycopg.Connection) -> None:
        """`conn` has just finished a piece of work in good order."""
        self._noted[conn] = time.monotonic()

    def __call__(self, conn: psycopg.Connection) -> None:
        if time.monotonic() - self._noted.get(conn, float("-inf")) >= self.seconds:
            ConnectionPool.check_connection(conn)
