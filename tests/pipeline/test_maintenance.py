"""The maintenance job runs in process: partitions, retention, salts, event views, requests, spool."""
from datetime import datetime, timedelta, timezone

from dagster import materialize

from orchestration.defs.maintenance.assets import maintenance_assets
from orchestration.defs.resources import build_resources
from pipelines import partitions
from pipelines.maintenance.retention import apply_retention, retention_cutoff
from tests.pipeline.conftest import NOW, insert_event, load_fixture_data


def test_definitions_load_with_jobs_schedules_and_sensors():
    from orchestration.definitions import defs

    repository = defs.get_repository_def()
    assert {"incremental_build_job", "full_build_job", "channel_rebuild_job", "maintenance_job", "event_views_job",
            "privacy_requests_job"} <= {job.name for job in repository.get_all_jobs()}
    schedules = {s.name: s.cron_schedule for s in repository.schedule_defs}
    # Other integrations may add their own schedules and sensors: these are the pipeline's.
    assert schedules.items() >= {"incremental_build_schedule": "*/15 * * * *", "full_build_schedule": "30 2 * * *",
                                 "maintenance_job_schedule": "0 * * * *"}.items()
    assert {s.name for s in repository.sensor_defs} >= {"views_missing_sensor", "channel_rules_sensor",
                                                        "declared_events_sensor", "privacy_requests_sensor"}


def test_views_missing_sensor_asks_for_a_full_build_on_a_fresh_database(settings):
    from dagster import RunRequest, build_sensor_context

    from orchestration.defs.dbt.schedules import views_missing_sensor

    context = build_sensor_context(resources={"warehouse": build_resources(settings)["warehouse"]})
    request = views_missing_sensor(context)
    assert isinstance(request, RunRequest) and request.partition_key.endswith("-01")


def test_views_missing_sensor_asks_for_a_full_build_when_the_events_view_is_gone(settings, db):
    """Migration 0024 drops the old table int_events_sessionized with the views reading it,
    analytics.events among them, while analytics.visits stays."""
    from dagster import RunRequest, SkipReason, build_sensor_context

    from orchestration.defs.dbt.schedules import views_missing_sensor

    db.execute("create view analytics.visits as select 1 as visit")
    context = build_sensor_context(resources={"warehouse": build_resources(settings)["warehouse"]})
    assert isinstance(views_missing_sensor(context), RunRequest)
    db.execute("create view analytics.events as select 1 as event")
    assert isinstance(views_missing_sensor(context), SkipReason)


def test_the_15_minute_build_waits_for_the_views(settings, db):
    """Its tables read views that only the full build makes (int_conversions reads
    int_events_sessionized): without them the run would fail, so it waits for views_missing_sensor's."""
    from dagster import RunRequest, SkipReason, build_schedule_context

    from orchestration.defs.dbt.schedules import incremental_build_schedule

    context = build_schedule_context(resources={"warehouse": build_resources(settings)["warehouse"]},
                                     scheduled_execution_time=datetime(2026, 11, 26, 17, 15, tzinfo=timezone.utc))
    skipped = incremental_build_schedule(context)
    assert isinstance(skipped, SkipReason) and "views_missing_sensor" in skipped.skip_message
    db.execute("create view analytics.visits as select 1 as visit")
    db.execute("create view analytics.events as select 1 as event")
    request = incremental_build_schedule(context)
    assert isinstance(request, RunRequest) and request.partition_key == "2026-11-01"


def test_maintenance_job_runs_in_process(db, site, settings):
    load_fixture_data(db, site)
    today = datetime.now(timezone.utc).date()
    db.execute("insert into collect.daily_salts (salt_day, salt) values (%s, %s), (%s, %s)",
               (today - timedelta(days=1), b"y" * 32, today, b"t" * 32))
    # 30 months old: beyond the default retention of 25 months, in the default partition.
    old = NOW - timedelta(days=915)
    insert_event(db, site, old, path="/ancient")

    result = materialize(maintenance_assets, resources=build_resources(settings))
    assert result.success

    assert [d for (d,) in db.execute("select salt_day from collect.daily_salts")] == [today]
    assert partitions.partition_name(NOW.date().replace(day=1)) in partitions.existing_partitions(db)
    assert db.execute("select count(*) from raw.events where path = '/ancient'").fetchone()[0] == 0
    assert db.execute("select count(*) from raw.events_default").fetchone()[0] == 0
    assert db.execute("select to_regclass('analytics.event_sign_up')").fetchone()[0] == "analytics.event_sign_up"
    actions = {a for (a,) in db.execute("select action from collect.audit_log")}
    assert {"daily_salts.destroyed", "retention.applied"} <= actions


def test_retention_drops_whole_partitions_no_site_needs(db, site):
    long_kept = db.execute("insert into collect.sites (name, retention_months) values ('Archive', 60) returning site_id"
                           ).fetchone()[0]
    partitions.ensure_partitions(db)
    old = (NOW - timedelta(days=800)).replace(day=15)
    partitions.create_month_partition(db, old.date())
    insert_event(db, site, old, path="/old-short")
    insert_event(db, long_kept, old, path="/old-long")
    result = apply_retention(db)
    # The archive site keeps 60 months: the partition stays, only the short-retention row goes.
    assert result.dropped_partitions == []
    assert [p for (p,) in db.execute("select path from raw.events order by path")] == ["/old-long"]
    db.execute("update collect.sites set retention_months = 12 where site_id = %s", (long_kept,))
    result = apply_retention(db)
    assert partitions.partition_name(old.date().replace(day=1)) in result.dropped_partitions
    assert db.execute("select count(*) from raw.events").fetchone()[0] == 0


def test_retention_cutoff_is_a_month_start():
    from datetime import date
    assert retention_cutoff(date(2026, 11, 21), 25).isoformat() == "2024-10-01T00:00:00+00:00"
