"""The incremental build every 15 minutes and the channel rebuild when rules change."""

import hashlib
import json
from datetime import datetime, timezone

from dagster import (AssetKey, AssetSelection, DefaultScheduleStatus, DefaultSensorStatus, RunRequest,
                     ScheduleEvaluationContext, SensorEvaluationContext, SkipReason, define_asset_job,
                     schedule, sensor)
from dagster_dbt import build_dbt_asset_selection

from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.partitions import NEW_EVENTS, NEW_EVENTS_TAG
from orchestration.defs.resources import Warehouse
from pipelines.maintenance.changes import channel_rules_versions

# Every run that writes dbt tables carries this tag, so that the run coordinator can keep them one
# at a time (`tag_concurrency_limits` in dagster.yaml): two builds must not refresh the same table.
DBT_RUN_TAGS = {"analytics/dbt": "build"}

# The model that applies the channel rules; everything downstream of it shows channels.
CHANNELS_ASSET = AssetKey(["intermediate", "int_traffic_source_channels"])

# Views are not rebuilt every 15 minutes: no table they read is ever swapped (every table model is
# incremental: appended by window, or its rows replaced in place), so they stay as built.
incremental_build_job = define_asset_job(
    "incremental_build_job",
    selection=AssetSelection.assets(analytics_dbt_incremental_models)
    | build_dbt_asset_selection([analytics_dbt_models],
                                dbt_select="config.materialized:incremental"),
    description="Sessionize the events received since the last run, then refresh the tables downstream.",
    tags=DBT_RUN_TAGS,
)

# Everything, views included: nightly (a deployment may have changed a model) and at first start.
full_build_job = define_asset_job(
    "full_build_job",
    selection=AssetSelection.assets(analytics_dbt_incremental_models, analytics_dbt_models),
    description="Sessionize the events received since the last run and rebuild every model and view.",
    tags=DBT_RUN_TAGS,
)

channel_rebuild_job = define_asset_job(
    "channel_rebuild_job",
    selection=AssetSelection.assets(CHANNELS_ASSET).downstream(),
    description="Re-apply the channel rules to every visit, past ones included.",
    tags=DBT_RUN_TAGS,
)


def month_partition_key(moment) -> str:
    return moment.strftime("%Y-%m-01")


@schedule(job=incremental_build_job, cron_schedule="*/15 * * * *", execution_timezone="UTC",
          default_status=DefaultScheduleStatus.RUNNING)
def incremental_build_schedule(context: ScheduleEvaluationContext, warehouse: Warehouse):
    # Without the views, tables that read one (int_conversions reads int_events_sessionized) fail
    # in the 15-minute build: views_missing_sensor's full build does all of it, views included.
    if warehouse.analytics_views_missing():
        return SkipReason("the analytics views are missing: views_missing_sensor starts a full build")
    return RunRequest(partition_key=month_partition_key(context.scheduled_execution_time),
                      tags={NEW_EVENTS_TAG: NEW_EVENTS})


@schedule(job=full_build_job, cron_schedule="30 2 * * *", execution_timezone="UTC",
          default_status=DefaultScheduleStatus.RUNNING)
def full_build_schedule(context: ScheduleEvaluationContext):
    return RunRequest(partition_key=month_partition_key(context.scheduled_execution_time),
                      tags={NEW_EVENTS_TAG: NEW_EVENTS})


@sensor(job=full_build_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.RUNNING)
def views_missing_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    """Build everything when the views are missing (`Warehouse.analytics_views_missing`): the 15-minute
    build leaves views alone, and skips its run until they exist."""
    if not warehouse.analytics_views_missing():
        return SkipReason("the analytics views exist")
    moment = datetime.now(timezone.utc)
    # At most one request an hour: a build takes minutes, and a failed one is retried later.
    return RunRequest(run_key=f"views-missing-{moment:%Y%m%d%H}", partition_key=month_partition_key(moment),
                      tags={NEW_EVENTS_TAG: NEW_EVENTS})


@sensor(job=channel_rebuild_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING)
def channel_rules_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    """Rebuild channels when a site's channel rules version (or the source categories) moved."""
    with warehouse.connect() as conn:
        versions = channel_rules_versions(conn)
    state = json.dumps(versions, sort_keys=True)
    if context.cursor == state:
        return SkipReason("channel rules unchanged")
    context.update_cursor(state)
    return RunRequest(run_key=hashlib.sha256(state.encode()).hexdigest()[:16])
