"""Dashboards as a product: heading cards, required and typed filters, relative dates, the
question's chart and fields with each card, and refusals that name the filter."""
from __future__ import annotations

import datetime

from tests.workbench_api.conftest import ok
from workbench_app.content.dashboard_filters import resolve_date


def _question(admin, name, sql, variables):
    return ok(admin.post("/questions", {"name": name, "sql": sql, "variables": variables,
                                        "visualization": {"kind": "bar", "x": "page", "y": ["n"]}}), 201)


def test_cards_carry_their_question_s_chart_and_fields_and_headings_are_cards(admin):
    question = _question(admin, "Views by page", "SELECT page, count(*) AS n FROM page_views "
                         "WHERE true [[AND country = {{country}}]] GROUP BY 1 ORDER BY 1", {"country": "text"})
    dashboard = ok(admin.post("/dashboards", {"name": "Pages", "cards": [
        {"key": "title", "kind": "heading", "text": "Traffic", "width": 12, "height": 1},
        {"key": "views", "question_id": question["question_id"], "row": 1}]}), 201)
    heading, card = dashboard["cards"]
    assert heading["kind"] == "heading" and heading["text"] == "Traffic"
    assert card["visualization"] == {"kind": "bar", "x": "page", "y": ["n"]}
    assert card["variables"] == {"country": "text"}
    refused = admin.put(f"/dashboards/{dashboard['dashboard_id']}", {"cards": [{"kind": "heading", "text": " "}]})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "cards"


def test_filters_are_typed_required_or_not_and_refusals_name_the_filter(admin):
    question = _question(admin, "Views", "SELECT count(*) AS n FROM page_views WHERE view_id >= {{since}} "
                         "[[AND country = {{country}}]]", {"since": "number", "country": "text"})
    dashboard = ok(admin.post("/dashboards", {
        "name": "Typed", "cards": [{"key": "v", "question_id": question["question_id"]}],
        "filters": [{"name": "From view", "type": "number", "required": True,
                     "links": [{"card": "v", "variable": "since"}]},
                    {"name": "Country", "type": "text", "links": [{"card": "v", "variable": "country"}]}]}), 201)
    number, country = dashboard["filters"]
    assert number["required"] is True and country["required"] is False
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    missing = admin.post(run, {})
    assert missing.status_code == 400
    assert missing.get_json()["error"] == {"code": "invalid_input", "message": "The filter From view needs a value.",
                                           "details": {"field": "filters.From view"}}
    wrong = admin.post(run, {"filters": {str(number["filter_id"]): "three"}})
    assert wrong.status_code == 400 and wrong.get_json()["error"]["details"]["field"] == "filters.From view"
    assert ok(admin.post(run, {"filters": {str(number["filter_id"]): "3"}}))["rows"] == [[3]]
    assert ok(admin.post(run, {"filters": {"From view": 2, "Country": "US"}}))["rows"] == [[2]]
    # A default of the wrong type is refused when saved, and nothing of the change is kept.
    refused = admin.put(f"/dashboards/{dashboard['dashboard_id']}", {
        "filters": [{"name": "From view", "type": "number", "default": "soon"}]})
    assert refused.status_code == 400
    assert len(ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}"))["filters"]) == 2


def test_a_french_person_reads_the_filter_refusal_in_french(admin):
    question = _question(admin, "Since", "SELECT count(*) AS n FROM page_views WHERE view_id >= {{since}}",
                         {"since": "number"})
    dashboard = ok(admin.post("/dashboards", {
        "name": "Fr", "cards": [{"key": "v", "question_id": question["question_id"]}],
        "filters": [{"name": "Depuis", "type": "number", "links": [{"card": "v", "variable": "since"}]}]}), 201)
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    ok(admin.patch("/me", {"locale": "fr"}))
    answer = admin.post(run, {"filters": {"Depuis": "x"}})
    assert answer.get_json()["error"]["message"] == "Le filtre Depuis attend un nombre."


def test_relative_dates_resolve_on_the_server():
    today = datetime.date(2026, 3, 15)
    assert resolve_date("today", today) == "2026-03-15"
    assert resolve_date("yesterday", today) == "2026-03-14"
    assert resolve_date("-30d", today) == "2026-02-13"
    assert resolve_date("month-start", today) == "2026-03-01"
    assert resolve_date("year-start", today) == "2026-01-01"
    assert resolve_date("2026-02-01", today) == "2026-02-01"
    assert resolve_date("20260201", today) is None and resolve_date("next week", today) is None


def test_a_date_filter_feeds_a_date_variable_with_a_relative_default(admin, warehouse):
    question = _question(admin, "Before", "SELECT CAST({{day}} AS DATE) <= current_date AS past", {"day": "date"})
    dashboard = ok(admin.post("/dashboards", {
        "name": "Dates", "cards": [{"key": "v", "question_id": question["question_id"]}],
        "filters": [{"name": "Day", "type": "date", "default": "-7d", "links": [{"card": "v", "variable": "day"}]}]}), 201)
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    assert ok(admin.post(run, {}))["rows"] == [[True]]
    refused = admin.post(run, {"filters": {"Day": "someday"}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "filters.Day"
