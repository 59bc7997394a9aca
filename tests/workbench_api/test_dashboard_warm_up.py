"""The warm-up after a build: the Dagster sensor, run for real on a real run of an ephemeral Dagster
instance, drops the cached card results that read a rebuilt view and fills the cache of the
dashboards marked for warm-up, as their owner and as each person who had an entry."""
from __future__ import annotations

import pytest
from dagster import AssetKey, DagsterInstance, Definitions, asset, build_run_status_sensor_context, define_asset_job

from orchestration.defs.resources import Warehouse
from orchestration.defs.workbench.warm_up import dashboard_warm_up_sensor
from tests.conftest import TEST_SECRET
from tests.workbench_api.conftest import Api, create_user_with_token, ok

VISITS_BY_REGION = "SELECT region, count(*) AS n FROM visits GROUP BY 1 ORDER BY 1"


@pytest.fixture
def warehouse(warehouse):
    """The test warehouse with a `visits` view too (before the app reads the schema)."""
    warehouse.execute("create view analytics.visits as select view_id as visit_id, region from modeled.page_views")
    return warehouse


@asset(key=AssetKey(["intermediate", "int_visits"]))
def int_visits_stand_in():
    """Stands for the dbt model: `analytics.visits` is downstream of it in the manifest."""
    return None


def _finished_build():
    """A real successful run that materialized int_visits, in an ephemeral instance."""
    instance = DagsterInstance.ephemeral()
    job = Definitions(assets=[int_visits_stand_in],
                      jobs=[define_asset_job("build", selection=[int_visits_stand_in])]).resolve_job_def("build")
    result = job.execute_in_process(instance=instance)
    assert result.success
    return instance, result


def _entries(workbench_db, dashboard_id):
    return workbench_db.execute(
        """select user_id, (result->'rows')::text from dashboard_result_cache
           where dashboard_id = %s and expires_at > now() order by user_id""", (dashboard_id,)).fetchall()


def test_the_sensor_drops_stale_entries_and_warms_marked_dashboards(admin, eu_analysts, warehouse, workbench_db,
                                                                     workbench_settings, settings, monkeypatch):
    ok(admin.post(f"/groups/{eu_analysts}/rules", {"catalog": "warehouse", "schema": "analytics", "table": "visits",
                                                    "row_filter": "region = {{user.region}}"}), 201)
    folder = ok(admin.post("/folders", {"name": "Shared"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    question = ok(admin.post("/questions", {"name": "Visits", "sql": VISITS_BY_REGION,
                                            "folder_id": folder["folder_id"]}), 201)
    card = {"question_id": question["question_id"]}
    marked = ok(admin.post("/dashboards", {"name": "Warm", "folder_id": folder["folder_id"], "warm_up": True,
                                           "cache_ttl_seconds": 3600, "cards": [card]}), 201)
    plain = ok(admin.post("/dashboards", {"name": "Cold", "folder_id": folder["folder_id"], "cards": [card]}), 201)
    run = f"/dashboards/{marked['dashboard_id']}/cards/{marked['cards'][0]['card_id']}/run"
    plain_run = f"/dashboards/{plain['dashboard_id']}/cards/{plain['cards'][0]['card_id']}/run"
    eu_id, eu = create_user_with_token(admin, "eu@example.org", {"region": "EU"}, (eu_analysts,))
    eu_api = Api(admin.client, eu)
    assert ok(eu_api.post(run))["rows"] == [["EU", 3]]
    ok(admin.post(plain_run))
    assert [user for user, _ in _entries(workbench_db, marked["dashboard_id"])] == [eu_id]

    # New data arrives and a build rebuilds int_visits (so the visits view): the entries are stale.
    warehouse.execute("insert into modeled.page_views values (6, '/home', 'IT', 'EU', 'gil@example.it', 5.0)")
    instance, result = _finished_build()
    monkeypatch.setenv("ANALYTICS_WORKBENCH_DATABASE_NAME", workbench_settings.workbench_database_name)
    monkeypatch.setenv("ANALYTICS_SECRET", TEST_SECRET)
    context = build_run_status_sensor_context(
        sensor_name="dashboard_warm_up_sensor", dagster_instance=instance, dagster_run=result.dagster_run,
        dagster_event=result.get_run_success_event(),
        resources={"warehouse": Warehouse(home=str(settings.home), database_url=settings.database_url)})
    outcome = dashboard_warm_up_sensor(context)
    assert "2 stale entries dropped" in outcome.skip_message

    # The marked dashboard is warm for its owner (the administrator) and for the EU analyst, each with
    # their own rows; the unmarked one is only dropped.
    admin_id = workbench_db.execute("select user_id from users where is_admin").fetchone()[0]
    assert _entries(workbench_db, marked["dashboard_id"]) == sorted(
        [(admin_id, '[["EU", 4], ["US", 2]]'), (eu_id, '[["EU", 4]]')])
    assert _entries(workbench_db, plain["dashboard_id"]) == []
    counts = next(d for d in ok(admin.get("/dashboard-cache"))["dashboards"]
                  if d["dashboard_id"] == marked["dashboard_id"])
    assert (counts["hits"], counts["misses"]) == (0, 1)  # the warm-up's runs are not counted
    again = ok(eu_api.post(run))
    assert again["cached"] is True and again["rows"] == [["EU", 4]]
    assert ok(admin.post(run))["cached"] is True
