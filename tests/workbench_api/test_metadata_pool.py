"""The workbench database's pool: a connection that has sat idle is checked before it is handed
out, so a database restart costs no request; one that finished a transaction a moment ago is not
(a round trip saved on each of a card run's several transactions)."""
from __future__ import annotations

from pipelines.database import pool_check
from workbench_app import metadata_database

from tests.workbench_api.conftest import ok


def test_connections_killed_while_idle_are_replaced_without_failing_a_request(admin, workbench_db, monkeypatch):
    ok(admin.get("/me"))
    monkeypatch.setattr(metadata_database.check_unless_recent, "seconds", 0.0)  # every connection counts as idle
    killed = workbench_db.execute("""select count(pg_terminate_backend(pid)) from pg_stat_activity
                                     where datname = current_database() and pid <> pg_backend_pid()""").fetchone()[0]
    assert killed >= 1
    for _ in range(3):
        ok(admin.get("/me"))


def test_a_connection_used_a_moment_ago_is_not_checked_again(admin, monkeypatch):
    ok(admin.get("/me"))
    checked = []
    original = pool_check.ConnectionPool.check_connection
    monkeypatch.setattr(pool_check.ConnectionPool, "check_connection",
                        staticmethod(lambda conn: (checked.append(conn), original(conn))))
    monkeypatch.setattr(metadata_database.check_unless_recent, "seconds", 3600.0)
    ok(admin.get("/me"))
    assert checked == []
    monkeypatch.setattr(metadata_database.check_unless_recent, "seconds", 0.0)
    ok(admin.get("/me"))
    assert checked
