"""The SQL endpoint through HTTP: the warehouse as analytics_reader, permissions of the token owner."""
from __future__ import annotations

from tests.workbench_api.conftest import Api, create_user_with_token, ok


def test_admin_reads_the_warehouse_view_through_the_engine(admin):
    result = ok(admin.post("/sql", {"sql": "SELECT page, count(*) AS views FROM page_views GROUP BY page ORDER BY page"}))
    assert result["rows"] == [["/blog", 1], ["/home", 3], ["/pricing", 1]]
    assert [c["name"] for c in result["columns"]] == ["page", "views"]


def test_warehouse_is_read_as_the_reader_role_only(admin, warehouse):
    # The table behind the view is outside `analytics`: for the workbench it does not exist.
    refused = admin.post("/sql", {"sql": "SELECT * FROM warehouse.modeled.page_views"})
    assert refused.status_code == 404 and refused.get_json()["error"]["code"] == "table_not_found"
    # A view of `analytics` that reads it with the caller's rights: PostgreSQL refuses the reader.
    warehouse.execute("create view analytics.invoker_views with (security_invoker = true) "
                      "as select * from modeled.page_views")
    ok(admin.post("/sources/refresh"))
    refused = admin.post("/sql", {"sql": "SELECT * FROM invoker_views WHERE region = 'EU'"})
    assert 400 <= refused.status_code < 500
    message = refused.get_json()["error"]["message"]
    assert "permission denied" in message
    # The statement the scanner sent (with pushed-down filters) is not echoed.
    assert "COPY" not in message and "SELECT" not in message and "EU" not in message


def test_restricted_user_gets_row_filter_hidden_and_masked_columns(admin, analyst):
    _, token = analyst
    user = Api(admin.client, token)
    result = ok(user.post("/sql", {"sql": "SELECT * FROM page_views ORDER BY view_id"}))
    names = [c["name"] for c in result["columns"]]
    assert "visitor_email" not in names
    assert [row[names.index("view_id")] for row in result["rows"]] == [1, 2, 5]
    assert all(row[names.index("country")] not in ("FR", "DE", "ES") for row in result["rows"])
    hidden = user.post("/sql", {"sql": "SELECT visitor_email FROM page_views"})
    assert hidden.status_code == 400 and hidden.get_json()["error"]["code"] == "column_not_found"


def test_missing_attribute_closes_access(admin, eu_analysts):
    _, token = create_user_with_token(admin, "noattr@example.org", None, (eu_analysts,))
    refused = Api(admin.client, token).post("/sql", {"sql": "SELECT count(*) FROM page_views"})
    assert refused.status_code == 404


def test_variables_are_bound_as_values(admin):
    body = {"sql": "SELECT count(*) AS n FROM page_views WHERE country = {{country}}",
            "variables": {"country": "US' OR '1'='1"}, "variable_types": {"country": "text"}}
    assert ok(admin.post("/sql", body))["rows"] == [[0]]
    body["variables"] = {"country": "US"}
    assert ok(admin.post("/sql", body))["rows"] == [[2]]


def test_statements_that_write_are_refused_with_a_structured_error(admin):
    for statement in ("DELETE FROM page_views", "ATTACH '/tmp/x.db' AS x", "SELECT 1; SELECT 2",
                      "SELECT * FROM read_csv('/etc/passwd')"):
        response = admin.post("/sql", {"sql": statement})
        assert 400 <= response.status_code < 500, statement
        assert set(response.get_json()["error"]) == {"code", "message", "details"}


def test_format_and_autocomplete_respect_visibility(admin, analyst):
    formatted = ok(admin.post("/sql/format", {"sql": "select page,count(*) from page_views group by 1"}))
    assert formatted["sql"].startswith("SELECT")
    user = Api(admin.client, analyst[1])
    labels = [s["label"] for s in ok(user.post("/sql/autocomplete", {"sql": "SELECT  FROM page_views", "cursor": 7}))["suggestions"]]
    assert "page" in labels and "visitor_email" not in labels
    schema = ok(user.get("/schema"))["tables"]
    assert [t["table"] for t in schema] == ["page_views"]
    assert "visitor_email" not in [c["name"] for c in schema[0]["columns"]]
    assert ok(user.get("/schema/tables/analytics.page_views"))["description"] == "One row per page view"


def test_history_records_who_what_and_from_where(admin, analyst):
    user = Api(admin.client, analyst[1])
    ok(user.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))
    user.post("/sql", {"sql": "SELECT visitor_email FROM page_views"})
    runs = ok(user.get("/history"))["queries"]
    assert [(r["origin"], r["status"]) for r in runs] == [("api", "refused"), ("api", "ok")]
    assert runs[1]["row_count"] == 1 and runs[1]["duration_ms"] >= 0
    everyone = ok(admin.get("/history?all=true"))["queries"]
    assert {r["user_email"] for r in everyone} == {"analyst@example.org"}


def test_a_rule_with_problems_is_reported_and_grants_nothing(admin):
    group = ok(admin.post("/groups", {"name": "broken"}), 201)
    saved = ok(admin.post(f"/groups/{group['group_id']}/rules", {
        "catalog": "warehouse", "schema": "analytics", "table": "page_views",
        "row_filter": "no_such_column = 1"}), 201)
    assert saved["problems"] and "column" in saved["problems"][0]
    _, token = create_user_with_token(admin, "broken@example.org", None, (group["group_id"],))
    assert Api(admin.client, token).post("/sql", {"sql": "SELECT 1 FROM page_views"}).status_code == 404
    fine = ok(admin.post(f"/groups/{group['group_id']}/rules", {
        "catalog": "warehouse", "schema": "analytics", "table": "page_views", "row_filter": "revenue > 25"}), 201)
    assert fine["problems"] == []
    assert ok(Api(admin.client, token).post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[3]]


def test_schema_browser_shows_the_warehouse_views_only(admin):
    tables = ok(admin.get("/schema?catalog=warehouse"))["tables"]
    assert {t["schema"] for t in tables} == {"analytics"}
    assert "page_views" in [t["table"] for t in tables]


def test_an_edited_rule_or_attribute_applies_to_the_very_next_statement(admin, analyst, eu_analysts):
    # The worker keeps rewritten statements: the same statement run again after an
    # administrator's edit must be rewritten under the new rule, not served from before.
    user_id, token = analyst
    user = Api(admin.client, token)
    sql = {"sql": "SELECT * FROM page_views ORDER BY view_id"}

    def ids_and_columns():
        result = ok(user.post("/sql", sql))
        names = [c["name"] for c in result["columns"]]
        return [row[names.index("view_id")] for row in result["rows"]], names

    assert ids_and_columns() == ids_and_columns()  # the second answer from the statement cache
    ids, names = ids_and_columns()
    assert ids == [1, 2, 5] and "visitor_email" not in names and "page" in names
    ok(admin.post(f"/groups/{eu_analysts}/rules", {
        "catalog": "warehouse", "schema": "analytics", "table": "page_views",
        "row_filter": "region = {{user.region}}", "hidden_columns": ["visitor_email", "page"],
        "masked_columns": {"country": {"kind": "hash"}}}), 201)
    ids, names = ids_and_columns()
    assert ids == [1, 2, 5] and "page" not in names
    ok(admin.put(f"/users/{user_id}/attributes", {"attributes": {"region": "US"}}))
    ids, names = ids_and_columns()
    assert ids == [3, 4]
