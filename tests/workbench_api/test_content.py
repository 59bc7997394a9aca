"""Folders, questions (SQL and builder), models and metrics, dashboards through /api/v1."""
from __future__ import annotations

from tests.workbench_api.conftest import Api, create_user_with_token, ok


def test_question_crud_and_run_with_an_empty_body_under_the_token_owners_rights(admin, analyst):
    question = ok(admin.post("/questions", {"name": "Revenue by region",
                                            "sql": "SELECT region, sum(revenue) AS revenue FROM page_views GROUP BY 1 ORDER BY 1"}), 201)
    assert question["kind"] == "sql"
    # An empty body, or none at all, is accepted.
    result = ok(admin.call("POST", f"/questions/{question['question_id']}/run"))
    assert result["rows"] == [["EU", 80.5], ["US", 70.0]]
    assert ok(admin.post(f"/questions/{question['question_id']}/run", {}))["rows"] == result["rows"]
    assert admin.call("POST", f"/questions/{question['question_id']}/run", None, data="[]",
                      content_type="application/json").status_code == 422
    # The analyst cannot see the administrator's personal folder.
    analyst_api = Api(admin.client, analyst[1])
    assert analyst_api.post(f"/questions/{question['question_id']}/run").status_code == 404
    # Moved to a folder shared with the analyst's group, it runs under the analyst's own rules.
    folder = ok(admin.post("/folders", {"name": "Shared"}), 201)
    group_id = ok(admin.get("/groups"))["groups"][0]["group_id"]
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{group_id}", {"level": "view"}))
    ok(admin.patch(f"/questions/{question['question_id']}", {"folder_id": folder["folder_id"]}))
    assert ok(analyst_api.post(f"/questions/{question['question_id']}/run"))["rows"] == [["EU", 80.5]]
    # View access does not allow changes.
    refused = analyst_api.patch(f"/questions/{question['question_id']}", {"name": "mine"})
    assert refused.status_code == 403
    shares = [e for e in ok(admin.get("/audit?action=share."))["entries"]]
    assert shares[0]["details"] == {"group_id": group_id, "level": "view"}
    assert admin.delete(f"/questions/{question['question_id']}").status_code == 204
    assert admin.get(f"/questions/{question['question_id']}").status_code == 404


def test_question_variables_and_optional_clauses(admin):
    question = ok(admin.post("/questions", {
        "name": "Views", "variables": {"country": "text", "min_revenue": "number"},
        "sql": "SELECT count(*) AS n FROM page_views WHERE true [[AND country = {{country}}]] "
               "[[AND revenue >= {{min_revenue}}]]"}), 201)
    run = f"/questions/{question['question_id']}/run"
    assert ok(admin.post(run, {}))["rows"] == [[5]]
    assert ok(admin.post(run, {"variables": {"country": "US"}}))["rows"] == [[2]]
    assert ok(admin.post(run, {"variables": {"country": "US", "min_revenue": 35}}))["rows"] == [[1]]
    bad = admin.post(run, {"variables": {"min_revenue": "many"}})
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "variable_error"
    undeclared = admin.post("/questions", {"name": "x", "sql": "SELECT {{x}}"})
    assert undeclared.status_code == 400 and undeclared.get_json()["error"]["details"]["missing"] == ["x"]


def test_builder_question_is_compiled_to_sql_and_checked_like_any_statement(admin, analyst):
    builder = {"table": {"catalog": "warehouse", "schema": "analytics", "table": "page_views"},
               "filters": [{"column": "page", "operator": "=", "value": "/home"}],
               "aggregations": [{"function": "count"}, {"function": "sum", "column": "revenue"}],
               "breakouts": ["country"], "order_by": [{"column": "country"}]}
    question = ok(admin.post("/questions", {"name": "Home by country", "builder": builder}), 201)
    assert question["kind"] == "builder" and question["sql"].startswith("SELECT")
    assert ok(admin.post(f"/questions/{question['question_id']}/run"))["rows"] == [
        ["ES", 1, 50.0], ["FR", 1, 10.5], ["US", 1, 30.0]]
    # A builder naming a hidden column is refused for the restricted analyst.
    analyst_api = Api(admin.client, analyst[1])
    hidden = {**builder, "breakouts": ["visitor_email"], "order_by": []}
    mine = ok(analyst_api.post("/questions", {"name": "emails", "builder": hidden}), 201)
    refused = analyst_api.post(f"/questions/{mine['question_id']}/run")
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "column_not_found"
    injection = {**builder, "filters": [{"column": 'page" = page OR "1', "operator": "=", "value": "x"}]}
    evil = ok(admin.post("/questions", {"name": "evil", "builder": injection}), 201)
    assert admin.post(f"/questions/{evil['question_id']}/run").status_code == 400


def test_models_and_metrics(admin, analyst, eu_analysts):
    folder = ok(admin.post("/folders", {"name": "Metrics"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    model = ok(admin.post("/models", {"name": "Views", "sql": "SELECT * FROM page_views;",
                                      "folder_id": folder["folder_id"]}), 201)
    metric = ok(admin.post("/metrics", {"model_id": model["model_id"], "name": "revenue", "aggregation": "sum",
                                        "column": "revenue", "dimensions": ["region", "page"]}), 201)
    query = f"/metrics/{metric['metric_id']}/query"
    assert ok(admin.post(query, {"dimensions": ["region"]}))["rows"] == [["EU", 80.5], ["US", 70.0]]
    assert ok(admin.post(query, {}))["rows"] == [[150.5]]
    assert admin.post(query, {"dimensions": ["visitor_email"]}).status_code == 400
    assert ok(Api(admin.client, analyst[1]).post(query, {"dimensions": ["region"]}))["rows"] == [["EU", 80.5]]
    assert admin.post("/metrics", {"model_id": model["model_id"], "name": "revenue", "aggregation": "sum",
                                   "column": "revenue"}).status_code == 409


def test_dashboard_object_model_with_tabs_text_and_linked_filters(admin):
    question = ok(admin.post("/questions", {
        "name": "Views in a country", "variables": {"country": "text"},
        "sql": "SELECT count(*) AS n FROM page_views WHERE true [[AND country = {{country}}]]"}), 201)
    dashboard = ok(admin.post("/dashboards", {
        "name": "Audience", "auto_refresh_seconds": 60,
        "tabs": [{"key": "main", "name": "Main"}, {"key": "notes", "name": "Notes"}],
        "cards": [{"key": "views", "tab": "main", "question_id": question["question_id"], "width": 4},
                  {"key": "note", "tab": "notes", "kind": "text", "text": "Counted without cookies."}],
        "filters": [{"name": "Country", "type": "text", "default": "US",
                     "links": [{"card": "views", "variable": "country"}]}]}), 201)
    assert [t["name"] for t in dashboard["tabs"]] == ["Main", "Notes"]
    card = dashboard["cards"][0]
    assert card["question_name"] == "Views in a country" and card["width"] == 4
    assert dashboard["filters"][0]["links"] == [{"card_id": card["card_id"], "variable": "country", "end_variable": None,
                                                 "column": None}]
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{card['card_id']}/run"
    assert ok(admin.post(run, {}))["rows"] == [[2]]  # the filter's default
    assert ok(admin.post(run, {"filters": {"Country": "FR"}}))["rows"] == [[1]]
    assert ok(admin.post(run, {"filters": {str(dashboard["filters"][0]["filter_id"]): "DE"}}))["rows"] == [[1]]
    bad_link = admin.put(f"/dashboards/{dashboard['dashboard_id']}", {
        "cards": [{"key": "views", "question_id": question["question_id"]}],
        "filters": [{"name": "Page", "type": "text", "links": [{"card": "views", "variable": "page"}]}]})
    assert bad_link.status_code == 400
    # The refused change left the dashboard as it was.
    assert len(ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}"))["cards"]) == 2
    assert admin.delete(f"/dashboards/{dashboard['dashboard_id']}").status_code == 204


def test_personal_folders_are_private_and_shared_edit_rights_allow_changes(admin, eu_analysts):
    _, token = create_user_with_token(admin, "editor@example.org", {"region": "EU"}, (eu_analysts,))
    editor = Api(admin.client, token)
    folders = ok(editor.get("/folders"))["folders"]
    assert [f["personal"] for f in folders] == [True]
    assert editor.post("/folders", {"name": "top"}).status_code == 403
    shared = ok(admin.post("/folders", {"name": "Team"}), 201)
    ok(admin.put(f"/folders/{shared['folder_id']}/access/{eu_analysts}", {"level": "edit"}))
    sub = ok(editor.post("/folders", {"name": "Drafts", "parent_id": shared["folder_id"]}), 201)
    assert sub["access"] == "edit"
    ok(editor.post("/questions", {"name": "q", "sql": "SELECT 1", "folder_id": sub["folder_id"]}), 201)
    assert len(ok(admin.get(f"/questions?folder_id={sub['folder_id']}"))["questions"]) == 1


def test_nothing_inside_a_personal_folder_can_be_shared(admin, eu_analysts):
    personal = [f for f in ok(admin.get("/folders"))["folders"] if f["personal"]][0]
    sub = ok(admin.post("/folders", {"name": "Inside", "parent_id": personal["folder_id"]}), 201)
    assert sub["personal"] is True
    refused = admin.put(f"/folders/{sub['folder_id']}/access/{eu_analysts}", {"level": "view"})
    assert refused.status_code == 400
