"""The warehouse as the engine sees it: PostgreSQL attached read-only through the scanner.

Uses the shared session PostgreSQL (tests/conftest.py): a fresh migrated
database per test.
"""

from __future__ import annotations

import duckdb
import pytest

from tests.workbench.conftest import MASK_SALT
from workbench_app.engine import (
    CatalogSource,
    ColumnMask,
    EngineError,
    EngineSettings,
    GroupPermissions,
    TableRule,
    UserContext,
    WorkbenchEngine,
)


@pytest.fixture
def warehouse_engine(db, database_url):
    db.execute("CREATE SCHEMA wb_test")
    db.execute("CREATE TABLE wb_test.visits (id int, region text, email text, amount numeric(10, 2))")
    db.execute(
        "INSERT INTO wb_test.visits VALUES (1, 'EU', 'ann@x.fr', 10), (2, 'US', 'b@y.com', 20), (3, 'EU', NULL, 30)"
    )
    engine = WorkbenchEngine(
        EngineSettings(default_catalog="warehouse", default_schema="wb_test", mask_salt=MASK_SALT),
        [CatalogSource("warehouse", "postgres", database_url)],
    )
    yield engine
    engine.close()


def test_postgres_rows_are_filtered_and_masked(warehouse_engine):
    group = GroupPermissions(
        "eu",
        table_rules=(
            TableRule(
                "warehouse",
                "wb_test",
                "visits",
                row_filter="region = {{user.region}}",
                masked_columns={"email": ColumnMask("partial", keep_last=3)},
            ),
        ),
    )
    user = UserContext("u", (group,), {"region": "EU"})
    result = warehouse_engine.run("SELECT id, email, amount FROM visits ORDER BY id", user)
    assert [(row[0], row[1]) for row in result.rows] == [(1, "*****.fr"), (3, None)]
    assert warehouse_engine.run("SELECT sum(amount) FROM visits", user).rows[0][0] == 40


def test_postgres_is_read_only_and_postgres_query_is_refused(warehouse_engine):
    admin = UserContext("admin", (GroupPermissions("all", frozenset({"warehouse"})),), {})
    with pytest.raises(EngineError) as refused:
        warehouse_engine.run("SELECT * FROM postgres_query('warehouse', 'SELECT 1')", admin)
    assert refused.value.code == "function_not_allowed"
    with pytest.raises(EngineError) as refused:
        warehouse_engine.run("DELETE FROM visits", admin)
    assert refused.value.code == "statement_not_allowed"
    with pytest.raises(duckdb.Error):
        warehouse_engine._generation.connection.execute("DELETE FROM warehouse.wb_test.visits")
    assert warehouse_engine.run("SELECT count(*) FROM visits", admin).rows == [(3,)]
    assert warehouse_engine.native_sql_allowed(admin, "warehouse")
