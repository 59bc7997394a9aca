"""When the lake is written: the views after each successful build, raw days while they can change."""

from datetime import date, datetime, timedelta, timezone

from dagster import (AssetSelection, DagsterRunStatus, DefaultSensorStatus, RunRequest, RunStatusSensorContext,
                     SensorEvaluationContext, SkipReason, define_asset_job, run_status_sensor, sensor)

from orchestration.build import PARTITION_RANGE_END_TAG, PARTITION_RANGE_START_TAG
from orchestration.defs.dbt.schedules import channel_rebuild_job, full_build_job, incremental_build_job
from orchestration.defs.lake.assets import FULL_REFRESH, FULL_REFRESH_TAG, lake_analytics_views, lake_raw_events
from orchestration.defs.resources import Warehouse
from pipelines.lake.export import lake_of
from pipelines.lake.layout import RAW_EVENTS

# Late events: `at` may be 72 hours old, so a day can still change for three days after its end.
LATE_DAYS = 3

lake_views_job = define_asset_job("lake_views_job", selection=AssetSelection.assets(lake_analytics_views),
                                  description="Refresh the lake's view folders from what the last build changed.")
lake_raw_job = define_asset_job("lake_raw_job", selection=AssetSelection.assets(lake_raw_events),
                                description="Export closed days of raw events to the lake.")


@run_status_sensor(run_status=DagsterRunStatus.SUCCESS,
                   monitored_jobs=[incremental_build_job, full_build_job, channel_rebuild_job],
                   request_job=lake_views_job, default_status=DefaultSensorStatus.RUNNING,
                   minimum_interval_seconds=15)
def lake_after_build_sensor(context: RunStatusSensorContext):
    """After each build, the views' folders."""
    return refresh_after(context.dagster_run.job_name, context.dagster_run.run_id)


def refresh_after(job_name: str, run_id: str) -> RunRequest:
    """The lake refresh a finished build asks for: what the 15-minute build changed, or everything
    after a full build or a channel-rules rebuild (rules reach past visits)."""
    full = job_name != incremental_build_job.name
    return RunRequest(run_key=f"lake-after-{run_id}", tags={FULL_REFRESH_TAG: FULL_REFRESH} if full else {})


def raw_days_to_export(warehouse: Warehouse, today: date) -> list[str]:
    """Closed days whose raw events the lake lacks or has older than PostgreSQL: every day with events
    before the first export, then the days still open to late events that received more."""
    state = lake_of(warehouse.settings()).read_state(*RAW_EVENTS)
    exported = state.extra.get("received_marks", {}) if state else {}
    with warehouse.connect() as conn:
        if not exported:
            first = conn.execute("select min(occurred_at) from raw.events where occurred_at < %s",
                                 (today,)).fetchone()[0]
            if first is None:
                return []
            start = first.astimezone(timezone.utc).date()
            return [(start + timedelta(days=n)).isoformat() for n in range((today - start).days)]
        since = today - timedelta(days=LATE_DAYS + 1)
        rows = conn.execute(
            """select (occurred_at at time zone 'UTC')::date, max(received_at)::text from raw.events
                where occurred_at >= %s and occurred_at < %s group by 1 order by 1""", (since, today)).fetchall()
    return [day.isoformat() for day, mark in rows if exported.get(day.isoformat()) != mark]


@sensor(job=lake_raw_job, minimum_interval_seconds=300, default_status=DefaultSensorStatus.RUNNING)
def lake_raw_days_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    days = raw_days_to_export(warehouse, datetime.now(timezone.utc).date())
    if not days:
        return SkipReason("the lake has every closed day of raw events")
    # One run over the range (single-run backfill): a first export of 90 days is one run, not 90.
    return RunRequest(run_key=f"lake-raw-{days[0]}-{days[-1]}-{context.cursor or ''}-{len(days)}",
                      tags={PARTITION_RANGE_START_TAG: days[0], PARTITION_RANGE_END_TAG: days[-1]})
