"""Incremental builds give the same visits as a full rebuild, late events included."""
from datetime import timedelta

from tests.pipeline.conftest import BOB_COOKIE, CAROL_COOKIE, NOW, insert_event, load_fixture_data, run_dbt

SNAPSHOT = {
    "intermediate.int_events_sessionized": "select event_id::text, visit_id, event_number, visit_start, visit_end "
                                           "from intermediate.int_events_sessionized order by 1",
    "intermediate.int_visits": "select visit_id, visit_start, visit_end, pageview_count, event_count, is_bounce, "
                               "entry_path, exit_path, visit_source from intermediate.int_visits order by 1",
    "analytics.attribution": "select conversion_id, attribution_model, visit_id, credit from analytics.attribution "
                             "order by 1, 2, 3",
}


def snapshot(db):
    return {name: db.execute(query).fetchall() for name, query in SNAPSHOT.items()}


def test_late_and_new_events_rebuild_like_a_full_build(db, database_url, site):
    load_fixture_data(db, site)
    run_dbt(database_url, "build")
    visits_before = db.execute("select count(*) from intermediate.int_visits").fetchone()[0]

    # A late event (occurred two days ago, received now) joins Carol's two visits into one;
    # new events arrive for Bob and for a new visitor.
    t3 = NOW - timedelta(days=2)
    insert_event(db, site, t3 + timedelta(minutes=25), visitor=CAROL_COOKIE, path="/pricing/faq", received_at=NOW)
    insert_event(db, site, NOW - timedelta(minutes=10), visitor=BOB_COOKIE, path="/blog/other", received_at=NOW)
    insert_event(db, site, NOW - timedelta(minutes=5), visitor="NewVisitor00000000000004", path="/",
                 referrer="https://t.co/abc", received_at=NOW)
    run_dbt(database_url, "build")
    incremental = snapshot(db)
    visits_after = len(incremental["intermediate.int_visits"])
    # Carol's two visits became one, Bob and the newcomer each got a new visit.
    assert visits_after == visits_before - 1 + 2

    run_dbt(database_url, "build", "--full-refresh")
    assert snapshot(db) == incremental


def test_a_month_window_rebuilds_that_month_only(db, database_url, site):
    load_fixture_data(db, site)
    run_dbt(database_url, "build")
    before = snapshot(db)
    month = NOW.replace(day=1, hour=0, minute=0, second=0)
    window = '{"window_start": "%s", "window_end": "%s"}' % ((month - timedelta(days=400)).isoformat(),
                                                            (month - timedelta(days=300)).isoformat())
    # A window with no events leaves everything as it was.
    run_dbt(database_url, "build", "--select", "+tag:partitioned", "--vars", window)
    assert snapshot(db) == before


def test_the_lake_readers_partial_indexes_exist_once_after_incremental_and_full_builds(db, database_url, site):
    """macros/reader_indexes.sql: one of each per shard, whatever builds ran (a full refresh builds
    the table beside the old one, whose index still holds its name)."""
    load_fixture_data(db, site)

    def reader_indexes():
        return db.execute(
            """select tablename, regexp_replace(indexname, '_[0-9]+$', ''), count(*)
                 from pg_indexes where schemaname = 'intermediate' and indexname ~ '_(scroll|funnel|purchase)_[0-9]+$'
                group by 1, 2 order by 1, 2""").fetchall()

    run_dbt(database_url, "build")
    shards = [name for (name,) in db.execute(
        "select tablename from pg_tables where schemaname = 'intermediate'"
        " and tablename like 'int_events_sessionized_shard_%' order by 1").fetchall()]
    expected = [(shard, f"{shard}_{label}", 1) for shard in shards for label in ("funnel", "purchase", "scroll")]
    assert shards and reader_indexes() == expected
    insert_event(db, site, NOW - timedelta(minutes=5), visitor=BOB_COOKIE, path="/blog/other", received_at=NOW)
    run_dbt(database_url, "build")
    assert reader_indexes() == expected
    run_dbt(database_url, "build", "--full-refresh")
    assert reader_indexes() == expected
