"""Groups and data rules as the administration screen uses them: the row filter checked as it is
typed (engine dialect, known columns), the quoted-placeholder warning, and "view as"."""
from __future__ import annotations

import json

from tests.workbench_api.conftest import Api, ok

PAGE_VIEWS = {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}


def check(admin, row_filter, **table):
    return ok(admin.post("/rules/check", {**PAGE_VIEWS, **table, "row_filter": row_filter}))


def test_a_valid_filter_is_accepted_with_the_tables_columns(admin):
    verdict = check(admin, "region = {{user.region}} AND revenue > 10")
    assert verdict["valid"] and verdict["problems"] == [] and verdict["warnings"] == []
    assert {"region", "revenue", "visitor_email"} <= set(verdict["columns"])


def test_an_unknown_column_is_named(admin):
    verdict = check(admin, "regoin = 'EU' AND pgae = '/'")
    assert not verdict["valid"]
    assert verdict["problems"][0]["code"] == "column_not_found"
    assert verdict["problems"][0]["message"] == "The table has no column pgae, regoin."
    assert verdict["problems"][0]["details"] == {"columns": ["pgae", "regoin"]}


def test_a_syntax_error_and_another_table_are_refused(admin):
    assert check(admin, "region = = 'EU'")["problems"][0]["code"] == "syntax_error"
    other = check(admin, "region IN (SELECT region FROM page_views)")
    assert other["problems"][0]["code"] == "statement_not_allowed"


def test_a_quoted_placeholder_is_warned_about_in_the_check_and_in_the_saved_rules_answer(admin, analyst,
                                                                                       eu_analysts):
    verdict = check(admin, "region = '{{user.region}}'")
    assert verdict["valid"]  # it parses, and that is the trap
    warning = verdict["warnings"][0]
    assert warning["code"] == "quoted_placeholder" and warning["details"]["attribute"] == "region"
    assert "bound as a value" in warning["message"] and "Write {{user.region}} without quotes" in warning["message"]
    saved = ok(admin.post(f"/groups/{eu_analysts}/rules", {**PAGE_VIEWS, "row_filter": "region = '{{user.region}}'"}),
               201)
    assert saved["warnings"][0]["code"] == "quoted_placeholder"
    # What the warning says: the analyst (region EU) now gets nothing.
    user = Api(admin.client, analyst[1])
    assert ok(user.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[0]]
    ok(admin.patch("/me", {"locale": "fr"}))
    french = check(admin, "region = \"{{ user.region }}\"")["warnings"][0]["message"]
    assert french.startswith('"{{ user.region }}" est entre guillemets') and "{{user.region}} sans guillemets" in french


def test_a_table_that_is_not_attached(admin):
    verdict = check(admin, "x = 1", table="nowhere")
    assert verdict["problems"][0]["code"] == "table_not_attached" and verdict["columns"] == []


def test_view_as_shows_the_persons_rows_columns_and_the_deciding_rule(admin, analyst, eu_analysts):
    user_id, _ = analyst
    answer = ok(admin.post(f"/users/{user_id}/preview", {"sql": "SELECT * FROM page_views ORDER BY view_id"}))
    result = answer["result"]
    assert [c["name"] for c in result["columns"]] == ["view_id", "page", "country", "region", "revenue"]
    assert [row[3] for row in result["rows"]] == ["EU", "EU", "EU"]
    assert answer["decisions"] == [{"table": "warehouse.analytics.page_views", "grants": [{
        "group": "EU analysts", "kind": "table_rule", "access": True, "row_filter": "region = {{user.region}}",
        "hidden_columns": ["visitor_email"], "masked_columns": {"country": "hash"}}]}]
    refused = ok(admin.post(f"/users/{user_id}/preview", {"sql": "SELECT visitor_email FROM page_views"}))
    assert refused["result"] is None and refused["refusal"]["code"] == "column_not_found"
    # Recorded under the administrator, not in the person's history.
    history = ok(Api(admin.client, analyst[1]).get("/history"))["queries"]
    assert all("visitor_email" not in entry["sql_text"] for entry in history)
    audit = json.dumps(ok(admin.get("/audit", query_string={"action": "permissions.previewed"}))["entries"])
    assert "admin@example.org" in audit


def test_view_as_an_unknown_person_is_404(admin):
    assert admin.post("/users/999999/preview", {"sql": "SELECT 1"}).status_code == 404
