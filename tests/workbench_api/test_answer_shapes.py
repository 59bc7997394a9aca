"""The answers are exactly the models the OpenAPI document is generated from (each area's shapes.py):
every field the model names, of its type, and no other (the models forbid extra fields), for a
dashboard with every kind of card, tab and filter, a model, a metric and a group."""
from __future__ import annotations

from pydantic import BaseModel

from tests.workbench_api.conftest import Api, ok
from workbench_app.accounts.shapes import Group, GroupList
from workbench_app.content.shapes import Dashboard, DashboardList, ListedMetric, Metric, MetricList, Model, ModelList
from workbench_app.sharing.shapes import SharedDashboard


def _exactly(model: type[BaseModel], answer: dict) -> BaseModel:
    return model.model_validate(answer)  # a missing, extra or mistyped field, at any depth, raises here


def _full_dashboard(admin: Api) -> dict:
    question = ok(admin.post("/questions", {"name": "Views", "sql": "SELECT page, country, view_id FROM page_views "
                                            "WHERE true [[AND view_id >= {{since}}]]",
                                            "variables": {"since": "number"},
                                            "visualization": {"kind": "bar"}}), 201)
    return ok(admin.post("/dashboards", {
        "name": "Everything", "description": "Each kind of part", "auto_refresh_seconds": 60,
        "tabs": [{"key": "one", "name": "One"}, {"key": "two", "name": "Two"}],
        "cards": [{"key": "q", "tab": "one", "question_id": question["question_id"]},
                  {"key": "t", "tab": "two", "kind": "text", "text": "Notes"},
                  {"key": "h", "tab": "two", "kind": "heading", "text": "Section"}],
        "filters": [{"name": "Since", "type": "number", "default": 2, "links": [{"card": "q", "variable": "since"}]},
                    {"name": "Country", "type": "one_of", "required": True,
                     "values": {"table": "warehouse.analytics.page_views", "column": "country"},
                     "links": [{"card": "q", "column": "country"}]}]}), 201)


def test_a_dashboard_its_list_and_its_shared_view_are_their_models(app, admin):
    created = _exactly(Dashboard, _full_dashboard(admin))
    assert [card.kind for card in created.cards] == ["question", "text", "heading"]
    assert [item.type for item in created.filters] == ["number", "one_of"]
    path = f"/dashboards/{created.dashboard_id}"
    _exactly(Dashboard, ok(admin.get(path)))
    _exactly(Dashboard, ok(admin.put(path, {"name": "Renamed"})))
    listed = _exactly(DashboardList, ok(admin.get("/dashboards")))
    assert created.dashboard_id in [summary.dashboard_id for summary in listed.dashboards]
    ok(admin.patch("/settings", {"public_sharing": True}))
    link = ok(admin.post(f"{path}/public-links", {"allowed_filters": ["Since"]}), 201)
    shared = _exactly(SharedDashboard, ok(Api(app.test_client()).get(f"/public/{link['secret']}")))
    assert [item.settable for item in shared.filters] == [True, False] and shared.share.kind == "public_link"


def test_models_metrics_and_groups_are_their_models(admin, analyst):
    model = _exactly(Model, ok(admin.post("/models", {"name": "Views", "sql": "SELECT page, country FROM page_views"}),
                                201))
    _exactly(Model, ok(admin.patch(f"/models/{model.model_id}", {"description": "Every view"})))
    assert model.model_id in [item.model_id for item in _exactly(ModelList, ok(admin.get("/models"))).models]
    created = {"model_id": model.model_id, "name": "views_by_country", "aggregation": "count",
               "dimensions": ["country"]}
    metric = _exactly(Metric, ok(admin.post("/metrics", created), 201))
    _exactly(Metric, ok(admin.get(f"/metrics/{metric.metric_id}")))
    listed = _exactly(MetricList, ok(admin.get("/metrics"))).metrics
    assert ListedMetric(**{**metric.model_dump(), "model": "Views"}) in listed
    group = _exactly(Group, ok(admin.post("/groups", {"name": "Shapes"}), 201))
    user_id = analyst[0]
    assert _exactly(Group, ok(admin.put(f"/groups/{group.group_id}/members/{user_id}"))).members == [user_id]
    _exactly(Group, ok(admin.get(f"/groups/{group.group_id}")))
    assert group.group_id in [item.group_id for item in _exactly(GroupList, ok(admin.get("/groups"))).groups]
