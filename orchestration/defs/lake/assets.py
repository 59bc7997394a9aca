"""The lake as assets: raw days by day partition, and every analytics view's folder after the dbt
models that make it (the logic is in pipelines/lake)."""

import warnings
from datetime import date

from dagster import (AssetExecutionContext, AssetKey, AssetSpec, BackfillPolicy, DailyPartitionsDefinition,
                     MaterializeResult, asset, multi_asset)

from orchestration.defs.dbt.assets import analytics_dbt_models
from orchestration.defs.maintenance.assets import RAW_EVENTS
from orchestration.defs.resources import Warehouse
from pipelines.lake.export import LakeWriter
from pipelines.lake.spark import SparkViewsWriter
from pipelines.lake.tables import LIVE_PREFIX

GROUP = "lake"
# Closed days only (end_offset 0): today's raw events are still arriving. A day is exported again
# while late events may still come in for it (`at` may be 72 hours old): the sensor says when.
DAILY_PARTITIONS = DailyPartitionsDefinition(start_date="2020-01-01", end_offset=0)
# A run with this tag rewrites every partition of every view instead of what the build changed.
FULL_REFRESH_TAG = "analytics/lake-refresh"
FULL_REFRESH = "full"


def lake_raw_events(context: AssetExecutionContext, warehouse: Warehouse) -> MaterializeResult:
    days = [date.fromisoformat(key) for key in context.partition_keys]
    rows = 0
    with LakeWriter(warehouse.settings(), warehouse.url()).open() as writer:
        for day in days:
            result = writer.export_raw_day(day)
            rows += result.rows_written
            context.log.info(f"raw events of {day}: {result.rows_written} rows, {result.written} files")
        state = writer.lake.read_state("raw", "events")
    return MaterializeResult(metadata={"days": len(days), "rows_written": rows,
                                       "row_count": state.rows if state else 0, "bytes": state.bytes if state else 0})


# `backfill_policy` of @asset is a beta parameter: its warning would reach `analytics demo`'s console.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*backfill_policy.*")
    lake_raw_events = asset(
        key=AssetKey(["lake", "raw", "events"]), deps=[RAW_EVENTS], group_name=GROUP,
        partitions_def=DAILY_PARTITIONS, backfill_policy=BackfillPolicy.single_run(),
        description="Raw events of each closed UTC day as Parquet, by site and day (no IP, no user agent).",
    )(lake_raw_events)


def analytics_view_names() -> list[str]:
    """The analytics views dbt makes (event views are regenerated outside dbt: one asset for them)."""
    return sorted(key.path[1] for key in analytics_dbt_models.keys if key.path[0] == "analytics")


EVENT_VIEWS = "event_views"
_SPECS = [AssetSpec(AssetKey(["lake", "analytics", name]), deps=[AssetKey(["analytics", name])], group_name=GROUP,
                    description=f"analytics.{name} as Parquet in the lake (what the workbench reads).",
                    skippable=True)
          for name in [*analytics_view_names(), EVENT_VIEWS]]


@multi_asset(specs=_SPECS, name="lake_analytics_views", can_subset=True)
def lake_analytics_views(context: AssetExecutionContext, warehouse: Warehouse):
    """Refresh the views' folders from what the build changed (everything on a full refresh)."""
    full = context.run.tags.get(FULL_REFRESH_TAG) == FULL_REFRESH
    with LakeWriter(warehouse.settings(), warehouse.url()).open() as writer:
        if warehouse.engine == "spark":
            # The views Spark built, written by it into the folders; the event views stay PostgreSQL's
            # (they read raw events live).
            results = SparkViewsWriter(writer, warehouse.spark_host, warehouse.spark_thrift_port).refresh_views()
            plan = writer.plan(full=True)
            results += [writer.refresh_table(table, plan) for table in writer.analytics_tables() if table.live]
        else:
            results = writer.refresh_views(full=full)
    selected = {key.path[2] for key in context.selected_asset_keys}
    event_views = [r for r in results if r.table.startswith(LIVE_PREFIX)]
    for result in results:
        if result.table in selected:
            context.log.info(f"{result.table}: {result.written} files written, {result.dropped} dropped")
            yield MaterializeResult(asset_key=AssetKey(["lake", "analytics", result.table]),
                                    metadata=result.metadata())
    if EVENT_VIEWS in selected:
        yield MaterializeResult(asset_key=AssetKey(["lake", "analytics", EVENT_VIEWS]), metadata={
            "views": ", ".join(r.table for r in event_views) or "none",
            "row_count": sum(r.rows for r in event_views), "bytes": sum(r.bytes for r in event_views)})
