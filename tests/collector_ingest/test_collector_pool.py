"""The collector's connection pool: a dead connection is replaced before it is lent, and the
requests' reads run in autocommit without leaving the pool's connections changed."""
from __future__ import annotations

import psycopg

from collector_app import database
from collector_app.collect_api.context import ingestion
from collector_app.database import get_pool


def test_a_connection_killed_while_idle_is_replaced_before_it_is_lent(app, db, monkeypatch):
    pool = get_pool(app)
    pool.wait()
    with pool.connection() as conn:
        pid = conn.info.backend_pid
    db.execute("select pg_terminate_backend(%s)", (pid,))
    # Returned within the last second, a connection is lent without the check's round trip;
    # past that (a database restart is slower than a second), it is checked first.
    monkeypatch.setattr(database.check_unless_recent, "seconds", 0.0)
    with pool.connection() as conn:
        assert conn.execute("select 1").fetchone() == (1,)
        assert conn.info.backend_pid != pid


def test_ingestion_reads_in_autocommit_and_returns_the_connection_as_lent(app, site):
    service = ingestion(app)
    with service.connection() as conn:
        assert conn.autocommit
        conn.execute("select 1")
        assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # nothing left open
    with get_pool(app).connection() as conn:
        assert not conn.autocommit  # the administration API's transactions are as before


def test_a_connection_handed_back_in_autocommit_is_lent_in_transaction_mode(app):
    pool = get_pool(app)
    pool.wait()
    with pool.connection() as conn:
        conn.autocommit = True
        pid = conn.info.backend_pid
    with pool.connection() as conn:
        assert conn.info.backend_pid == pid and not conn.autocommit
