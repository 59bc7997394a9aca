"""The rewrite's statement cache: never shared between people or rules, and a rule applies at once.

The cache keeps whole rewritten statements (see ``workbench_app/engine/rewrite.py``).
These tests run the same statement for people and rules that differ in one
thing each and check that each gets their own rewrite, from the first run on.
"""

from __future__ import annotations

import pytest

from tests.workbench.conftest import ANALYSTS_EU
from workbench_app.engine import (
    ColumnInfo,
    ColumnMask,
    EngineError,
    GroupPermissions,
    RewriteOptions,
    SchemaCatalog,
    TableInfo,
    TableName,
    TableRule,
    UserContext,
    rewrite_statement,
)
from workbench_app.engine import rewrite as rewrite_module

SQL = "SELECT * FROM events ORDER BY id"


@pytest.fixture(autouse=True)
def empty_caches():
    rewrite_module.clear_caches()
    yield
    rewrite_module.clear_caches()


def group(**rule) -> GroupPermissions:
    return GroupPermissions("g", table_rules=(TableRule("warehouse", "analytics", "events", **rule),))


def ids(engine, user, sql=SQL):
    return [row[0] for row in engine.run(sql, user).rows]


def test_the_same_inputs_are_rewritten_once(engine, analyst, monkeypatch):
    first = engine.rewrite(SQL, analyst)
    monkeypatch.setattr(rewrite_module, "_rewrite", lambda *args: pytest.fail("rewritten again"))
    again = engine.rewrite(SQL, analyst)
    assert (again.sql, again.parameters, again.tables) == (first.sql, first.parameters, first.tables)
    # The caller gets a dict of its own: changing it cannot change the cached entry.
    again.parameters["extra"] = 1
    assert "extra" not in engine.rewrite(SQL, analyst).parameters


def test_two_people_with_different_rules_never_share_an_entry(engine):
    eu = UserContext("eu", (group(row_filter="region = 'EU'"),), {})
    us = UserContext("us", (group(row_filter="region = 'US'", hidden_columns=frozenset({"email"})),), {})
    for _ in range(2):  # first run and from the cache
        assert ids(engine, eu) == [1, 2, 5]
        assert ids(engine, us) == [3, 4]
        assert "email" in engine.run(SQL, eu).columns
        assert "email" not in engine.run(SQL, us).columns


def test_two_people_with_the_same_rules_get_entries_of_their_own(engine):
    rules = (group(row_filter="region = 'EU'"),)
    assert engine.rewrite(SQL, UserContext("ann", rules, {})).sql == engine.rewrite(SQL, UserContext("bob", rules, {})).sql
    assert len(rewrite_module._STATEMENT_CACHE) == 2


def test_a_different_attribute_value_or_type_is_another_entry(engine):
    assert ids(engine, UserContext("x", (ANALYSTS_EU,), {"region": "EU"})) == [1, 2, 5]
    assert ids(engine, UserContext("x", (ANALYSTS_EU,), {"region": "US"})) == [3, 4]
    # A missing attribute closes the group's access: not the entry of a present one.
    with pytest.raises(Exception) as refused:
        engine.run(SQL, UserContext("x", (ANALYSTS_EU,), {}))
    assert getattr(refused.value, "code", None) == "table_not_found"
    keys = [rewrite_module._values_key({"a": value}) for value in ("1", 1, 1.0, True, ["1"], ("1",))]
    assert rewrite_module._values_key({1: "EU"}) != rewrite_module._values_key({"1": "EU"})
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize(
    "before, after, expected_after",
    [
        ({"row_filter": "region = 'EU'"}, {"row_filter": "region = 'US'"}, {"ids": [3, 4]}),
        ({}, {"hidden_columns": frozenset({"email"})}, {"no_column": "email"}),
        ({}, {"masked_columns": {"email": ColumnMask("null")}}, {"email_null": True}),
        ({}, {"access": False}, {"refused": "table_not_found"}),
    ],
)
def test_an_edited_rule_applies_at_once(engine, before, after, expected_after):
    assert ids(engine, UserContext("x", (group(**before),), {}))  # cached under the old rule
    edited = UserContext("x", (group(**after),), {})
    if "refused" in expected_after:
        with pytest.raises(Exception) as refused:
            engine.run(SQL, edited)
        assert getattr(refused.value, "code", None) == expected_after["refused"]
        return
    result = engine.run(SQL, edited)
    if "ids" in expected_after:
        assert [row[0] for row in result.rows] == expected_after["ids"]
    if "no_column" in expected_after:
        assert expected_after["no_column"] not in result.columns
    if "email_null" in expected_after:
        email = result.columns.index("email")
        assert {row[email] for row in result.rows} == {None}


def test_a_group_gained_or_lost_applies_at_once(engine):
    eu_only = UserContext("x", (group(row_filter="region = 'EU'"),), {})
    assert ids(engine, eu_only) == [1, 2, 5]
    more = UserContext("x", (group(row_filter="region = 'EU'"), GroupPermissions("all", frozenset({"warehouse"}))), {})
    assert ids(engine, more) == [1, 2, 3, 4, 5]
    assert ids(engine, eu_only) == [1, 2, 5]


def test_a_changed_catalog_or_setting_is_another_entry():
    def catalog(*columns):
        return SchemaCatalog.from_tables(
            [TableInfo(TableName("w", "main", "t"), tuple(ColumnInfo(c, "VARCHAR") for c in columns))]
        )

    user = UserContext("x", (GroupPermissions("g", table_rules=(TableRule("w", "main", "t", masked_columns={"b": ColumnMask("hash")}),)),), {})
    options = RewriteOptions(default_catalog="w", default_schema="main", mask_salt="one")
    first = rewrite_statement("SELECT * FROM t", user, catalog("a", "b"), options)
    assert '"c"' in rewrite_statement("SELECT * FROM t", user, catalog("a", "b", "c"), options).sql
    assert '"c"' not in first.sql
    salted = rewrite_statement("SELECT * FROM t", user, catalog("a", "b"), RewriteOptions("w", "main", "two"))
    assert "two" in salted.parameters.values() and "one" in first.parameters.values()
    # An equal snapshot built again (a refreshed schema) shares the entry.
    assert rewrite_statement("SELECT * FROM t", user, catalog("a", "b"), options).sql == first.sql
    assert len(rewrite_module._STATEMENT_CACHE) == 3


def test_a_catalog_snapshot_cannot_change_under_the_cache():
    snapshot = SchemaCatalog.from_tables([TableInfo(TableName("w", "main", "t"), (ColumnInfo("a", "VARCHAR"),))])
    with pytest.raises(TypeError):
        snapshot.tables[("w", "main", "u")] = snapshot.tables[("w", "main", "t")]  # type: ignore[index]
    with pytest.raises(TypeError):
        snapshot.default_schemas["x"] = "y"  # type: ignore[index]


def test_a_refused_statement_is_not_cached(engine, analyst):
    with pytest.raises(Exception):
        engine.rewrite("SELECT * FROM salaries", analyst)
    assert not rewrite_module._STATEMENT_CACHE


def test_a_statement_with_variables_is_served_again_only_with_the_same_values(engine, analyst, monkeypatch):
    sql = "SELECT id FROM events WHERE page = {{page}} ORDER BY id"
    types = {"page": "text"}
    assert [row[0] for row in engine.run(sql, analyst, {"page": "/home"}, types).rows] == [1, 5]
    assert [row[0] for row in engine.run(sql, analyst, {"page": "/pricing"}, types).rows] == [2]
    assert len(rewrite_module._STATEMENT_CACHE) == 2
    monkeypatch.setattr(rewrite_module, "_rewrite", lambda *args: pytest.fail("rewritten again"))
    assert [row[0] for row in engine.run(sql, analyst, {"page": "/home"}, types).rows] == [1, 5]


def test_the_cache_holds_a_bounded_number_of_characters(engine, analyst, monkeypatch):
    monkeypatch.setattr(rewrite_module, "_STATEMENT_CACHE_MAX_CHARS", 1000)
    for n in range(10):
        engine.rewrite(f"SELECT id + {n} FROM events", analyst)
        held = sum(len(key[0]) + len(entry.sql) for key, entry in rewrite_module._STATEMENT_CACHE.items())
        assert held == rewrite_module._statement_cache_chars <= 1000
    assert 0 < len(rewrite_module._STATEMENT_CACHE) < 10


def test_an_attribute_nested_too_deeply_is_a_refusal_not_a_crash(engine):
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(EngineError) as refused:
        engine.rewrite(SQL, UserContext("x", (ANALYSTS_EU,), {"region": "EU", "deep": deep}))
    assert refused.value.code == "statement_not_allowed"
    assert not rewrite_module._STATEMENT_CACHE
