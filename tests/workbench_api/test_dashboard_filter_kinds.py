"""Linked filters complete: date ranges (relative or from/to), one-of lists whose values come from a
column read under the viewer's rights, links to a column of a card's result (a condition bound by
the server, never spliced text), and refusals of values of the wrong type that name the filter."""
from __future__ import annotations

import datetime

from tests.workbench_api.conftest import Api, create_user_with_token, ok
from workbench_app.content.dashboard_filters import resolve_range

# view_id 1..5 fall on 2026-01-02 .. 2026-01-06.
DAYS = "SELECT view_id, DATE '2026-01-01' + view_id AS day, page, country FROM page_views ORDER BY view_id"


def _question(admin, name, sql, variables=None, folder_id=None):
    return ok(admin.post("/questions", {"name": name, "sql": sql, "variables": variables or {},
                                        **({"folder_id": folder_id} if folder_id else {})}), 201)


def _run(api, dashboard, index, filters):
    path = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][index]['card_id']}/run"
    return api.post(path, {"filters": filters})


def test_relative_ranges_resolve_on_the_server():
    today = datetime.date(2026, 3, 15)
    assert resolve_range("last-7-days", today) == ("2026-03-09", "2026-03-15")
    assert resolve_range("last-30-days", today) == ("2026-02-14", "2026-03-15")
    assert resolve_range("last-90-days", today) == ("2025-12-16", "2026-03-15")
    assert resolve_range("this-month", today) == ("2026-03-01", "2026-03-15")
    assert resolve_range("previous-month", today) == ("2026-02-01", "2026-02-28")
    assert resolve_range("2026-01-03..2026-01-04", today) == ("2026-01-03", "2026-01-04")
    assert resolve_range("2026-01-04..2026-01-03", today) is None
    assert resolve_range("last week", today) is None
    # The period of the same length just before (a dashboard's period-against-period comparison).
    assert resolve_range("previous:last-7-days", today) == ("2026-03-02", "2026-03-08")
    assert resolve_range("previous:this-month", today) == ("2026-02-14", "2026-02-28")
    assert resolve_range("previous:2026-01-03..2026-01-04", today) == ("2026-01-01", "2026-01-02")
    assert resolve_range("previous:previous:last-7-days", today) is None
    assert resolve_range("previous:", today) is None


def test_a_date_range_and_a_one_of_list_feed_variables_and_columns_of_two_cards(admin):
    by_variables = _question(admin, "Views between", "SELECT count(*) AS n FROM page_views WHERE "
                             "DATE '2026-01-01' + view_id BETWEEN {{start}} AND {{finish}} "
                             "[[AND list_contains({{countries}}, country)]]",
                             {"start": "date", "finish": "date", "countries": "list"})
    by_columns = _question(admin, "Views by day", DAYS)
    dashboard = ok(admin.post("/dashboards", {
        "name": "Ranges", "cards": [{"key": "a", "question_id": by_variables["question_id"]},
                                    {"key": "b", "question_id": by_columns["question_id"], "row": 4}],
        "filters": [
            {"name": "Period", "type": "date_range", "default": "2026-01-01..2026-01-31", "links": [
                {"card": "a", "variable": "start", "end_variable": "finish"}, {"card": "b", "column": "day"}]},
            {"name": "Country", "type": "one_of", "values": {"table": "warehouse.analytics.page_views",
                                                             "column": "country"},
             "links": [{"card": "a", "variable": "countries"}, {"card": "b", "column": "country"}]}]}), 201)
    period, country = dashboard["filters"]
    assert period["links"][0] == {"card_id": dashboard["cards"][0]["card_id"], "variable": "start",
                                  "end_variable": "finish", "column": None}
    assert country["values"] == {"table": "warehouse.analytics.page_views", "column": "country"}
    assert ok(_run(admin, dashboard, 0, {}))["rows"] == [[5]]
    assert len(ok(_run(admin, dashboard, 1, {}))["rows"]) == 5
    chosen = {"Period": "2026-01-03..2026-01-05", "Country": ["US", "ES"]}
    assert ok(_run(admin, dashboard, 0, chosen))["rows"] == [[2]]
    assert [row[0] for row in ok(_run(admin, dashboard, 1, chosen))["rows"]] == [3, 4]
    # The value is bound, never spliced: a quote in it is just a value that matches nothing.
    assert ok(_run(admin, dashboard, 1, {"Country": ["x') OR true --"]}))["rows"] == []
    assert ok(_run(admin, dashboard, 0, {"Period": "last-7-days"}))["rows"] == [[0]]


def test_a_value_of_the_wrong_type_is_refused_with_the_filter_named(admin):
    question = _question(admin, "Views by day", DAYS)
    dashboard = ok(admin.post("/dashboards", {
        "name": "Wrong", "cards": [{"key": "b", "question_id": question["question_id"]}],
        "filters": [{"name": "Period", "type": "date_range", "links": [{"card": "b", "column": "day"}]},
                    {"name": "Country", "type": "one_of", "links": [{"card": "b", "column": "country"}],
                     "values": {"table": "warehouse.analytics.page_views", "column": "country"}}]}), 201)
    for filters, field in (({"Period": "soon"}, "filters.Period"), ({"Period": 7}, "filters.Period"),
                           ({"Period": "2026-02-01..2026-01-01"}, "filters.Period"),
                           ({"Country": "FR"}, "filters.Country"), ({"Country": [True]}, "filters.Country"),
                           ({"Country": [{"a": 1}]}, "filters.Country")):
        refused = _run(admin, dashboard, 0, filters)
        assert refused.status_code == 400, filters
        assert refused.get_json()["error"]["details"] == {"field": field}
    # Saving: a one-of filter without its column, a link to a variable of the wrong type.
    path = f"/dashboards/{dashboard['dashboard_id']}"
    for item in ({"name": "Country", "type": "one_of"},
                 {"name": "Period", "type": "date_range", "links": [{"card": "b", "variable": "day"}]},
                 {"name": "Period", "type": "kind of"},
                 {"name": "C", "type": "text", "links": [{"card": "b", "column": "c", "variable": "x"}]}):
        refused = admin.put(path, {"cards": [{"key": "b", "question_id": question["question_id"]}], "filters": [item]})
        assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "filters", item
    assert len(ok(admin.get(path))["filters"]) == 2


def test_one_of_values_follow_the_viewer_s_row_filters(admin, eu_analysts):
    folder = ok(admin.post("/folders", {"name": "Shared"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    question = _question(admin, "Views by day", DAYS, folder_id=folder["folder_id"])
    dashboard = ok(admin.post("/dashboards", {
        "name": "Pages", "folder_id": folder["folder_id"],
        "cards": [{"key": "b", "question_id": question["question_id"]}],
        "filters": [{"name": "Page", "type": "one_of", "links": [{"card": "b", "column": "page"}],
                     "values": {"table": "warehouse.analytics.page_views", "column": "page"}},
                    {"name": "Email", "type": "one_of", "links": [],
                     "values": {"table": "warehouse.analytics.page_views", "column": "visitor_email"}}]}), 201)
    page, email = dashboard["filters"]
    values = f"/dashboards/{dashboard['dashboard_id']}/filters/{page['filter_id']}/values"
    _, eu = create_user_with_token(admin, "eu@example.org", {"region": "EU"}, (eu_analysts,))
    _, us = create_user_with_token(admin, "us@example.org", {"region": "US"}, (eu_analysts,))
    eu_api, us_api = Api(admin.client, eu), Api(admin.client, us)
    assert ok(admin.get(values)) == {"values": ["/blog", "/home", "/pricing"], "truncated": False}
    assert ok(eu_api.get(values))["values"] == ["/home", "/pricing"]
    assert ok(us_api.get(values))["values"] == ["/blog", "/home"]
    assert ok(eu_api.get(values + "?search=PRI"))["values"] == ["/pricing"]
    # A column hidden from the viewer offers no values: the engine refuses it, as for any statement.
    hidden = eu_api.get(f"/dashboards/{dashboard['dashboard_id']}/filters/{email['filter_id']}/values")
    assert hidden.status_code == 400
    assert ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}/filters/{email['filter_id']}/values"))["values"][0] \
        == "ann@example.fr"
    # The column link runs under the viewer too: their rows only.
    assert [r[2] for r in ok(_run(us_api, dashboard, 0, {"Page": ["/home", "/pricing"]}))["rows"]] == ["/home"]
    missing = admin.get(f"/dashboards/{dashboard['dashboard_id']}/filters/999999/values")
    assert missing.status_code == 404


def test_the_warm_up_flag_is_saved_and_checked(admin):
    dashboard = ok(admin.post("/dashboards", {"name": "Warm", "warm_up": True}), 201)
    assert dashboard["warm_up"] is True
    path = f"/dashboards/{dashboard['dashboard_id']}"
    assert ok(admin.put(path, {"warm_up": False}))["warm_up"] is False
    refused = admin.put(path, {"warm_up": "yes"})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "warm_up"


def test_a_question_s_columns_are_listed_under_the_viewer_s_rights_without_reading_rows(admin, eu_analysts):
    """The dashboard editor's column picker: a run that keeps no row, as the caller; a column they
    may not see is not listed; a question that needs a value is refused as its run would be."""
    folder = ok(admin.post("/folders", {"name": "Columns"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    wide = _question(admin, "Every column", "SELECT * FROM page_views", folder_id=folder["folder_id"])
    days = _question(admin, "Days", DAYS + ";", folder_id=folder["folder_id"])
    needs = _question(admin, "Needs a page", "SELECT view_id FROM page_views WHERE page = {{page}}",
                      {"page": "text"}, folder_id=folder["folder_id"])
    assert ok(admin.get(f"/questions/{days['question_id']}/columns")) == {"columns": [
        {"name": "view_id", "type": "INTEGER"}, {"name": "day", "type": "DATE"},
        {"name": "page", "type": "VARCHAR"}, {"name": "country", "type": "VARCHAR"}]}
    assert "visitor_email" in [c["name"] for c in ok(admin.get(f"/questions/{wide['question_id']}/columns"))["columns"]]
    _, token = create_user_with_token(admin, "columns@example.org", {"region": "EU"}, (eu_analysts,))
    viewer = Api(admin.client, token)
    seen = [c["name"] for c in ok(viewer.get(f"/questions/{wide['question_id']}/columns"))["columns"]]
    assert "page" in seen and "visitor_email" not in seen
    refused = admin.get(f"/questions/{needs['question_id']}/columns")
    assert refused.status_code == 400 and refused.json["error"]["code"]
    assert admin.get("/questions/999999/columns").status_code == 404
    assert admin.get("/questions/nope/columns").status_code in (400, 404)
