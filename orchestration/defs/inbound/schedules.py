"""A job and a schedule that process the inbound inbox every five minutes (the safety net)."""
from dagster import AssetSelection, DefaultScheduleStatus, ScheduleDefinition, define_asset_job

from orchestration.defs.inbound.assets import inbound_inbox_processing

inbound_job = define_asset_job("inbound_job", selection=AssetSelection.assets(inbound_inbox_processing),
                               description="Process deliveries waiting in the inbound inbox.")
inbound_schedule = ScheduleDefinition(job=inbound_job, cron_schedule="*/5 * * * *", execution_timezone="UTC",
                                      default_status=DefaultScheduleStatus.RUNNING)
