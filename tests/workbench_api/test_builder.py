"""The question builder through /api/v1/builder: filters by type, time buckets, one join, sort,
limit, "view as SQL", and the same permissions as any statement."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, ok

PAGE_VIEWS = {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}


@pytest.fixture
def countries(warehouse):
    warehouse.execute("create table modeled.countries (code text, name text, joined date)")
    warehouse.execute("""insert into modeled.countries values ('FR', 'France', '2020-01-15'),
                         ('DE', 'Germany', '2021-06-01'), ('ES', 'Spain', '2022-03-10')""")
    warehouse.execute("create view analytics.countries as select * from modeled.countries")
    return warehouse


def run(api: Api, definition: dict, status: int = 200):
    return ok(api.post("/builder/run", {"builder": definition}), status)


def rows(api: Api, definition: dict):
    return run(api, definition)["rows"]


def test_filters_by_type(admin):
    base = {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}]}
    assert rows(admin, {**base, "filters": [{"column": "country", "operator": "in", "value": ["FR", "DE"]}]}) == [[2]]
    assert rows(admin, {**base, "filters": [{"column": "revenue", "operator": "between", "value": [20, 40]}]}) == [[3]]
    assert rows(admin, {**base, "filters": [{"column": "page", "operator": "contains", "value": "ric"}]}) == [[1]]
    assert rows(admin, {**base, "filters": [{"column": "region", "operator": "is not empty"}]}) == [[5]]
    assert rows(admin, {**base, "filters": [{"column": "region", "operator": "is empty"}]}) == [[0]]
    assert rows(admin, {**base, "filters": [{"column": "page", "operator": "!=", "value": "/home"}]}) == [[2]]


def test_summaries_grouped_by_columns_and_time_buckets_sorted_and_limited(admin, countries):
    by_page = rows(admin, {"table": PAGE_VIEWS, "breakouts": ["page"],
                           "aggregations": [{"function": "count"}, {"function": "sum", "column": "revenue"},
                                            {"function": "count_distinct", "column": "country"}],
                           "order_by": [{"column": "count", "direction": "desc"}], "limit": 2})
    assert by_page[0][:2] == ["/home", 3] and float(by_page[0][2]) == 90.5 and by_page[0][3] == 3
    assert len(by_page) == 2
    result = run(admin, {"table": {**PAGE_VIEWS, "table": "countries"},
                         "breakouts": [{"column": "joined", "bucket": "year"}], "aggregations": [{"function": "count"}],
                         "order_by": [{"column": "joined_year", "direction": "asc"}]})
    assert [c["name"] for c in result["columns"]] == ["joined_year", "count"]
    assert [str(r[0])[:4] for r in result["rows"]] == ["2020", "2021", "2022"]


def test_relative_dates(admin, countries):
    table = {**PAGE_VIEWS, "table": "countries"}
    recent = {"table": table, "aggregations": [{"function": "count"}],
              "filters": [{"column": "joined", "operator": "relative", "value": {"last": 100, "unit": "year"}}]}
    assert rows(admin, recent) == [[3]]
    recent["filters"][0]["value"] = {"last": 2, "unit": "day"}
    assert rows(admin, recent) == [[0]]
    recent["filters"][0]["value"] = {"last": "30; drop table x", "unit": "day"}
    refused = admin.post("/builder/run", {"builder": recent})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "builder.filters[0].value.last"


def test_one_join_on_chosen_columns_with_the_joined_tables_columns(admin, countries):
    definition = {"table": PAGE_VIEWS,
                  "join": {"table": {**PAGE_VIEWS, "table": "countries"}, "kind": "left",
                           "on": [{"left": "country", "right": "code"}]},
                  "breakouts": ["join.name"], "aggregations": [{"function": "sum", "column": "revenue"}],
                  "filters": [{"column": "join.name", "operator": "is not empty"}],
                  "order_by": [{"column": "join.name", "direction": "asc"}]}
    result = run(admin, definition)
    assert [c["name"] for c in result["columns"]] == ["join.name", "sum_revenue"]
    assert [(r[0], float(r[1])) for r in result["rows"]] == [("France", 10.5), ("Germany", 20.0), ("Spain", 50.0)]


def test_view_as_sql_writes_the_values_as_literals(admin):
    definition = {"table": PAGE_VIEWS, "filters": [{"column": "page", "operator": "=", "value": "it's"},
                                                   {"column": "revenue", "operator": ">", "value": 10}]}
    compiled = ok(admin.post("/builder/sql", {"builder": definition}))
    assert "'it''s'" in compiled["sql"] and "> 10" in compiled["sql"] and "{{" not in compiled["sql"]
    assert "{{f0}}" in compiled["template"] and compiled["variables"] == {"f0": "it's", "f1": 10}
    assert ok(admin.post("/sql", {"sql": compiled["sql"]}))["rows"] == []


def test_names_cannot_inject_sql_and_refusals_name_the_field(admin):
    evil = {"table": PAGE_VIEWS, "breakouts": ['page" FROM analytics.page_views; --'],
            "aggregations": [{"function": "count"}]}
    answer = admin.post("/builder/run", {"builder": evil})
    assert answer.status_code == 400 and answer.get_json()["error"]["code"] == "column_not_found"
    for definition, field in (
        ({"table": PAGE_VIEWS, "filters": [{"column": "page", "operator": "in", "value": []}]}, "builder.filters[0].value"),
        ({"table": PAGE_VIEWS, "filters": [{"column": "page", "operator": "between", "value": [1]}]}, "builder.filters[0].value"),
        ({"table": PAGE_VIEWS, "breakouts": [{"column": "page", "bucket": "fortnight"}]}, "builder.breakouts[0].bucket"),
        ({"table": PAGE_VIEWS, "join": {"table": PAGE_VIEWS, "on": []}}, "builder.join.on"),
        ({"table": {"catalog": "warehouse"}}, "builder.table.table"),
    ):
        refused = admin.post("/builder/run", {"builder": definition})
        assert refused.status_code == 400, (definition, refused.get_json())
        assert refused.get_json()["error"]["details"]["field"] == field


def test_the_builder_runs_under_the_callers_permissions(admin, analyst):
    _, token = analyst
    analyst_api = Api(admin.client, token)
    by_region = rows(analyst_api, {"table": PAGE_VIEWS, "breakouts": ["region"], "aggregations": [{"function": "count"}]})
    assert by_region == [["EU", 3]]
    hidden = analyst_api.post("/builder/run", {"builder": {"table": PAGE_VIEWS, "breakouts": ["visitor_email"]}})
    assert hidden.status_code == 400 and hidden.get_json()["error"]["code"] == "column_not_found"
    history = ok(analyst_api.get("/history"))["queries"]
    assert history[0]["origin"] == "api" and "visitor_email" in history[0]["sql_text"]
