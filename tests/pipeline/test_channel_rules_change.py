"""Editing a channel rule changes the channel of past visits after the sensor-triggered rebuild."""
from dagster import Definitions, RunRequest, SkipReason, build_sensor_context

from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.schedules import channel_rebuild_job, channel_rules_sensor
from orchestration.defs.resources import build_resources
from tests.pipeline.conftest import load_fixture_data, run_dbt


def evaluate(sensor, cursor, resources):
    context = build_sensor_context(cursor=cursor, resources={"warehouse": resources["warehouse"]})
    result = sensor(context)
    return result, context.cursor


def channels(db):
    return db.execute("select campaign, channel from analytics.visits where campaign is not null").fetchall()


def test_rule_edit_reaches_past_visits(db, database_url, site, settings):
    load_fixture_data(db, site)
    run_dbt(database_url, "build")
    assert channels(db) == [("spring sale", "Email")]
    resources = build_resources(settings)

    first, cursor = evaluate(channel_rules_sensor, None, resources)
    assert isinstance(first, RunRequest)
    unchanged, cursor = evaluate(channel_rules_sensor, cursor, resources)
    assert isinstance(unchanged, SkipReason)

    # What the administration API does on an edit: change the rule, bump the version.
    db.execute("""insert into collect.channel_rules (site_id, position, channel, campaign_pattern)
                  values (%s, 0, 'Seasonal campaigns', '^spring')""", (site,))
    db.execute("update collect.channel_rules_versions set version = version + 1 where site_id = %s", (site,))
    request, cursor = evaluate(channel_rules_sensor, cursor, resources)
    assert isinstance(request, RunRequest)

    defs = Definitions(assets=[analytics_dbt_incremental_models, analytics_dbt_models], jobs=[channel_rebuild_job],
                       resources=resources)
    result = defs.resolve_job_def("channel_rebuild_job").execute_in_process()
    assert result.success
    assert channels(db) == [("spring sale", "Seasonal campaigns")]
    touched = db.execute("""select distinct channel from analytics.attribution
                             where attribution_model = 'last_touch'""").fetchall()
    assert ("Seasonal campaigns",) in touched
