"""The dashboard result cache: keyed by the statement after the permission rewrite, with a TTL
per dashboard, counted for administrators, dropped when a build rebuilds what it read."""
from __future__ import annotations

from tests.workbench_api.conftest import Api, create_user_with_token, ok
from workbench_app.content import result_cache


def _shared_dashboard(admin, eu_analysts, **fields):
    folder = ok(admin.post("/folders", {"name": "Shared"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    question = ok(admin.post("/questions", {"name": "Revenue by region", "folder_id": folder["folder_id"],
                                            "sql": "SELECT region, sum(revenue) AS revenue FROM page_views "
                                                   "GROUP BY 1 ORDER BY 1"}), 201)
    dashboard = ok(admin.post("/dashboards", {"name": "Revenue", "folder_id": folder["folder_id"], **fields,
                                              "cards": [{"question_id": question["question_id"]}]}), 201)
    return dashboard, f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"


def _counts(admin, dashboard_id):
    return next(d for d in ok(admin.get("/dashboard-cache"))["dashboards"] if d["dashboard_id"] == dashboard_id)


def test_two_people_with_different_row_filters_never_share_an_entry(admin, eu_analysts, workbench_db):
    dashboard, run = _shared_dashboard(admin, eu_analysts)
    assert dashboard["cache_ttl_seconds"] == 300 and dashboard["warm_up"] is False
    _, eu = create_user_with_token(admin, "eu@example.org", {"region": "EU"}, (eu_analysts,))
    _, us = create_user_with_token(admin, "us@example.org", {"region": "US"}, (eu_analysts,))
    eu_api, us_api = Api(admin.client, eu), Api(admin.client, us)

    first = ok(eu_api.post(run))
    assert first["rows"] == [["EU", 80.5]] and first["cached"] is False
    again = ok(eu_api.post(run))
    assert again["rows"] == [["EU", 80.5]] and again["cached"] is True
    # Same question, same card, another row filter: its own entry, its own rows.
    other = ok(us_api.post(run))
    assert other["rows"] == [["US", 70.0]] and other["cached"] is False
    assert ok(us_api.post(run))["cached"] is True
    keys = workbench_db.execute("select cache_key from dashboard_result_cache where dashboard_id = %s",
                                (dashboard["dashboard_id"],)).fetchall()
    assert len(keys) == 2
    counts = _counts(admin, dashboard["dashboard_id"])
    assert (counts["hits"], counts["misses"], counts["entries"], counts["hit_ratio"]) == (2, 2, 2, 0.5)
    # Counters are for administrators only.
    refused = eu_api.get("/dashboard-cache")
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "forbidden"


def test_a_build_drops_the_entries_that_read_what_it_rebuilt(admin, eu_analysts, workbench_db):
    dashboard, run = _shared_dashboard(admin, eu_analysts)
    ok(admin.post(run))
    assert result_cache.invalidate_tables(workbench_db, ["warehouse.analytics.visits"]) == []
    dropped = result_cache.invalidate_tables(workbench_db, ["warehouse.analytics.page_views"])
    assert [(d["dashboard_id"], d["card_id"]) for d in dropped] == [(dashboard["dashboard_id"],
                                                                       dashboard["cards"][0]["card_id"])]
    assert ok(admin.post(run))["cached"] is False


def test_a_ttl_of_zero_caches_nothing_and_a_negative_one_is_refused(admin, eu_analysts):
    dashboard, run = _shared_dashboard(admin, eu_analysts, cache_ttl_seconds=0)
    ok(admin.post(run))
    assert ok(admin.post(run))["cached"] is False
    assert _counts(admin, dashboard["dashboard_id"])["misses"] == 0
    bad = admin.put(f"/dashboards/{dashboard['dashboard_id']}", {"cache_ttl_seconds": -1})
    assert bad.status_code == 400 and bad.get_json()["error"]["details"]["field"] == "cache_ttl_seconds"


def test_a_card_fed_by_a_variable_finds_its_entry_in_every_worker(admin, monkeypatch):
    """A bound variable's parameter name carries a nonce keyed per worker process: the cache key
    leaves it out, so the entry one worker stored is a hit in the next (and other values miss)."""
    from workbench_app.engine import variables

    question = ok(admin.post("/questions", {"name": "Views in", "variables": {"country": "text"},
                                            "sql": "SELECT count(*) AS n FROM page_views WHERE country = {{country}}"}),
                  201)
    dashboard = ok(admin.post("/dashboards", {
        "name": "By country", "cards": [{"key": "a", "question_id": question["question_id"]}],
        "filters": [{"name": "Country", "type": "text", "links": [{"card": "a", "variable": "country"}]}]}), 201)
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    assert ok(admin.post(run, {"filters": {"Country": "US"}}))["cached"] is False
    monkeypatch.setattr(variables, "_NONCE_KEY", b"another worker's key".ljust(32, b"."))
    again = ok(admin.post(run, {"filters": {"Country": "US"}}))
    assert again["cached"] is True
    assert ok(admin.post(run, {"filters": {"Country": "ES"}}))["cached"] is False
