"""What the SQL editor and the result table need: list variables, error positions, CSV downloads, origins."""
from __future__ import annotations

import csv
import io
from dataclasses import replace

import pytest

from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, Api, ok
from workbench_app.app import create_app


def test_a_list_variable_is_bound_as_one_duckdb_list(admin):
    for sql in ("SELECT view_id FROM page_views WHERE country IN (SELECT unnest({{countries}})) ORDER BY view_id",
                "SELECT view_id FROM page_views WHERE list_contains({{countries}}, country) ORDER BY view_id"):
        body = {"sql": sql, "variables": {"countries": ["FR", "US", "x') OR true --"]},
                "variable_types": {"countries": "list"}}
        assert ok(admin.post("/sql", body))["rows"] == [[1], [3], [4]]
    numbers = {"sql": "SELECT count(*) FROM page_views WHERE list_contains({{ids}}, view_id)",
               "variables": {"ids": [1, 2, 99]}, "variable_types": {"ids": "list"}}
    assert ok(admin.post("/sql", numbers))["rows"] == [[2]]


@pytest.mark.parametrize("value", [[], "FR", [1, "FR"], [True], [None], [["FR"]], {"a": 1}])
def test_an_invalid_variable_value_names_the_variable(admin, value):
    body = {"sql": "SELECT count(*) FROM page_views WHERE list_contains({{countries}}, country)",
            "variables": {"countries": value}, "variable_types": {"countries": "list"}}
    response = admin.post("/sql", body)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "variable_error" and error["details"] == {"variable": "countries"}


def test_a_number_variables_refusal_names_it_too(admin):
    body = {"sql": "SELECT {{n}} + 1", "variables": {"n": "many"}, "variable_types": {"n": "number"}}
    error = admin.post("/sql", body).get_json()["error"]
    assert error["code"] == "variable_error" and error["details"] == {"variable": "n"}


def test_a_syntax_error_carries_its_line_and_column(admin):
    response = admin.post("/sql", {"sql": "SELECT page\nFROM page_views\nWHERE (country = 'FR'"})
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "syntax_error"
    assert error["details"]["line"] == 3 and error["details"]["column"] > 0
    formatted = admin.post("/sql/format", {"sql": "SELECT 1 +"}).get_json()["error"]
    assert formatted["code"] == "syntax_error" and formatted["details"]["line"] == 1


def rows_of(response) -> list[list[str]]:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_csv_download_of_a_statement_defuses_formulas(admin):
    sql = ("SELECT view_id, page, revenue, '=HYPERLINK(\"http://x\")' AS f, '+1' AS p, '@SUM(A1)' AS a, "
           "'-2+3' AS m, -5 AS n, NULL AS nothing FROM page_views WHERE view_id <= 2 ORDER BY view_id")
    response = admin.post("/sql/csv", {"sql": sql})
    rows = rows_of(response)
    assert rows[0] == ["view_id", "page", "revenue", "f", "p", "a", "m", "n", "nothing"]
    assert rows[1] == ["1", "/home", "10.5", "'=HYPERLINK(\"http://x\")", "'+1", "'@SUM(A1)", "'-2+3", "-5", ""]
    assert len(rows) == 3 and response.headers["X-Truncated"] == "false"
    refused = admin.post("/sql/csv", {"sql": "DELETE FROM page_views"})
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "statement_not_allowed"


def test_csv_download_goes_through_the_callers_permissions_and_history(admin, analyst):
    _, token = analyst
    analyst_api = Api(admin.client, token)
    rows = rows_of(analyst_api.post("/sql/csv", {"sql": "SELECT * FROM page_views ORDER BY view_id"}))
    assert "visitor_email" not in rows[0]
    assert [row[rows[0].index("view_id")] for row in rows[1:]] == ["1", "2", "5"]
    country = rows[0].index("country")
    assert all(row[country] not in ("FR", "DE", "ES") for row in rows[1:])
    entry = ok(analyst_api.get("/history?limit=1"))["queries"][0]
    assert entry["origin"] == "api" and entry["row_count"] == 3 and entry["status"] == "ok"
    question = ok(admin.post("/questions", {"name": "Pages by country", "sql":
                                            "SELECT page FROM page_views WHERE country = {{c}} ORDER BY view_id",
                                            "variables": {"c": "text"}}), 201)
    response = admin.post(f"/questions/{question['question_id']}/csv", {"variables": {"c": "US"}})
    assert rows_of(response) == [["page"], ["/home"], ["/blog"]]
    assert f"question_{question['question_id']}.csv" in response.headers["Content-Disposition"]
    assert ok(admin.get("/history?limit=1"))["queries"][0]["question_id"] == question["question_id"]
    # Someone without view access to the question's folder gets nothing.
    assert analyst_api.post(f"/questions/{question['question_id']}/csv", {"variables": {"c": "US"}}).status_code in (
        403, 404)


@pytest.fixture
def small_export(workbench_settings, warehouse, admin_token):
    settings = replace(workbench_settings, workbench_row_limit=2, workbench_export_row_limit=3)
    application = create_app(settings)
    application.testing = True
    yield Api(application.test_client(), admin_token)
    application.wsgi_app.close()
    application.extensions["workbench"].close()


def test_csv_download_has_its_own_row_bound(small_export):
    api = small_export
    sql = {"sql": "SELECT view_id FROM page_views ORDER BY view_id"}
    assert ok(api.post("/sql", sql))["row_count"] == 2  # the screen's bound
    response = api.post("/sql/csv", sql)
    assert rows_of(response) == [["view_id"], ["1"], ["2"], ["3"]]
    assert response.headers["X-Truncated"] == "true"
    over = api.post("/sql/csv", {**sql, "row_limit": 4})
    assert over.status_code == 400 and over.get_json()["error"]["details"]["field"] == "row_limit"
    assert rows_of(api.post("/sql/csv", {**sql, "row_limit": 1})) == [["view_id"], ["1"]]


def test_the_web_session_records_origin_ui(app, admin_token):
    client = app.test_client()
    csrf = ok(client.post("/api/v1/session", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}), 201)["csrf_token"]
    headers = {"X-CSRF-Token": csrf}
    ok(client.post("/api/v1/sql", json={"sql": "SELECT 1"}, headers=headers))
    ok(client.post("/api/v1/builder/run", headers=headers, json={"builder": {
        "table": {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}}}))
    assert client.post("/api/v1/sql/csv", json={"sql": "SELECT 2"}, headers=headers).status_code == 200
    entries = ok(client.get("/api/v1/history?limit=3"))["queries"]
    assert [entry["origin"] for entry in entries] == ["ui", "ui", "ui"]
    ok(Api(app.test_client(), admin_token).post("/sql", {"sql": "SELECT 3"}))
    assert ok(client.get("/api/v1/history?limit=1"))["queries"][0]["origin"] == "api"
