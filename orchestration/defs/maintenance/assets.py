"""Maintenance as assets: each one calls the logic in `pipelines` and reports what it did."""

from datetime import datetime, timezone

from dagster import AssetExecutionContext, AssetKey, MaterializeResult, asset

from orchestration.defs.resources import Warehouse
from pipelines import event_views, partitions
from pipelines.ingest import destroy_salts_before, replay_spool
from pipelines.lake.export import lake_of
from pipelines.maintenance.privacy import process_privacy_requests
from pipelines.maintenance.retention import apply_retention

GROUP = "maintenance"
RAW_EVENTS = AssetKey(["raw", "events"])


@asset(group_name=GROUP, description="Replay events spooled while the database was unreachable.")
def spool_replay(warehouse: Warehouse) -> MaterializeResult:
    written = replay_spool(warehouse.settings())
    return MaterializeResult(metadata={"events_written": written})


@asset(group_name=GROUP, deps=[spool_replay],
       description="Monthly partitions of raw.events ahead of time; stray rows moved out of the default partition.")
def raw_event_partitions(warehouse: Warehouse) -> MaterializeResult:
    with warehouse.connect() as conn:
        created = partitions.ensure_partitions(conn)
    return MaterializeResult(metadata={"created": ", ".join(created) or "none"})


@asset(group_name=GROUP, deps=[raw_event_partitions],
       description="Each site's retention: whole partitions dropped when no site needs them, older rows deleted everywhere, the lake's partitions of those days removed.")
def event_retention(warehouse: Warehouse) -> MaterializeResult:
    with warehouse.connect() as conn:
        result = apply_retention(conn, lake=lake_of(warehouse.settings()))
    return MaterializeResult(metadata={"dropped_partitions": ", ".join(result.dropped_partitions) or "none",
                                       "deleted_rows": sum(result.deleted_rows.values()),
                                       "lake_partitions_removed": len(result.lake_partitions_removed)})


@asset(group_name=GROUP, description="Destroy the salts of the days before today (audited).")
def daily_salts(warehouse: Warehouse) -> MaterializeResult:
    with warehouse.connect() as conn:
        destroyed = destroy_salts_before(conn, datetime.now(timezone.utc).date())
    return MaterializeResult(metadata={"salts_destroyed": destroyed})


@asset(group_name=GROUP, deps=[RAW_EVENTS], key=AssetKey(["analytics", "event_views"]),
       description="One view analytics.event_<name> per declared event, properties as typed columns, commented.")
def analytics_event_views(warehouse: Warehouse) -> MaterializeResult:
    with warehouse.connect() as conn:
        views = event_views.regenerate_event_views(conn)
    return MaterializeResult(metadata={"views": ", ".join(views) or "none", "count": len(views)})


@asset(group_name=GROUP, description="Export and erasure requests: exports written, people erased everywhere.")
def privacy_requests(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
    with warehouse.connect() as conn:
        processed = process_privacy_requests(conn, warehouse.settings())
    for request in processed:
        context.log.info(f"privacy request {request['request_id']} ({request['kind']}): {request['state']}")
    return MaterializeResult(metadata={"processed": len(processed),
                                       "failed": sum(1 for r in processed if r["state"] == "failed")})


maintenance_assets = [spool_replay, raw_event_partitions, event_retention, daily_salts, analytics_event_views,
                      privacy_requests]
