"""The lake's assets in Dagster: lineage after the dbt models, metadata, the sensors' requests."""
from __future__ import annotations

from datetime import timedelta

from dagster import AssetKey, RunRequest, SkipReason, build_sensor_context, materialize

from orchestration.defs.lake.assets import FULL_REFRESH, FULL_REFRESH_TAG, lake_analytics_views, lake_raw_events
from orchestration.defs.lake.schedules import lake_raw_days_sensor, raw_days_to_export, refresh_after
from orchestration.defs.resources import build_resources
from orchestration.definitions import defs
from tests.pipeline.conftest import NOW, insert_event


def test_lake_assets_follow_the_dbt_models_in_the_lineage():
    graph = defs.resolve_asset_graph()
    visits = graph.get(AssetKey(["lake", "analytics", "visits"]))
    assert AssetKey(["analytics", "visits"]) in visits.parent_keys
    assert AssetKey(["analytics", "event_views"]) in graph.get(AssetKey(["lake", "analytics", "event_views"])).parent_keys
    assert AssetKey(["raw", "events"]) in graph.get(AssetKey(["lake", "raw", "events"])).parent_keys


def test_views_materialize_with_rows_and_bytes(built):
    settings = built["settings"]
    result = materialize([lake_analytics_views], resources=build_resources(settings),
                         tags={FULL_REFRESH_TAG: FULL_REFRESH})
    assert result.success
    by_key = {event.asset_key.to_user_string(): event.materialization.metadata
              for event in result.get_asset_materialization_events()}
    assert by_key["lake/analytics/visits"]["row_count"].value == 5
    assert by_key["lake/analytics/visits"]["bytes"].value > 0
    assert by_key["lake/analytics/event_views"]["views"].value == "event_sign_up"


def test_raw_days_sensor_asks_for_every_day_then_only_the_days_that_moved(built):
    settings = built["settings"]
    warehouse = build_resources(settings)["warehouse"]
    today = NOW.date()
    first = raw_days_to_export(warehouse, today)
    assert first[0] == (NOW - timedelta(days=10)).date().isoformat() and first[-1] == (today - timedelta(days=1)).isoformat()
    request = lake_raw_days_sensor(build_sensor_context(resources={"warehouse": warehouse}))
    assert isinstance(request, RunRequest)
    assert materialize([lake_raw_events], resources=build_resources(settings), tags=request.tags).success
    assert raw_days_to_export(warehouse, today) == []
    assert isinstance(lake_raw_days_sensor(build_sensor_context(resources={"warehouse": warehouse})), SkipReason)
    # A late event for two days ago: that day again, and only it.
    import psycopg
    with psycopg.connect(built["url"], autocommit=True) as db:
        insert_event(db, built["site_id"], NOW - timedelta(days=2), visitor="late-visitor-0000000000002",
                     received_at=NOW)
    assert raw_days_to_export(warehouse, today) == [(NOW - timedelta(days=2)).date().isoformat()]


def test_a_build_asks_for_the_refresh_it_needs():
    assert refresh_after("incremental_build_job", "r1").tags == {}
    assert refresh_after("full_build_job", "r2").tags == {FULL_REFRESH_TAG: FULL_REFRESH}
    assert refresh_after("channel_rebuild_job", "r3").tags == {FULL_REFRESH_TAG: FULL_REFRESH}
