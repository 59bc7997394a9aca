"""The Dagster code location: merges the definitions of each integration."""
from dagster import Definitions

from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.schedules import (channel_rebuild_job, channel_rules_sensor, full_build_job,
                                              full_build_schedule, incremental_build_job, incremental_build_schedule,
                                              views_missing_sensor)
from orchestration.defs.inbound.assets import inbound_inbox_processing
from orchestration.defs.inbound.jobs import inbound_job
from orchestration.defs.lake.assets import lake_analytics_views, lake_raw_events
from orchestration.defs.lake.schedules import (lake_after_build_sensor, lake_raw_days_sensor, lake_raw_job,
                                               lake_views_job)
from orchestration.defs.maintenance.assets import maintenance_assets
from orchestration.defs.maintenance.schedules import (declared_events_sensor, event_views_job, maintenance_job,
                                                      maintenance_schedule, privacy_requests_job,
                                                      privacy_requests_sensor)
from orchestration.defs.resources import build_resources
from orchestration.defs.workbench.deliveries import subscription_deliveries_job, subscriptions_due_sensor
from orchestration.defs.workbench.warm_up import dashboard_warm_up_sensor

defs = Definitions(
    assets=[analytics_dbt_incremental_models, analytics_dbt_models, *maintenance_assets, inbound_inbox_processing,
            lake_raw_events, lake_analytics_views],
    jobs=[incremental_build_job, full_build_job, channel_rebuild_job, maintenance_job, event_views_job,
          privacy_requests_job, inbound_job, lake_views_job, lake_raw_job, subscription_deliveries_job],
    schedules=[incremental_build_schedule, full_build_schedule, maintenance_schedule],
    sensors=[views_missing_sensor, channel_rules_sensor, declared_events_sensor, privacy_requests_sensor,
             dashboard_warm_up_sensor, lake_after_build_sensor, lake_raw_days_sensor, subscriptions_due_sensor],
    resources=build_resources(),
)
