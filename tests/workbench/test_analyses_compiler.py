"""The funnel, path and retention compiler against DuckDB, on an event set whose answers are known
by construction (tests/workbench/analyses_data.py), and its refusals."""
from __future__ import annotations

import copy

import duckdb
import pytest

from tests.workbench import analyses_data as data
from workbench_app.analyses.compiler import compile_analysis, like_pattern
from workbench_app.engine import inline_values
from workbench_app.errors import WorkbenchError


@pytest.fixture(scope="module")
def warehouse():
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    connection.execute("ATTACH ':memory:' AS warehouse")
    connection.execute("CREATE SCHEMA warehouse.analytics")
    connection.execute("""CREATE TABLE warehouse.analytics.events (event_id BIGINT, site_id UUID, visit_id VARCHAR,
        visitor_key VARCHAR, occurred_at TIMESTAMPTZ, event_type VARCHAR, event_name VARCHAR, path VARCHAR, props JSON)""")
    connection.execute("""CREATE TABLE warehouse.analytics.pageviews (event_id BIGINT, site_id UUID, visit_id VARCHAR,
        visitor_key VARCHAR, occurred_at TIMESTAMPTZ, path VARCHAR)""")
    connection.execute("""CREATE TABLE warehouse.analytics.visits (visit_id VARCHAR, site_id UUID, visitor_key VARCHAR,
        visitor_kind VARCHAR, visit_start TIMESTAMPTZ)""")
    events, pageviews, visits = data.rows()
    connection.executemany("INSERT INTO warehouse.analytics.events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", events)
    connection.executemany("INSERT INTO warehouse.analytics.pageviews VALUES (?, ?, ?, ?, ?, ?)", pageviews)
    connection.executemany("INSERT INTO warehouse.analytics.visits VALUES (?, ?, ?, ?, ?)", visits)
    yield connection
    connection.close()


def answer(connection, definition) -> list[tuple]:
    sql, types, values = compile_analysis(definition)
    return connection.execute(inline_values(sql, types, values)).fetchall()


def close(rows: list[tuple], expected: list[tuple]) -> None:
    assert len(rows) == len(expected), rows
    for row, wanted in zip(rows, expected):
        assert len(row) == len(wanted)
        for value, want in zip(row, wanted):
            if isinstance(want, float):
                assert value == pytest.approx(want), (row, wanted)
            else:
                assert value == want, (row, wanted)


def test_funnel_counts_conversion_drop_off_and_median_times(warehouse):
    close(answer(warehouse, data.FUNNEL), data.FUNNEL_ROWS)


def test_funnel_window_and_literal_characters(warehouse):
    longer = copy.deepcopy(data.FUNNEL)
    longer["window"] = {"amount": 3, "unit": "day"}  # f5's signup two days later now counts
    assert [row[2] for row in answer(warehouse, longer)] == [7, 4, 2]
    exact = {**data.FUNNEL, "steps": [{"page": "/pric_ing*"}, {"page": "/welcome"}]}
    assert [row[2] for row in answer(warehouse, exact)] == [1, 0]
    every_site = {**data.FUNNEL, "site_id": None}
    assert [row[2] for row in answer(warehouse, every_site)] == [8, 4, 3]


def test_paths_around_a_page_group_the_rest_as_other(warehouse):
    close(answer(warehouse, data.PATH), data.PATH_ROWS)


def test_paths_from_the_entry_pages(warehouse):
    close(answer(warehouse, data.ENTRY_PATH), data.ENTRY_ROWS)


def test_weekly_retention_of_first_visits_counts_cookie_visitors_only(warehouse):
    close(answer(warehouse, data.RETENTION), data.RETENTION_ROWS)


def test_retention_of_an_event_cohort(warehouse):
    close(answer(warehouse, data.EVENT_RETENTION), data.EVENT_RETENTION_ROWS)


def test_monthly_retention(warehouse):
    monthly = {**data.RETENTION, "period": "month", "periods": 1,
               "date_range": {"from": "2026-01-01", "to": "2026-01-31"}}
    # January's cohort: r1, r2, r3, r6, r7, r8 (r5 started in December, r4 is cookieless); back in
    # February: r8 (day 51).
    close(answer(warehouse, monthly), [(data.dt.date(2026, 1, 1), 6, 0, 6, 1.0),
                                       (data.dt.date(2026, 1, 1), 6, 1, 1, 1 / 6)])


def test_values_are_bound_never_written_into_the_statement():
    hostile = {**data.FUNNEL, "steps": [{"page": "/x' OR 1=1 --"}, {"event": "a'); DROP TABLE t; --",
                                                                     "properties": [{"key": "k'", "value": "v'"}]}]}
    sql, types, values = compile_analysis(hostile)
    assert "OR 1=1" not in sql and "DROP" not in sql and "k'" not in sql
    assert values["step0_page"] == "/x' OR 1=1 --" and types["step1_event_key0"] == "text"
    assert like_pattern("/a_b%c\\*") == "/a\\_b\\%c\\\\%"


def refusal(definition) -> dict:
    with pytest.raises(WorkbenchError) as caught:
        compile_analysis(definition)
    assert caught.value.status == 400 and caught.value.code == "invalid_input"
    return caught.value.details


@pytest.mark.parametrize("change, field", [
    ({"kind": "sankey"}, "analysis.kind"),
    ({"steps": [{"page": "/a"}]}, "analysis.steps"),
    ({"steps": [{"page": "/a"}] * 11}, "analysis.steps"),
    ({"steps": [{"page": "/a", "event": "b"}, {"page": "/c"}]}, "analysis.steps[0]"),
    ({"steps": [{"page": "/a", "properties": [{"key": "k", "value": "v"}]}, {"page": "/c"}]}, "analysis.steps[0]"),
    ({"steps": [{"page": ""}, {"page": "/c"}]}, "analysis.steps[0].page"),
    ({"steps": [{"page": "/a"}, {"event": "b", "properties": [{"key": "k", "value": "v", "operator": "~"}]}]},
     "analysis.steps[1].properties[0].operator"),
    ({"window": {"amount": 91, "unit": "day"}}, "analysis.window"),
    ({"window": {"amount": 0, "unit": "day"}}, "analysis.window.amount"),
    ({"window": {"amount": 1, "unit": "week"}}, "analysis.window.unit"),
    ({"date_range": {"from": "2026-02-01", "to": "2026-01-01"}}, "analysis.date_range"),
    ({"date_range": {"from": "yesterday", "to": "2026-01-01"}}, "analysis.date_range"),
    ({"date_range": {"last": 7}}, "analysis.date_range"),
    ({"site_id": "site one"}, "analysis"),
    ({"limit": 3}, "analysis.limit"),
])
def test_funnel_refusals_name_the_part_at_fault(change, field):
    assert refusal({**data.FUNNEL, **change})["field"] == field


@pytest.mark.parametrize("change, field", [
    ({"steps_after": 6}, "analysis.steps_after"),
    ({"steps_before": -1}, "analysis.steps_before"),
    ({"branches": 21}, "analysis.branches"),
    ({"branches": 0}, "analysis.branches"),
    ({"page": None}, "analysis"),
    ({"start": "entry", "steps_before": 1}, "analysis"),
    ({"steps_before": 0, "steps_after": 0}, "analysis"),
    ({"steps_after": True}, "analysis.steps_after"),
])
def test_path_bounds(change, field):
    assert refusal({**data.PATH, **change})["field"] == field


def test_retention_bounds():
    assert refusal({**data.RETENTION, "periods": 13})["field"] == "analysis.periods"
    assert refusal({**data.RETENTION, "period": "day"})["field"] == "analysis.period"
    assert refusal({**data.RETENTION, "cohort_event": {"event": ""}})["field"] == "analysis.cohort_event.event"
    assert refusal("funnel")["field"] == "analysis"
