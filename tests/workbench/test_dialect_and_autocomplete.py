"""Formatting in the one dialect, and autocomplete limited to what the user may see."""

from __future__ import annotations

import pytest

from workbench_app.engine import EngineError, format_sql


def test_format_sql_pretty_prints_duckdb_sql():
    formatted = format_sql("select a,count(*) from events where x>1 group by all")
    assert formatted.splitlines()[0] == "SELECT"
    assert "GROUP BY ALL" in formatted


def test_format_sql_keeps_variables_and_optional_clauses():
    formatted = format_sql("select * from events where revenue > {{min}} [[and page = {{page}}]]")
    assert "{{min}}" in formatted and "{{page}}" in formatted
    assert "[[" in formatted and "]]" in formatted


def test_format_sql_reports_syntax_errors():
    with pytest.raises(EngineError) as refused:
        format_sql("select from from")
    assert refused.value.code == "syntax_error"


def labels(completions, kind=None):
    return {c.label for c in completions if kind is None or c.kind == kind}


def test_tables_after_from_are_only_visible_ones(engine, analyst, admin):
    sql = "SELECT * FROM "
    suggested = labels(engine.complete(sql, len(sql), analyst), "table")
    assert {"events", "PageViews"} <= suggested
    assert "salaries" not in suggested
    assert "salaries" in labels(engine.complete(sql, len(sql), admin), "table")
    assert "crm" in labels(engine.complete(sql, len(sql), analyst), "catalog")


def test_prefix_filters_suggestions(engine, analyst):
    sql = "SELECT * FROM ev"
    assert labels(engine.complete(sql, len(sql), analyst)) == {"events"}
    sql = "SELECT * FROM sal"
    assert labels(engine.complete(sql, len(sql), analyst)) == set()


def test_catalog_qualified_tables(engine, analyst):
    sql = "SELECT * FROM crm."
    suggested = labels(engine.complete(sql, len(sql), analyst))
    assert "customers" in suggested and "api_keys" not in suggested


def test_columns_of_an_alias_exclude_hidden_ones(engine, analyst):
    sql = "SELECT e. FROM events e"
    cursor = len("SELECT e.")
    columns = labels(engine.complete(sql, cursor, analyst), "column")
    assert {"id", "page", "visitor_hash"} <= columns
    assert "email" not in columns
    masked = [c for c in engine.complete(sql, cursor, analyst) if c.label == "visitor_hash"]
    assert "masked" in masked[0].detail


def test_columns_and_functions_in_select_list(engine, analyst):
    sql = "SELECT da FROM crm.customers"
    suggested = engine.complete(sql, len("SELECT da"), analyst)
    assert "date_trunc" in labels(suggested, "function")
    sql = "SELECT  FROM crm.customers"
    suggested = engine.complete(sql, len("SELECT "), analyst)
    assert {"name", "email"} <= labels(suggested, "column")
    assert "card" not in labels(suggested)
    assert "read_csv" not in labels(suggested) and "current_setting" not in labels(suggested)


def test_cte_names_are_suggested_as_relations(engine, analyst):
    sql = "WITH recent AS (SELECT 1) SELECT * FROM re"
    assert "recent" in labels(engine.complete(sql, len(sql), analyst), "cte")
