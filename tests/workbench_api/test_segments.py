"""Saved segments through /api/v1: stored with their folder's access, refused when malformed, and
compiled to a subquery of visit ids that a SQL question, a builder question and a dashboard's
segment filter use (through the statement path: a person's row filter applies to it too)."""
from __future__ import annotations

import json

import pytest

from tests.workbench_api.conftest import create_user_with_token, ok

SITE = "11111111-1111-1111-1111-111111111111"
OTHER = "22222222-2222-2222-2222-222222222222"
# visit, site, channel, country, device, entry page
VISITS = [("v1", SITE, "Organic Search", "FR", "desktop", "/blog/a"),
          ("v2", SITE, "Organic Search", "DE", "mobile", "/pricing"),
          ("v3", SITE, "Direct", "FR", "mobile", "/blog/b"),
          ("v4", SITE, "Paid Search", "FR", "desktop", "/"),
          ("v5", OTHER, "Organic Search", "FR", "desktop", "/blog/c")]
CONVERSIONS = [("v1", SITE, "Signup"), ("v3", SITE, "Signup"), ("v4", SITE, "Newsletter"), ("v5", OTHER, "Signup")]
EVENTS = [("v1", SITE, "download", {"file": "guide.pdf"}), ("v2", SITE, "download", {"file": "price.csv"}),
          ("v3", SITE, "download", {"file": "guide.pdf"}), ("v5", OTHER, "download", {"file": "guide.pdf"})]
VISIT_COUNT = ("SELECT count(*) AS visits FROM warehouse.analytics.visits WHERE true "
               "[[AND visit_id IN {{segment}}]]")


@pytest.fixture
def analytics_views(admin, warehouse):
    warehouse.execute("""create table modeled.visits (visit_id text, site_id uuid, channel text, country text,
                         device_class text, entry_path text)""")
    warehouse.execute("create table modeled.conversions (visit_id text, site_id uuid, goal_name text)")
    warehouse.execute("create table modeled.events (visit_id text, site_id uuid, event_name text, props jsonb)")
    with warehouse.cursor() as cur:
        cur.executemany("insert into modeled.visits values (%s, %s, %s, %s, %s, %s)", VISITS)
        cur.executemany("insert into modeled.conversions values (%s, %s, %s)", CONVERSIONS)
        cur.executemany("insert into modeled.events values (%s, %s, %s, %s)",
                        [(v, s, n, json.dumps(p)) for v, s, n, p in EVENTS])
    for name in ("visits", "conversions", "events"):
        warehouse.execute(f"create view analytics.{name} as select * from modeled.{name}")
    ok(admin.post("/sources/refresh"))


def visits_in(api, conditions) -> int:
    segment = ok(api.post("/segments", {"name": "s", "conditions": conditions}), 201)
    question = ok(api.post("/questions", {"name": "q", "sql": VISIT_COUNT, "variables": {"segment": "segment"}}), 201)
    return ok(api.post(f"/questions/{question['question_id']}/run",
                       {"variables": {"segment": segment["segment_id"]}}))["rows"][0][0]


def test_stored_listed_changed_and_deleted_with_an_audit_entry(admin):
    created = ok(admin.post("/segments", {"name": "French organic", "description": "FR from search",
                                          "conditions": {"channels": ["Organic Search"], "countries": ["FR"]}}), 201)
    assert created["conditions"] == {"channels": ["Organic Search"], "countries": ["FR"]}
    assert created["name"] == "French organic" and created["folder_id"]
    number = created["segment_id"]
    assert [s["segment_id"] for s in ok(admin.get("/segments"))["segments"]] == [number]
    changed = ok(admin.patch(f"/segments/{number}", {"conditions": {"goal": "Signup"}, "name": "Signed up"}))
    assert changed["conditions"] == {"goal": "Signup"} and changed["description"] == "FR from search"
    assert ok(admin.get(f"/segments/{number}"))["name"] == "Signed up"
    refused = admin.patch(f"/segments/{number}", {"conditions": None})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "conditions"
    assert admin.delete(f"/segments/{number}").status_code == 204
    assert admin.get(f"/segments/{number}").status_code == 404
    actions = [entry["action"] for entry in ok(admin.get("/audit"))["entries"] if entry["target"] == str(number)]
    assert {"segment.created", "segment.updated", "segment.deleted"} <= set(actions)


def test_bad_segments_are_structured_refusals(admin):
    for body, field in (({"name": "x"}, "conditions"),
                        ({"name": "x", "conditions": {}}, "conditions"),
                        ({"name": "x", "conditions": []}, "conditions"),
                        ({"name": "x", "conditions": {"channels": "Direct"}}, "conditions.channels"),
                        ({"name": "x", "conditions": {"channels": ["x"] * 101}}, "conditions.channels"),
                        ({"name": "x", "conditions": {"colour": ["red"]}}, "conditions.colour"),
                        ({"name": "x", "conditions": {"event": {"event": "a", "properties": [{"key": "k"}]}}},
                         "conditions.event.properties[0].value"),
                        ({"name": "", "conditions": {"goal": "Signup"}}, "name")):
        response = admin.post("/segments", body)
        assert response.status_code == 400, (body, response.get_data(as_text=True))
        error = response.get_json()["error"]
        assert set(error) == {"code", "message", "details"} and error["details"]["field"] == field, (body, error)
    assert admin.get("/segments/0").status_code == 404
    assert admin.get("/segments/x").status_code in (400, 404)


def test_the_lists_rules_are_the_api_s_not_only_the_editor_s(admin):
    """The editor's chips stop at 100 values of at most 200 characters, none empty; a client that does
    not use it meets the same rules, on creation and on change."""
    hundred = [f"Channel {n}" for n in range(100)]
    segment = ok(admin.post("/segments", {"name": "Many", "conditions": {"channels": hundred}}), 201)
    assert segment["conditions"]["channels"] == hundred
    for conditions in ({"channels": [*hundred, "one more"]}, {"countries": [""]}, {"devices": ["d" * 201]}):
        response = admin.patch(f"/segments/{segment['segment_id']}", {"conditions": conditions})
        assert response.status_code == 400, (conditions, response.get_data(as_text=True))
        assert response.get_json()["error"]["details"]["field"].startswith(f"conditions.{next(iter(conditions))}")
    assert ok(admin.get(f"/segments/{segment['segment_id']}"))["conditions"]["channels"] == hundred
    # A value given twice is kept once, in its first place, as the editor keeps it.
    changed = ok(admin.patch(f"/segments/{segment['segment_id']}", {"conditions": {"countries": ["FR", "DE", "FR"]}}))
    assert changed["conditions"]["countries"] == ["FR", "DE"]


def test_a_personal_segment_is_not_seen_by_another_person(admin, analytics_views):
    segment = ok(admin.post("/segments", {"name": "mine", "conditions": {"countries": ["FR"]}}), 201)
    _, token = create_user_with_token(admin, "other@example.org")
    other = admin.__class__(admin.client, token)
    assert other.get(f"/segments/{segment['segment_id']}").status_code == 404
    assert ok(other.get("/segments"))["segments"] == []
    # Nor can it be used by them through a question.
    question = ok(other.post("/questions", {"name": "q", "sql": VISIT_COUNT, "variables": {"segment": "segment"}}), 201)
    response = other.post(f"/questions/{question['question_id']}/run", {"variables": {"segment": segment["segment_id"]}})
    assert response.status_code == 404 and response.get_json()["error"]["code"] == "not_found"


def test_each_condition_keeps_the_known_visits(admin, analytics_views):
    assert visits_in(admin, {"channels": ["Organic Search"]}) == 3
    assert visits_in(admin, {"channels": ["Organic Search"], "countries": ["FR"]}) == 2
    assert visits_in(admin, {"devices": ["mobile"]}) == 2
    assert visits_in(admin, {"landing_page": "/blog/*"}) == 3
    assert visits_in(admin, {"landing_page": "/"}) == 1
    assert visits_in(admin, {"goal": "Signup"}) == 3
    assert visits_in(admin, {"event": {"event": "download", "properties": [{"key": "file", "value": "guide.pdf"}]}}) == 3
    assert visits_in(admin, {"goal": "Signup", "devices": ["mobile"]}) == 1
    # A value that looks like SQL is a value.
    assert visits_in(admin, {"countries": ["FR') OR ('1'='1"]}) == 0


def test_no_segment_means_every_visit_and_the_values_are_bound(admin, analytics_views):
    question = ok(admin.post("/questions", {"name": "q", "sql": VISIT_COUNT, "variables": {"segment": "segment"}}), 201)
    assert ok(admin.post(f"/questions/{question['question_id']}/run"))["rows"] == [[5]]
    refused = admin.post(f"/questions/{question['question_id']}/run", {"variables": {"segment": "first"}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "variables.segment"
    segment = ok(admin.post("/segments", {"name": "s", "conditions": {"countries": ["DE"]}}), 201)
    compiled = ok(admin.post("/builder/sql", {"builder": {
        "table": {"catalog": "warehouse", "schema": "analytics", "table": "visits"},
        "aggregations": [{"function": "count"}], "segment": segment["segment_id"]}}))
    assert "'DE'" not in compiled["template"] and compiled["variables"]["segment__countries"] == ["DE"]


def test_a_builder_question_and_a_dashboard_filter_use_a_segment(admin, analytics_views):
    segment = ok(admin.post("/segments", {"name": "Signed up", "conditions": {"goal": "Signup"}}), 201)
    definition = {"table": {"catalog": "warehouse", "schema": "analytics", "table": "visits"},
                  "aggregations": [{"function": "count"}], "segment": segment["segment_id"]}
    assert ok(admin.post("/builder/run", {"builder": definition}))["rows"] == [[3]]
    built = ok(admin.post("/questions", {"name": "b", "builder": definition}), 201)
    assert ok(admin.post(f"/questions/{built['question_id']}/run"))["rows"] == [[3]]
    bad = admin.post("/builder/run", {"builder": {**definition, "segment": "one"}})
    assert bad.status_code == 400 and bad.get_json()["error"]["details"]["field"] == "builder.segment"

    question = ok(admin.post("/questions", {"name": "q", "sql": VISIT_COUNT, "variables": {"segment": "segment"}}), 201)
    dashboard = ok(admin.post("/dashboards", {
        "name": "Segmented", "cards": [{"key": "c", "question_id": question["question_id"]}],
        "filters": [{"name": "Segment", "type": "segment", "links": [{"card": "c", "variable": "segment"}]}]}), 201)
    card = dashboard["cards"][0]["card_id"]
    run = f"/dashboards/{dashboard['dashboard_id']}/cards/{card}/run"
    assert ok(admin.post(run))["rows"] == [[5]]
    assert ok(admin.post(run, {"filters": {"Segment": segment["segment_id"]}}))["rows"] == [[3]]
    # A changed segment is a changed statement: the cache does not answer the old count.
    ok(admin.patch(f"/segments/{segment['segment_id']}", {"conditions": {"goal": "Newsletter"}}))
    assert ok(admin.post(run, {"filters": {"Segment": segment["segment_id"]}}))["rows"] == [[1]]
    wrong = admin.post(run, {"filters": {"Segment": "all"}})
    assert wrong.status_code == 400 and wrong.get_json()["error"]["details"]["field"] == "filters.Segment"
    column_link = admin.post("/dashboards", {
        "name": "x", "cards": [{"key": "c", "question_id": question["question_id"]}],
        "filters": [{"name": "Segment", "type": "segment", "links": [{"card": "c", "column": "visits"}]}]})
    assert column_link.status_code == 400


def test_a_row_filter_applies_inside_the_segment(admin, analytics_views):
    group = ok(admin.post("/groups", {"name": "Other site"}), 201)
    for table in ("visits", "conversions", "events"):
        ok(admin.post(f"/groups/{group['group_id']}/rules", {
            "catalog": "warehouse", "schema": "analytics", "table": table,
            "row_filter": "CAST(site_id AS VARCHAR) = {{user.site}}"}), 201)
    _, token = create_user_with_token(admin, "other-site@example.org", {"site": OTHER}, (group["group_id"],))
    person = admin.__class__(admin.client, token)
    assert visits_in(admin, {"goal": "Signup"}) == 3
    assert visits_in(person, {"goal": "Signup"}) == 1
