"""The question builder through /api/v1/builder/run and /builder/sql: operators, buckets, a join, sorting."""
from __future__ import annotations

import pytest

from tests.workbench_api.conftest import Api, ok

PAGE_VIEWS = {"catalog": "warehouse", "schema": "analytics", "table": "page_views"}
PAGES = {"catalog": "warehouse", "schema": "analytics", "table": "pages"}
VISITS = {"catalog": "warehouse", "schema": "analytics", "table": "visits"}


@pytest.fixture
def more_tables(admin, warehouse):
    """`pages` (joined on page) and `visits` whose times are relative to now (UTC)."""
    warehouse.execute("create table modeled.pages (path text, section text, title text)")
    warehouse.execute("""insert into modeled.pages values ('/home', 'site', 'Home'), ('/pricing', 'site', ''),
                         ('/blog', 'blog', null)""")
    warehouse.execute("create view analytics.pages as select * from modeled.pages")
    warehouse.execute("create table modeled.visits (visit_id integer, at timestamp)")
    warehouse.execute("""insert into modeled.visits
                         select id, date_trunc('day', now() at time zone 'utc') + offset_days * interval '1 day'
                                    + interval '1 hour'
                         from (values (1, -2), (2, -2), (3, -40), (4, 0), (5, -400)) as v(id, offset_days)""")
    warehouse.execute("create view analytics.visits as select * from modeled.visits")
    ok(admin.post("/sources/refresh"))


def run(api: Api, definition: dict, status: int = 200):
    return ok(api.post("/builder/run", {"builder": definition}), status)


def refused_field(api: Api, definition: dict) -> str:
    response = api.post("/builder/run", {"builder": definition})
    assert response.status_code == 400, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == "invalid_input"
    return error["details"]["field"]


def test_one_of_between_and_emptiness_filters(admin, more_tables):
    base = {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}]}
    one_of = {**base, "filters": [{"column": "country", "operator": "in", "value": ["FR", "ES"]}]}
    assert run(admin, one_of)["rows"] == [[2]]
    numbers = {**base, "filters": [{"column": "view_id", "operator": "in", "value": [1, 4, 99]}]}
    assert run(admin, numbers)["rows"] == [[2]]
    between = {**base, "filters": [{"column": "revenue", "operator": "between", "value": [20, 40]}]}
    assert run(admin, between)["rows"] == [[3]]
    empty = {"table": PAGES, "filters": [{"column": "title", "operator": "is empty"}],
             "breakouts": ["path"], "order_by": [{"column": "path"}]}
    assert run(admin, empty)["rows"] == [["/blog"], ["/pricing"]]
    not_empty = {**empty, "filters": [{"column": "title", "operator": "is not empty"}]}
    assert run(admin, not_empty)["rows"] == [["/home"]]


def test_relative_dates_are_computed_when_the_statement_runs(admin, more_tables):
    def ids(value):
        definition = {"table": VISITS, "breakouts": ["visit_id"], "order_by": [{"column": "visit_id"}],
                      "filters": [{"column": "at", "operator": "relative", "value": value}]}
        return [row[0] for row in run(admin, definition)["rows"]]

    assert ids({"last": 30, "unit": "day"}) == [1, 2]  # today is not one of the last 30 whole days
    assert ids({"last": 60, "unit": "day"}) == [1, 2, 3]
    assert ids({"current": "day"}) == [4]
    assert ids({"last": 1, "unit": "year"}) in ([5], [])  # 400 days ago is last year unless early January
    # "View as SQL" keeps the statement relative: current_timestamp, not a frozen date.
    compiled = ok(admin.post("/builder/sql", {"builder": {
        "table": VISITS, "filters": [{"column": "at", "operator": "relative", "value": {"last": 3, "unit": "week"}}]}}))
    assert "CURRENT_TIMESTAMP" in compiled["sql"].upper() and "3 * INTERVAL" in compiled["sql"]


def test_time_buckets_and_sorting_by_an_aggregation(admin, more_tables):
    definition = {"table": VISITS, "breakouts": [{"column": "at", "bucket": "year"}],
                  "aggregations": [{"function": "count"}], "order_by": [{"alias": "count", "direction": "desc"}]}
    result = run(admin, definition)
    assert [c["name"] for c in result["columns"]] == ["at_year", "count"]
    assert sum(row[1] for row in result["rows"]) == 5
    assert [row[1] for row in result["rows"]] == sorted((row[1] for row in result["rows"]), reverse=True)
    assert all(row[0].endswith("-01-01T00:00:00") for row in result["rows"])
    by_month = {**definition, "breakouts": [{"column": "at", "bucket": "month"}],
                "order_by": [{"alias": "at_month", "direction": "asc"}]}
    months = [row[0] for row in run(admin, by_month)["rows"]]
    assert months == sorted(months) and all(month[8:10] == "01" for month in months)


def test_join_one_more_table_and_name_its_columns(admin, more_tables):
    definition = {"table": PAGE_VIEWS,
                  "join": {"table": PAGES, "kind": "inner", "on": [{"left": "page", "right": "path"}]},
                  "filters": [{"column": "section", "from": "join", "operator": "=", "value": "site"}],
                  "breakouts": [{"column": "title", "from": "join"}],
                  "aggregations": [{"function": "sum", "column": "revenue"},
                                   {"function": "count_distinct", "column": "path", "from": "join"}],
                  "order_by": [{"column": "title", "from": "join", "direction": "asc"}]}
    result = run(admin, definition)
    assert [c["name"] for c in result["columns"]] == ["join_title", "sum_revenue", "count_distinct_join_path"]
    assert result["rows"] == [["", 20.0, 1], ["Home", 90.5, 1]]
    left = {"table": PAGES, "join": {"table": PAGE_VIEWS, "kind": "left", "on": [{"left": "path", "right": "page"}]},
            "breakouts": ["path"], "aggregations": [{"function": "count", "column": "view_id", "from": "join"}],
            "order_by": [{"column": "path"}]}
    assert run(admin, left)["rows"] == [["/blog", 1], ["/home", 3], ["/pricing", 1]]


def test_a_join_goes_through_the_callers_permissions(admin, analyst, more_tables):
    _, token = analyst
    analyst_api = Api(admin.client, token)
    self_join = {"table": PAGE_VIEWS, "join": {"table": PAGE_VIEWS, "kind": "inner",
                                               "on": [{"left": "view_id", "right": "view_id"}]},
                 "aggregations": [{"function": "count"}]}
    assert run(admin, self_join)["rows"] == [[5]]
    assert run(analyst_api, self_join)["rows"] == [[3]]  # the EU row filter applies to both sides
    hidden = {**self_join, "aggregations": [], "breakouts": [{"column": "visitor_email", "from": "join"}]}
    refused = analyst_api.post("/builder/run", {"builder": hidden})
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "column_not_found"


def test_names_and_values_cannot_inject_sql(admin, more_tables):
    evil_text = "x' OR '1'='1"
    for definition in (
        {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}],
         "filters": [{"column": "country", "operator": "in", "value": [evil_text, "FR') OR true --"]}]},
        {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}],
         "filters": [{"column": "page", "operator": "between", "value": [evil_text, "z' OR '1'='1"]}]},
        {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}],
         "filters": [{"column": "page", "operator": "contains", "value": "%' OR '1'='1"}]},
    ):
        assert run(admin, definition)["rows"] == [[0]], definition
        # The runnable "view as SQL" statement quotes the same values as literals: same answer.
        compiled = ok(admin.post("/builder/sql", {"builder": definition}))
        assert ok(admin.post("/sql", {"sql": compiled["sql"]}))["rows"] == [[0]]
        assert "{{" in compiled["template"] and compiled["variables"]
    for name in ('page" = "page" OR "1', 'page"; DROP TABLE x; --'):
        response = admin.post("/builder/run", {"builder": {"table": PAGE_VIEWS, "breakouts": [name]}})
        # One quoted name that no column has: the binder's refusal, not a second statement.
        assert response.status_code == 400, response.get_data(as_text=True)
        assert "not found" in response.get_json()["error"]["message"]
        joined = {"table": PAGE_VIEWS, "join": {"table": PAGES, "on": [{"left": "page", "right": name}]}}
        assert admin.post("/builder/run", {"builder": joined}).status_code == 400
    assert run(admin, {"table": PAGE_VIEWS, "aggregations": [{"function": "count"}]})["rows"] == [[5]]
    bucket = {"table": VISITS, "breakouts": [{"column": "at", "bucket": "day') OR (1"}]}
    assert refused_field(admin, bucket) == "builder.breakouts[0].bucket"


def test_view_as_sql_is_runnable_and_gives_the_builders_answer(admin, more_tables):
    definition = {"table": PAGE_VIEWS, "filters": [{"column": "region", "operator": "=", "value": "EU"},
                                                   {"column": "country", "operator": "in", "value": ["FR", "DE"]}],
                  "breakouts": ["country"], "aggregations": [{"function": "avg", "column": "revenue"}],
                  "order_by": [{"alias": "avg_revenue", "direction": "desc"}], "limit": 5}
    compiled = ok(admin.post("/builder/sql", {"builder": definition}))
    assert "'EU'" in compiled["sql"] and "{{" not in compiled["sql"]
    assert compiled["variable_types"] == {"f0": "text", "f1": "list"}
    assert compiled["variables"] == {"f0": "EU", "f1": ["FR", "DE"]}
    assert ok(admin.post("/sql", {"sql": compiled["sql"]}))["rows"] == run(admin, definition)["rows"] == [
        ["DE", 20.0], ["FR", 10.5]]


def test_every_refusal_names_the_field(admin, more_tables):
    cases = {
        "builder": [],
        "builder.table.schema": {"table": {"catalog": "warehouse", "table": "page_views"}},
        "builder.filters[0].value": {"table": PAGE_VIEWS, "filters": [{"column": "page", "operator": "in", "value": []}]},
        "builder.filters[1].value": {"table": PAGE_VIEWS, "filters": [
            {"column": "page", "operator": "is empty"}, {"column": "page", "operator": "between", "value": [1]}]},
        "builder.filters[0].operator": {"table": PAGE_VIEWS, "filters": [{"column": "page", "operator": "like"}]},
        "builder.filters[0].from": {"table": PAGE_VIEWS, "filters": [
            {"column": "page", "from": "join", "operator": "is null"}]},
        "builder.join.kind": {"table": PAGE_VIEWS, "join": {"table": PAGES, "kind": "cross", "on": []}},
        "builder.join.on": {"table": PAGE_VIEWS, "join": {"table": PAGES, "on": []}},
        "builder.join.table.table": {"table": PAGE_VIEWS, "join": {"table": {**PAGES, "table": ""},
                                                                   "on": [{"left": "a", "right": "b"}]}},
        "builder.aggregations[0].function": {"table": PAGE_VIEWS, "aggregations": [{"function": "median"}]},
        "builder.order_by[0].alias": {"table": PAGE_VIEWS, "order_by": [{"alias": "nope"}]},
        "builder.limit": {"table": PAGE_VIEWS, "limit": 0},
    }
    for field, definition in cases.items():
        assert refused_field(admin, definition) == field
    relative = {"table": VISITS, "filters": [{"column": "at", "operator": "relative", "value": {"last": 0, "unit": "day"}}]}
    assert refused_field(admin, relative) == "builder.filters[0].value"
    relative["filters"][0]["value"] = {"current": "decade"}
    assert refused_field(admin, relative) == "builder.filters[0].value"


def test_builder_run_is_recorded_with_its_origin_and_respects_row_limit(admin, more_tables):
    result = ok(admin.post("/builder/run", {"builder": {"table": PAGE_VIEWS}, "row_limit": 2}))
    assert result["row_count"] == 2 and result["truncated"] is True
    assert set(result) >= {"columns", "rows", "row_count", "truncated", "elapsed_ms"}
    latest = ok(admin.get("/history?limit=1"))
    entry = latest["queries"][0]
    assert entry["origin"] == "api" and entry["row_count"] == 2
