"""Every dbt model as a Dagster asset.

The incremental models (tag `partitioned`) are partitioned by month with a single-run backfill
policy: a backfill of many months is one dbt run over their whole window. Everything else runs
after them on each run: channels, conversions and attribution touches (which redo what the run
changed, from their own marks) and the analytics views.
"""
from dagster import AssetExecutionContext
from dagster_dbt import DbtCliResource, dbt_assets

from orchestration.defs.dbt.partitions import (MONTHLY_PARTITIONS, NEW_EVENTS, NEW_EVENTS_TAG,
                                               SINGLE_RUN_BACKFILL, dbt_vars_args, dbt_window_vars)
from orchestration.defs.dbt.project import analytics_dbt_project
from orchestration.defs.dbt.worker_watch import stream_dbt

# The incremental models and the one staging view they read; everything else is unpartitioned.
PARTITIONED = "+tag:partitioned"
# Unit tests check the SQL, not the data: they run in CI (`make test`), not on every scheduled build.
BUILD = ["build", "--exclude-resource-type", "unit_test"]


@dbt_assets(
    manifest=analytics_dbt_project.manifest_path,
    select=PARTITIONED,
    partitions_def=MONTHLY_PARTITIONS,
    backfill_policy=SINGLE_RUN_BACKFILL,
    name="analytics_dbt_incremental_models",
)
def analytics_dbt_incremental_models(context: AssetExecutionContext, dbt: DbtCliResource):
    window = context.partition_time_window
    vars_ = dbt_window_vars(window.start, window.end,
                            new_events_only=context.run.tags.get(NEW_EVENTS_TAG) == NEW_EVENTS)
    if getattr(getattr(dbt, "warehouse", None), "engine", "postgres") == "spark":
        # Spark's incremental runs rebuild the day partitions of the events received or erased since
        # the last run (docs/data-engineer/spark.md): a window is not a Spark run's.
        vars_ = {}
        context.log.info("dbt on Spark: the days of the events received or erased since the last run")
    else:
        context.log.info(f"dbt window: {vars_ or 'events received since the last run'}")
    yield from stream_dbt(dbt, [*BUILD, *dbt_vars_args(vars_)], context)


@dbt_assets(
    manifest=analytics_dbt_project.manifest_path,
    exclude=PARTITIONED,
    name="analytics_dbt_models",
)
def analytics_dbt_models(context: AssetExecutionContext, dbt: DbtCliResource):
    yield from stream_dbt(dbt, BUILD, context)
