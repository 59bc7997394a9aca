"""The second wall: DuckDB's own parser checks the exact final text.

These tests simulate a parser differential (sqlglot emitting text that DuckDB
reads differently) by tampering with the rendered SQL, and check that the
statement is refused before the engine's connection sees it.
"""

from __future__ import annotations

import threading

import duckdb
import pytest

from workbench_app.engine import EngineError, GroupPermissions, TableRule, UserContext
from workbench_app.engine import rewrite as rewrite_module
from workbench_app.engine.duckdb_parse_check import check_final_statement

EVENTS = ("warehouse", "analytics", "events")


def check(sql, tables=None, ctes=(), parameters=()):
    check_final_statement(sql, {EVENTS: 1} if tables is None else tables, ctes, parameters)


def test_expected_text_passes():
    check('SELECT count(*) FROM "warehouse"."analytics"."events" AS e WHERE e.id > 1')
    check('WITH wb_cte_0 AS (SELECT 1) SELECT * FROM wb_cte_0, "warehouse"."analytics"."events"', ctes=["wb_cte_0"])


@pytest.mark.parametrize(
    "sql, code",
    [
        # one more read of the table than the rewrite emitted: it would escape its projection
        ('SELECT * FROM "warehouse"."analytics"."events" UNION ALL SELECT * FROM warehouse.analytics.events', "table_not_found"),
        ('SELECT * FROM "warehouse"."analytics"."salaries"', "table_not_found"),
        ("SELECT * FROM 'file.csv'", "table_not_found"),
        ("SELECT * FROM wb_cte_9", "table_not_found"),
        ("SELECT * FROM read_csv('/etc/passwd')", "function_not_allowed"),
        ("SELECT * FROM query('SELECT 1')", "function_not_allowed"),
        ("SELECT current_setting('threads')", "function_not_allowed"),
        ("SELECT memory.main.sum(1)", "function_not_allowed"),
        ("SELECT * FROM warehouse.main.range(1)", "function_not_allowed"),
        ("SELECT * FROM warehouse.range(1)", "function_not_allowed"),
        ("SELECT $unknown", "variable_error"),
        ("SELECT 1; SELECT 2", "statement_not_allowed"),
        ("ATTACH 'x.db' AS x", "statement_not_allowed"),
        ("SELECT * FROM (SHOW TABLES)", "statement_not_allowed"),
        ("SELECT * FROM (DESCRIBE SELECT 1)", "statement_not_allowed"),
    ],
)
def test_unexpected_text_is_refused(sql, code):
    tables = {EVENTS: 1} if "events" in sql else {}
    with pytest.raises(EngineError) as refused:
        check(sql, tables=tables)
    assert refused.value.code == code


def test_a_parser_differential_is_caught_before_execution(engine, analyst, monkeypatch):
    real_splice = rewrite_module._splice_projections

    def tampered(sql, state):
        # What a differential would look like: text that DuckDB reads as one more
        # read of the restricted table, outside its filtered projection.
        return real_splice(sql, state) + ' UNION ALL SELECT * FROM "warehouse"."analytics"."events"'

    monkeypatch.setattr(rewrite_module, "_splice_projections", tampered)
    # The statement may have been rewritten (and cached) by an earlier test: build it now.
    rewrite_module.clear_caches()
    with pytest.raises(EngineError) as refused:
        engine.rewrite("SELECT * EXCLUDE (visitor_hash) FROM events", analyst)
    assert refused.value.code == "table_not_found"


def test_nested_and_recursive_ctes_still_work(engine, analyst):
    rows = engine.run(
        """WITH RECURSIVE n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n WHERE i < 3),
                e AS (SELECT id FROM events)
           SELECT (SELECT count(*) FROM n) AS three, (SELECT count(*) FROM (SELECT * FROM e) x) AS eu_events""",
        analyst,
    ).rows
    assert rows == [(3, 3)]
    rows = engine.run(
        "SELECT * FROM (WITH inner_cte AS (SELECT page FROM events) SELECT count(*) FROM inner_cte) t", analyst
    ).rows
    assert rows == [(3,)]


def test_checker_refuses_everything_if_it_cannot_read_duckdbs_format(monkeypatch):
    from workbench_app.engine import duckdb_parse_check

    monkeypatch.setattr(duckdb_parse_check, "_self_test_passed", False)
    monkeypatch.setattr(duckdb_parse_check, "_collect", lambda node, facts: None)
    with pytest.raises(EngineError) as refused:
        check("SELECT 1")
    assert refused.value.code == "statement_not_allowed"


@pytest.mark.parametrize("sql", ["SELECT 'a\x00b' FROM events", "SELECT page FROM events -- \x00", "SELECT '\ud800' FROM events"])
def test_text_duckdb_cannot_take_as_it_is_refused_cleanly(engine, analyst, sql):
    # DuckDB's parser stops at a NUL and takes UTF-8 only: such text is refused before it,
    # with an error of ours, never DuckDB's (which would quote the rewritten statement).
    with pytest.raises(EngineError) as refused:
        engine.rewrite(sql, analyst)
    assert refused.value.code == "syntax_error" and "events" not in refused.value.message


@pytest.mark.parametrize("row_filter", ["region = 'EU\x00'", "region = '\ud800'"])
def test_a_rule_expression_duckdb_cannot_take_grants_nothing(engine, row_filter):
    group = GroupPermissions("g", table_rules=(TableRule("warehouse", "analytics", "events", row_filter=row_filter),))
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT count(*) FROM events", UserContext("x", (group,), {}))
    assert refused.value.code == "table_not_found"


def test_an_unforeseen_failure_of_the_check_refuses_without_duckdbs_message(monkeypatch):
    from workbench_app.engine import duckdb_parse_check

    # A connection on which the checker's prepared statement went missing.
    local = threading.local()
    local.prepared = {1}
    connection = duckdb.connect(":memory:")
    monkeypatch.setattr(duckdb_parse_check, "_local", local)
    monkeypatch.setattr(duckdb_parse_check, "_parser_connection", lambda: connection)
    with pytest.raises(EngineError) as refused:
        check('SELECT secret_filter FROM "warehouse"."analytics"."events"')
    assert refused.value.code == "statement_not_allowed" and "secret_filter" not in refused.value.message
