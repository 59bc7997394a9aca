"""Maintenance jobs, the hourly schedule and the sensors that start work when metadata moves."""

import hashlib

from dagster import (AssetSelection, DefaultScheduleStatus, DefaultSensorStatus, RunRequest,
                     SensorEvaluationContext, SkipReason, ScheduleDefinition, define_asset_job, sensor)

from orchestration.defs.maintenance.assets import analytics_event_views, maintenance_assets, privacy_requests
from orchestration.defs.resources import Warehouse
from pipelines.event_views import declared_events_fingerprint
from pipelines.maintenance.changes import pending_privacy_requests

maintenance_job = define_asset_job(
    "maintenance_job", selection=AssetSelection.assets(*maintenance_assets),
    description="Spool, partitions, retention, salts, event views and privacy requests.")
event_views_job = define_asset_job("event_views_job", selection=AssetSelection.assets(analytics_event_views))
privacy_requests_job = define_asset_job("privacy_requests_job", selection=AssetSelection.assets(privacy_requests))

maintenance_schedule = ScheduleDefinition(job=maintenance_job, cron_schedule="0 * * * *", execution_timezone="UTC",
                                          default_status=DefaultScheduleStatus.RUNNING)


@sensor(job=event_views_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING)
def declared_events_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    """Regenerate the event views when a declared event or property changed."""
    with warehouse.connect() as conn:
        fingerprint = declared_events_fingerprint(conn)
    if context.cursor == fingerprint:
        return SkipReason("declared events unchanged")
    context.update_cursor(fingerprint)
    return RunRequest(run_key=f"declared-events-{fingerprint}")


@sensor(job=privacy_requests_job, minimum_interval_seconds=30, default_status=DefaultSensorStatus.RUNNING)
def privacy_requests_sensor(context: SensorEvaluationContext, warehouse: Warehouse):
    """Process export and erasure requests as soon as they wait."""
    with warehouse.connect() as conn:
        waiting = pending_privacy_requests(conn)
    if not waiting:
        return SkipReason("no privacy request waiting")
    # One run per set of waiting requests; a run processes every pending request anyway.
    return RunRequest(run_key="privacy-" + hashlib.sha256(",".join(waiting).encode()).hexdigest()[:16])
