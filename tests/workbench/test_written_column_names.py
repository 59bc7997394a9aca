"""A result column without an alias is named by the text the person wrote, not by the rewrite's."""

from __future__ import annotations

import pytest

from workbench_app.engine.written_names import written_select_items


def names(engine, user, sql):
    return list(engine.run(sql, user).columns)


@pytest.mark.parametrize("sql, expected", [
    ("SELECT struct_pack(a := 1)", ["struct_pack(a := 1)"]),
    ("SELECT list_transform([1,2], x -> x + 1)", ["list_transform([1,2], x -> x + 1)"]),
    ("select [1, 2] as pair, upper('a'),\n    1 + 2", ["pair", "upper('a')", "1 + 2"]),
    ("SELECT DISTINCT lower('A') UNION ALL SELECT 'b'", ["lower('A')"]),
    ("WITH t AS (SELECT 1 AS x) SELECT x * 2 FROM t", ["x * 2"]),
])
def test_columns_take_the_written_text(engine, admin, sql, expected):
    assert names(engine, admin, sql) == expected


def test_columns_of_tables_keep_their_names_under_a_row_filter(engine, analyst):
    # The analyst's events are a rewritten projection: plain columns and stars keep their names.
    assert names(engine, analyst, "SELECT region, count(*) FROM warehouse.analytics.events GROUP BY region") == [
        "region", "count(*)"]
    assert "email" not in names(engine, analyst, "SELECT * FROM warehouse.analytics.events")


def test_an_unusual_list_keeps_duckdbs_names():
    assert written_select_items("SELECT (1), [2, 3] FROM t WHERE a, b") == ["(1)", "[2, 3]"]
    assert written_select_items("FROM t") is None
    assert written_select_items("SELECT DISTINCT ON (a, b) a + 1, b FROM t") == ["a + 1", "b"]
