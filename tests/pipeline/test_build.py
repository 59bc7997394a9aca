"""`analytics build`: every asset materialised in process, partitions as one single-run backfill."""
from orchestration.build import build_everything
from tests.pipeline.conftest import load_fixture_data


def test_build_everything_in_process(db, site, settings):
    load_fixture_data(db, site)
    result = build_everything(settings)
    assert result.success
    keys = {event.asset_key.to_user_string() for event in result.get_asset_materialization_events()}
    assert {"intermediate/int_events_sessionized", "analytics/visits", "analytics/event_views",
            "raw_event_partitions"} <= keys
    # One run covered every month with events (the fixture spans up to ten days back).
    assert db.execute("select count(*) from analytics.visits").fetchone()[0] == 5
    assert db.execute("select count(*) from analytics.event_sign_up").fetchone()[0] == 1
    # The lake follows: every view's folder, and the closed days of raw events.
    assert {"lake/analytics/visits", "lake/analytics/event_views", "lake/raw/events"} <= keys
    assert (settings.lake_path / "analytics" / "visits" / "_lake.json").is_file()
    assert len(list((settings.lake_path / "raw" / "events").rglob("part-0.parquet"))) >= 4
