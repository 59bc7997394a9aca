"""Funnels, paths and retention through /api/v1: the known answers on PostgreSQL through the statement
path, refusals, saved as a question and placed on a dashboard, and a person's row filter applied."""
from __future__ import annotations

import pytest

from tests.workbench import analyses_data as data
from tests.workbench_api.conftest import create_user_with_token, ok


@pytest.fixture
def analytics_views(admin, warehouse):
    """analytics.events, pageviews and visits over tables holding the known event set."""
    events, pageviews, visits = data.rows()
    warehouse.execute("""create table modeled.events (event_id bigint, site_id uuid, visit_id text, visitor_key text,
                         occurred_at timestamptz, event_type text, event_name text, path text, props jsonb)""")
    warehouse.execute("""create table modeled.pageviews (event_id bigint, site_id uuid, visit_id text,
                         visitor_key text, occurred_at timestamptz, path text)""")
    warehouse.execute("""create table modeled.visits (visit_id text, site_id uuid, visitor_key text, visitor_kind text,
                         visit_start timestamptz)""")
    with warehouse.cursor() as cur:
        cur.executemany("insert into modeled.events values (%s, %s, %s, %s, %s, %s, %s, %s, %s)", events)
        cur.executemany("insert into modeled.pageviews values (%s, %s, %s, %s, %s, %s)", pageviews)
        cur.executemany("insert into modeled.visits values (%s, %s, %s, %s, %s)", visits)
    for name in ("events", "pageviews", "visits"):
        warehouse.execute(f"create view analytics.{name} as select * from modeled.{name}")
    ok(admin.post("/sources/refresh"))


def run(api, definition, status: int = 200):
    return ok(api.post("/analyses/run", {"analysis": definition}), status)


def rounded(rows):
    return [[round(value, 6) if isinstance(value, float) else value for value in row] for row in rows]


def test_the_three_analyses_answer_the_known_counts(admin, analytics_views):
    funnel = run(admin, data.FUNNEL)
    assert [column["name"] for column in funnel["columns"]] == [
        "step", "label", "visitors", "conversion", "step_conversion", "drop_off", "median_seconds"]
    assert rounded(funnel["rows"]) == rounded([list(row) for row in data.FUNNEL_ROWS])
    path = run(admin, data.PATH)
    assert [tuple(row) for row in path["rows"]] == data.PATH_ROWS
    retention = run(admin, data.RETENTION)
    assert rounded(retention["rows"]) == rounded(
        [[cohort.isoformat(), *rest] for cohort, *rest in data.RETENTION_ROWS])


def test_bad_definitions_are_structured_refusals(admin, analytics_views):
    for body, field in (({}, "analysis"), ({"analysis": []}, "analysis"),
                        ({"analysis": {**data.PATH, "steps_after": 9}}, "analysis.steps_after"),
                        ({"analysis": {**data.PATH, "branches": 500}}, "analysis.branches"),
                        ({"analysis": {**data.FUNNEL, "steps": [{"page": "/a"}] * 11}}, "analysis.steps"),
                        ({"analysis": {**data.RETENTION, "periods": 100}}, "analysis.periods")):
        response = admin.post("/analyses/run", body)
        assert response.status_code == 400, response.get_data(as_text=True)
        error = response.get_json()["error"]
        assert error["code"] == "invalid_input" and error["details"]["field"] == field, error
        assert set(error) == {"code", "message", "details"}
    english = admin.post("/analyses/run", {"analysis": {**data.PATH, "steps_after": 9}}).get_json()["error"]
    ok(admin.patch("/me", {"locale": "fr"}))
    french = admin.post("/analyses/run", {"analysis": {**data.PATH, "steps_after": 9}}).get_json()["error"]
    assert english["message"] == "analysis.steps_after must be at most 5."
    assert french["message"] == "analysis.steps_after doit valoir au plus 5."


def test_the_sql_of_an_analysis_binds_its_values(admin, analytics_views):
    compiled = ok(admin.post("/analyses/sql", {"analysis": data.FUNNEL}))
    assert "{{step0_page}}" in compiled["template"] and compiled["variables"]["step0_page"] == "/pricing%"
    assert "'/pricing%'" in compiled["sql"]


def test_saved_as_a_question_and_run_on_a_dashboard(admin, analytics_views):
    question = ok(admin.post("/questions", {"name": "Entry paths", "kind": "analysis", "analysis": data.ENTRY_PATH,
                                            "visualization": {"chart": "sankey"}}), 201)
    assert question["kind"] == "analysis" and question["analysis"] == data.ENTRY_PATH and question["builder"] is None
    rows = ok(admin.post(f"/questions/{question['question_id']}/run"))["rows"]
    assert [tuple(row) for row in rows] == data.ENTRY_ROWS
    changed = ok(admin.patch(f"/questions/{question['question_id']}", {"analysis": data.RETENTION}))
    assert changed["analysis"]["kind"] == "retention"
    dashboard = ok(admin.post("/dashboards", {"name": "Retention", "cards": [
        {"key": "r", "question_id": question["question_id"]}]}), 201)
    card = dashboard["cards"][0]["card_id"]
    answer = ok(admin.post(f"/dashboards/{dashboard['dashboard_id']}/cards/{card}/run"))
    assert len(answer["rows"]) == len(data.RETENTION_ROWS)
    refused = admin.patch(f"/questions/{question['question_id']}", {"analysis": {**data.RETENTION, "periods": 0}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "analysis.periods"
    as_sql = ok(admin.patch(f"/questions/{question['question_id']}", {"kind": "sql", "sql": "select 1"}))
    assert as_sql["analysis"] is None and as_sql["kind"] == "sql"


def test_a_person_with_a_row_filter_sees_only_their_rows(admin, analytics_views):
    group = ok(admin.post("/groups", {"name": "Site A"}), 201)
    for table, hidden in (("events", ["props"]), ("pageviews", []), ("visits", [])):
        ok(admin.post(f"/groups/{group['group_id']}/rules", {
            "catalog": "warehouse", "schema": "analytics", "table": table,
            "row_filter": "CAST(site_id AS VARCHAR) = {{user.site}}", "hidden_columns": hidden}), 201)
    _, token = create_user_with_token(admin, "site-a@example.org", {"site": data.SITE}, (group["group_id"],))
    every_site = {**data.FUNNEL, "site_id": None,
                  "steps": [{"page": "/pricing*"}, {"event": "signup"}, {"page": "/welcome"}]}
    admin_counts = [row[2] for row in run(admin, every_site)["rows"]]
    mine = admin.__class__(admin.client, token)
    assert [row[2] for row in run(mine, every_site)["rows"]] == [7, 4, 2]
    assert admin_counts == [8, 5, 3]  # f7 of the other site too
    # The hidden column does not exist for them: a condition on a property is refused, not answered.
    response = mine.post("/analyses/run", {"analysis": {**data.FUNNEL, "site_id": None}})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "column_not_found"


def test_a_segment_narrows_an_analysis_to_its_visits(admin, analytics_views, warehouse):
    # The known set's visits table holds the returning visitors' only: f3's visit of 4 January too.
    warehouse.execute("insert into modeled.visits values ('f3-20260104', %s, 'f3', 'cookie', %s)",
                      (data.SITE, data.at(4, 8)))
    free = {"event": {"event": "signup", "properties": [{"key": "plan", "value": "free"}]}}
    segment = ok(admin.post("/segments", {"name": "Free plan", "conditions": free}), 201)
    narrowed = {**data.FUNNEL, "segment_id": segment["segment_id"]}
    # Only f3's visit signed up for the free plan: it reached the pricing page, and no further.
    assert [row[2] for row in run(admin, narrowed)["rows"]] == [1, 0, 0]
    assert [row[2] for row in run(admin, data.FUNNEL)["rows"]] == [row[2] for row in data.FUNNEL_ROWS]
    compiled = ok(admin.post("/analyses/sql", {"analysis": narrowed}))
    assert "'free'" not in compiled["template"] and compiled["variables"]["segment__event_value0"] == "free"
    # A segment the caller may not view is not found, as anywhere else.
    _, token = create_user_with_token(admin, "segment-outsider@example.org")
    assert admin.__class__(admin.client, token).post("/analyses/run", {"analysis": narrowed}).status_code == 404


def test_an_analysis_card_takes_the_dashboard_s_period_and_segment(admin, analytics_views, warehouse):
    warehouse.execute("insert into modeled.visits values ('f3-20260104', %s, 'f3', 'cookie', %s)",
                      (data.SITE, data.at(4, 8)))
    # Saved over another month: the dashboard's period replaces the definition's own range.
    elsewhere = {**data.FUNNEL, "date_range": {"from": "2025-06-01", "to": "2025-06-30"}}
    question = ok(admin.post("/questions", {"name": "Signup funnel", "kind": "analysis", "analysis": elsewhere}), 201)
    assert question["variables"] == {"from": "date", "to": "date", "segment": "segment"}
    free = {"event": {"event": "signup", "properties": [{"key": "plan", "value": "free"}]}}
    segment = ok(admin.post("/segments", {"name": "Free signups", "conditions": free}), 201)
    dashboard = ok(admin.post("/dashboards", {"name": "Funnel", "cards": [
        {"key": "f", "question_id": question["question_id"]}], "filters": [
        {"name": "Period", "type": "date_range", "default": "2026-01-01..2026-01-31",
         "links": [{"card": "f", "variable": "from", "end_variable": "to"}]},
        {"name": "Segment", "type": "segment", "links": [{"card": "f", "variable": "segment"}]}]}), 201)
    run_card = f"/dashboards/{dashboard['dashboard_id']}/cards/{dashboard['cards'][0]['card_id']}/run"
    visitors = lambda filters: [row[2] for row in ok(admin.post(run_card, {"filters": filters}))["rows"]]  # noqa: E731
    assert visitors({}) == [row[2] for row in data.FUNNEL_ROWS]  # the period's default, not June 2025
    assert visitors({"Period": "2025-06-01..2025-06-30"}) == [0, 0, 0]
    assert visitors({"Segment": segment["segment_id"]}) == [1, 0, 0]
    # Run alone, the question keeps its own range; from without to is refused, in the person's language.
    alone = ok(admin.post(f"/questions/{question['question_id']}/run"))["rows"]
    assert [row[2] for row in alone] == [0, 0, 0]
    refused = admin.post(f"/questions/{question['question_id']}/run", {"variables": {"from": "2026-01-01"}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "variables"
    ok(admin.patch("/me", {"locale": "fr"}))
    refused = admin.post(f"/questions/{question['question_id']}/run", {"variables": {"step0_page": "/"}})
    assert refused.get_json()["error"]["message"] == \
        "Une question d'analyse ne prend que les variables from, to et segment."
