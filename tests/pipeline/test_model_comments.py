"""The models' descriptions reach the catalog as comments (persist_docs) without an incremental run
taking the lock that autovacuum holds on a table whose comments are already there."""
from datetime import timedelta

import psycopg

from tests.pipeline.conftest import NOW, insert_event, run_dbt


def comments(db, table: str) -> tuple[str | None, str | None]:
    return db.execute(f"select obj_description('{table}'::regclass, 'pg_class'), "
                      f"col_description('{table}'::regclass, 1)").fetchone()


def test_unchanged_comments_take_no_lock_and_changed_ones_are_written(db, database_url, site, monkeypatch):
    insert_event(db, site, NOW - timedelta(hours=2))
    run_dbt(database_url, "build")
    written = comments(db, "intermediate.int_visits")
    assert all(written)

    insert_event(db, site, NOW - timedelta(hours=1), received_at=NOW)
    # Autovacuum holds SHARE UPDATE EXCLUSIVE on a table it processes; `comment on` needs the same
    # lock, so a run that comments again waits (here until lock_timeout, since nothing cancels us).
    monkeypatch.setenv("PGOPTIONS", "-c lock_timeout=3s")
    with psycopg.connect(database_url) as vacuum_like:
        vacuum_like.execute("lock table intermediate.int_visits in share update exclusive mode")
        run_dbt(database_url, "run", "--select", "int_events_sessionized_shard_0", "int_events_sessionized_shard_1",
                "int_visits")
        vacuum_like.rollback()
    assert db.execute("select sum(event_count) from intermediate.int_visits").fetchone()[0] == 2

    # A comment that differs from the description (an edited YAML file) is written on the next run.
    db.execute("comment on table intermediate.int_visits is 'stale'")
    db.execute("comment on column intermediate.int_visits.visit_id is null")
    run_dbt(database_url, "run", "--select", "int_visits")
    assert comments(db, "intermediate.int_visits") == written
