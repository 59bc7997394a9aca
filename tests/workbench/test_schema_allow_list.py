"""A source limited to some schemas: the tables of the others do not exist, for anyone.

The warehouse stand-in has `analytics` (the views) and `main` (`main.sites`, and macros).
"""

from __future__ import annotations

import pytest

from tests.workbench.conftest import EVERYTHING, MASK_SALT
from workbench_app.engine import (
    CatalogSource,
    EngineError,
    EngineSettings,
    GroupPermissions,
    TableRule,
    UserContext,
    WorkbenchEngine,
)


@pytest.fixture(scope="module")
def limited_engine(source_files):
    engine = WorkbenchEngine(
        EngineSettings(default_catalog="warehouse", default_schema="analytics", mask_salt=MASK_SALT),
        [
            # Spelled differently from the source on purpose: schema names match case-insensitively.
            CatalogSource("warehouse", "duckdb", str(source_files["warehouse"]), schemas=("Analytics",)),
            CatalogSource("crm", "sqlite", str(source_files["crm"])),
        ],
    )
    yield engine
    engine.close()


ADMIN = UserContext("admin", (EVERYTHING,), {})
OUTSIDE = ["SELECT * FROM warehouse.main.sites", "SELECT * FROM main.sites", 'SELECT * FROM "WAREHOUSE"."MAIN"."SITES"']


def test_without_a_list_every_schema_is_there(engine):
    # The control: the same file, attached without a list, does have main.sites.
    assert engine.run("SELECT count(*) FROM warehouse.main.sites", ADMIN).rows == [(2,)]


def test_tables_of_other_schemas_are_not_in_the_catalog(limited_engine):
    schemas = {(info.table.catalog, info.table.schema) for info in limited_engine.schema}
    assert schemas == {("warehouse", "analytics"), ("crm", "main")}
    listed = {str(info.table) for info, _ in limited_engine.visible_tables(ADMIN)}
    assert "warehouse.main.sites" not in listed and "warehouse.analytics.events" in listed
    assert limited_engine.run("SELECT count(*) FROM events", ADMIN).rows == [(5,)]


@pytest.mark.parametrize("sql", OUTSIDE)
def test_naming_one_is_table_not_found_before_execution(limited_engine, sql):
    # rewrite() executes nothing: the refusal comes from the permission rewrite itself.
    with pytest.raises(EngineError) as refused:
        limited_engine.rewrite(sql, ADMIN)
    assert refused.value.code == "table_not_found"
    with pytest.raises(EngineError) as refused:
        limited_engine.run(sql, ADMIN)
    assert refused.value.code == "table_not_found"


def test_a_rule_on_such_a_table_grants_nothing(limited_engine):
    group = GroupPermissions("g", table_rules=(TableRule("warehouse", "main", "sites"),))
    user = UserContext("x", (group,), {})
    assert limited_engine.visible_tables(user) == []
    with pytest.raises(EngineError) as refused:
        limited_engine.run("SELECT * FROM warehouse.main.sites", user)
    assert refused.value.code == "table_not_found"


def test_describe_and_autocomplete_do_not_know_them(limited_engine):
    with pytest.raises(EngineError) as refused:
        limited_engine.describe_table(ADMIN, "warehouse.main.sites")
    assert refused.value.code == "table_not_found"
    assert limited_engine.describe_table(ADMIN, "events")[0].table.schema == "analytics"
    labels = {s.label.lower() for s in limited_engine.complete("SELECT * FROM warehouse.", 24, ADMIN)}
    assert "analytics" in labels and "main" not in labels
    labels = {s.label.lower() for s in limited_engine.complete("SELECT * FROM warehouse.main.", 29, ADMIN)}
    assert "sites" not in labels


@pytest.mark.parametrize(
    "arguments",
    [{"schemas": ()}, {"schemas": ("",)}, {"schemas": ("analytics",), "default_schema": "main"}],
)
def test_a_list_must_name_schemas_and_hold_the_default_one(source_files, arguments):
    with pytest.raises(ValueError):
        CatalogSource("warehouse", "duckdb", str(source_files["warehouse"]), **arguments)
