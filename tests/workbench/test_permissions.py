"""Allowed statements return exactly the filtered, masked rows; groups combine as documented."""

from __future__ import annotations

import hashlib

import duckdb
import pytest

from tests.workbench.conftest import ANALYSTS_EU, EVERYTHING, MASK_SALT
from workbench_app.engine import (
    CatalogSource,
    ColumnMask,
    EngineError,
    EngineSettings,
    GroupPermissions,
    TableRule,
    UserContext,
    WorkbenchEngine,
    native_sql_allowed,
    rule_problems,
)
from workbench_app.engine import rewrite as rewrite_module


def masked_hash(value: str) -> str:
    return hashlib.sha256((MASK_SALT + value).encode()).hexdigest()


def test_row_filter_uses_the_user_attribute(engine, analyst):
    rows = engine.run("SELECT id, region FROM events ORDER BY id", analyst).rows
    assert rows == [(1, "EU"), (2, "EU"), (5, "EU")]
    us_analyst = UserContext("us", (ANALYSTS_EU,), {"region": "US"})
    assert engine.run("SELECT id FROM events ORDER BY id", us_analyst).rows == [(3,), (4,)]


def test_star_leaves_hidden_columns_out(engine, analyst):
    result = engine.run("SELECT * FROM events", analyst)
    assert result.columns == ["id", "site_id", "page", "country", "region", "visitor_hash", "revenue"]


def test_hash_mask_is_keyed_and_stable(engine, analyst):
    rows = engine.run("SELECT id, visitor_hash FROM events ORDER BY id", analyst).rows
    assert rows[0] == (1, masked_hash("vh-1"))
    # Equal inputs give equal hashes, so joins and counts on the masked column still work.
    joined = engine.run(
        "SELECT count(*) FROM events a JOIN events b ON a.visitor_hash = b.visitor_hash", analyst
    ).rows
    assert joined == [(3,)]


def test_partial_mask_keeps_last_characters(engine, analyst):
    rows = engine.run("SELECT name, email FROM crm.customers ORDER BY id", analyst).rows
    assert rows == [("Ann", "**********e.fr"), ("Bob", "**********e.de"), ("Cyd", "***********.com")]


def test_aggregates_and_windows_see_only_permitted_rows(engine, analyst):
    assert engine.run("SELECT sum(revenue) FROM events", analyst).rows == [(80.0,)]
    rows = engine.run(
        "SELECT id, rank() OVER (ORDER BY revenue DESC) AS r FROM events ORDER BY id", analyst
    ).rows
    assert rows == [(1, 3), (2, 2), (5, 1)]


def test_cte_subquery_set_operation_and_lateral_are_rewritten(engine, analyst):
    sql = """
        WITH eu AS (SELECT page, revenue FROM events),
             top AS (SELECT page FROM eu WHERE revenue > (SELECT avg(revenue) FROM events))
        SELECT page FROM top
        UNION ALL
        SELECT p."Page" FROM "PageViews" p, LATERAL (SELECT p."Views" * 2 AS double_views) d
        WHERE d.double_views > 4
        ORDER BY 1
    """
    assert engine.run(sql, analyst).rows == [("/home",), ("/home",)]


def test_names_resolve_case_insensitively_with_defaults(engine, analyst):
    for reference in ("events", "EVENTS", '"Events"', "analytics.events", "warehouse.analytics.events",
                      '"WAREHOUSE"."ANALYTICS"."EVENTS"'):
        assert engine.run(f"SELECT count(*) FROM {reference}", analyst).rows == [(3,)], reference
    assert engine.run("SELECT sum(views) FROM pageviews", analyst).rows == [(4,)]


def test_federated_join_across_catalogs(engine, analyst):
    rows = engine.run(
        """SELECT c.name, e.page FROM crm.customers c JOIN events e ON c.id = e.id ORDER BY c.id""",
        analyst,
    ).rows
    assert rows == [("Ann", "/home"), ("Bob", "/pricing")]


def test_unrestricted_user_reads_tables_directly(engine, admin):
    statement = engine.rewrite("SELECT * FROM salaries", admin)
    assert "SELECT" not in statement.sql.split("FROM", 1)[1]  # the plain table, no projection
    assert engine.run("SELECT amount FROM salaries", admin).rows == [(1000000,)]
    assert engine.run("SELECT email FROM events WHERE id = 3", admin).rows == [("cyd@example.com",)]


def test_rewritten_sql_is_fully_qualified_and_parameterised(engine, analyst):
    statement = engine.rewrite("SELECT * FROM events", analyst)
    assert '"warehouse"."analytics"."events"' in statement.sql
    assert "'EU'" not in statement.sql  # the attribute is a bound value, not text
    assert "EU" in statement.parameters.values()
    assert MASK_SALT not in statement.sql


# --- several groups ------------------------------------------------------------------------

EU_CLEAR = GroupPermissions(
    "a-eu-clear",
    table_rules=(TableRule("warehouse", "analytics", "events", row_filter="region = 'EU'"),),
)
ALL_NO_EMAIL = GroupPermissions(
    "b-all-no-email",
    table_rules=(
        TableRule(
            "warehouse",
            "analytics",
            "events",
            hidden_columns=frozenset({"email"}),
            masked_columns={"visitor_hash": ColumnMask("null")},
        ),
    ),
)


def test_groups_add_rows_and_each_cell_follows_a_group_that_accepts_the_row(engine):
    user = UserContext("both", (ALL_NO_EMAIL, EU_CLEAR), {})
    rows = engine.run("SELECT id, email, visitor_hash FROM events ORDER BY id", user).rows
    by_id = {row[0]: row[1:] for row in rows}
    assert sorted(by_id) == [1, 2, 3, 4, 5]  # B reads every row
    assert by_id[1] == ("ann@example.fr", "vh-1")  # EU rows: A shows them in clear
    assert by_id[3] == (None, None)  # US rows: only B, which hides email and nulls the hash


def test_group_order_does_not_matter(engine):
    first = UserContext("x", (ALL_NO_EMAIL, EU_CLEAR), {})
    second = UserContext("x", (EU_CLEAR, ALL_NO_EMAIL), {})
    sql = "SELECT * FROM events ORDER BY id"
    assert engine.run(sql, first).rows == engine.run(sql, second).rows


def test_a_column_hidden_by_every_group_does_not_exist(engine):
    user = UserContext("x", (ALL_NO_EMAIL, ANALYSTS_EU), {"region": "EU"})
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT email FROM events", user)
    assert refused.value.code == "column_not_found"


def test_access_false_withdraws_only_that_groups_catalog_grant(engine):
    blocked = GroupPermissions(
        "catalog-but-not-salaries",
        unrestricted_catalogs=frozenset({"warehouse"}),
        table_rules=(TableRule("warehouse", "analytics", "salaries", access=False),),
    )
    user = UserContext("x", (blocked,), {})
    assert engine.run("SELECT count(*) FROM events", user).rows == [(5,)]
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT * FROM salaries", user)
    assert refused.value.code == "table_not_found"
    # Another group granting the table gives it back: groups add rights.
    user = UserContext("x", (blocked, EVERYTHING), {})
    assert engine.run("SELECT count(*) FROM salaries", user).rows == [(1,)]


def test_invalid_rules_grant_nothing(engine):
    bad_rules = [
        TableRule("warehouse", "analytics", "events", row_filter="no_such_column = 1"),
        TableRule("warehouse", "analytics", "events", row_filter="current_setting('threads') = '1'"),
        TableRule("warehouse", "analytics", "events", row_filter="id IN (SELECT 1 FROM salaries)"),
        TableRule("warehouse", "analytics", "events", row_filter="region = ("),
        TableRule("warehouse", "analytics", "events", masked_columns={"email": ColumnMask("expression", expression="read_text('x')")}),
    ]
    events = next(info for info in engine.schema if info.table.name == "events")
    for rule in bad_rules:
        user = UserContext("x", (GroupPermissions("g", table_rules=(rule,)),), {})
        with pytest.raises(EngineError) as refused:
            engine.run("SELECT * FROM events", user)
        assert refused.value.code == "table_not_found"
        assert rule_problems(rule, events) or rule.row_filter == "region = ("


@pytest.mark.parametrize("invalid_group", ["a-invalid", "z-invalid"])
def test_an_invalid_rule_takes_away_only_its_own_groups_grant(engine, invalid_group):
    # DuckDB's parser first sees the invalid expression in the same call as the
    # statement (the rewrite then builds again without that group): the result
    # must be what the valid group alone gives, the first time and from the caches.
    rewrite_module.clear_caches()
    invalid = GroupPermissions(
        invalid_group,
        table_rules=(
            TableRule(
                "warehouse", "analytics", "events",
                row_filter="current_setting('threads') = '1' OR region = {{user.region}}",
                masked_columns={"email": ColumnMask("expression", expression="read_text('x')")},
            ),
        ),
    )
    valid = GroupPermissions(
        "m-valid",
        table_rules=(TableRule("warehouse", "analytics", "events", row_filter="region = 'US'", hidden_columns=frozenset({"email"})),),
    )
    user = UserContext("x", (invalid, valid), {"region": "EU"})
    for _ in range(2):
        result = engine.run("SELECT * FROM events ORDER BY id", user)
        assert [row[0] for row in result.rows] == [3, 4]
        assert "email" not in result.columns


def test_hash_and_partial_masks_keep_null(tmp_path):
    path = tmp_path / "nulls.duckdb"
    connection = duckdb.connect(str(path))
    connection.execute("CREATE TABLE people (id INTEGER, email VARCHAR, phone VARCHAR)")
    connection.execute("INSERT INTO people VALUES (1, NULL, NULL), (2, 'a@b.c', '0123456789')")
    connection.close()
    engine = WorkbenchEngine(EngineSettings(mask_salt=MASK_SALT), [CatalogSource("db", "duckdb", str(path))])
    try:
        group = GroupPermissions(
            "g",
            table_rules=(
                TableRule("db", "main", "people", masked_columns={
                    "email": ColumnMask("hash"), "phone": ColumnMask("partial", keep_first=2, keep_last=2),
                }),
            ),
        )
        rows = engine.run("SELECT id, email, phone FROM db.people ORDER BY id", UserContext("x", (group,), {})).rows
    finally:
        engine.close()
    assert rows == [(1, None, None), (2, masked_hash("a@b.c"), "01******89")]


def test_rule_problems_flag_columns_that_do_not_exist(engine):
    events = next(info for info in engine.schema if info.table.name == "events")
    rule = TableRule(
        "warehouse", "analytics", "events",
        hidden_columns=frozenset({"e_mail"}), masked_columns={"EMAIL": ColumnMask("null")},
    )
    assert rule_problems(rule, events) == ["hidden column e_mail: the table has no such column"]


def test_two_rules_for_one_table_in_one_group_grant_nothing(engine):
    group = GroupPermissions(
        "g",
        table_rules=(
            TableRule("warehouse", "analytics", "events"),
            TableRule("WAREHOUSE", "Analytics", "Events", row_filter="region = 'EU'"),
        ),
    )
    with pytest.raises(EngineError):
        engine.run("SELECT * FROM events", UserContext("x", (group,), {}))


def test_expression_mask_may_use_user_attributes(engine):
    group = GroupPermissions(
        "g",
        table_rules=(
            TableRule(
                "crm",
                "main",
                "customers",
                masked_columns={
                    "email": ColumnMask(
                        "expression",
                        expression="CASE WHEN region = {{user.region}} THEN email ELSE 'hidden' END",
                    )
                },
            ),
        ),
    )
    user = UserContext("x", (group,), {"region": "US"})
    rows = engine.run("SELECT id, email, card FROM crm.customers ORDER BY id", user).rows
    assert [row[1] for row in rows] == ["hidden", "hidden", "cyd@example.com"]
    # Without the attribute, the rule closes access.
    with pytest.raises(EngineError) as refused:
        engine.run("SELECT id FROM crm.customers", UserContext("y", (group,), {}))
    assert refused.value.code == "table_not_found"


def test_list_attribute_in_row_filter(engine):
    group = GroupPermissions(
        "g",
        table_rules=(
            TableRule("warehouse", "analytics", "events", row_filter="list_contains({{user.countries}}, country)"),
        ),
    )
    user = UserContext("x", (group,), {"countries": ["FR", "US"]})
    assert engine.run("SELECT id FROM events ORDER BY id", user).rows == [(1,), (3,), (4,)]


def test_null_mask_keeps_the_column_type(engine):
    group = GroupPermissions(
        "g",
        table_rules=(TableRule("warehouse", "analytics", "events", masked_columns={"revenue": ColumnMask("null")}),),
    )
    result = engine.run("SELECT revenue FROM events", UserContext("x", (group,), {}))
    assert result.column_types == ["DOUBLE"]
    assert {row[0] for row in result.rows} == {None}


def test_visible_tables_lists_only_what_the_user_may_read(engine, analyst):
    listed = {str(info.table): [c.name for c in columns] for info, columns in engine.visible_tables(analyst)}
    assert set(listed) == {"warehouse.analytics.events", "warehouse.analytics.PageViews", "crm.main.customers"}
    assert "email" not in listed["warehouse.analytics.events"]
    assert "card" not in listed["crm.main.customers"]


def test_visible_catalogs(engine, analyst, admin):
    assert engine.visible_catalogs(analyst) == ["crm", "warehouse"]
    assert engine.visible_catalogs(UserContext("nobody")) == []
    only_crm = UserContext("x", (GroupPermissions("g", frozenset({"crm"})),), {})
    assert engine.visible_catalogs(only_crm) == ["crm"]


def test_native_sql_only_without_any_restriction(engine, analyst, admin):
    assert engine.native_sql_allowed(admin, "warehouse")
    assert engine.native_sql_allowed(admin, "CRM")
    assert not engine.native_sql_allowed(analyst, "warehouse")
    assert not engine.native_sql_allowed(admin, "not_attached")
    restricted_inside = GroupPermissions(
        "g",
        unrestricted_catalogs=frozenset({"warehouse"}),
        table_rules=(TableRule("warehouse", "analytics", "events", row_filter="region = 'EU'"),),
    )
    assert not native_sql_allowed(UserContext("x", (restricted_inside,), {}), "warehouse")
    assert native_sql_allowed(UserContext("x", (restricted_inside, EVERYTHING), {}), "warehouse")


def test_describe_table_shows_the_users_view(engine, analyst):
    info, columns = engine.describe_table(analyst, "events")
    assert str(info.table) == "warehouse.analytics.events"
    assert [c.name for c in columns] == ["id", "site_id", "page", "country", "region", "visitor_hash", "revenue"]
    assert [c.name for c in columns if c.masked] == ["visitor_hash"]
    for hidden in ("salaries", "crm.api_keys", "read_csv('/etc/passwd')", "nope.nope.nope.nope"):
        with pytest.raises(EngineError) as refused:
            engine.describe_table(analyst, hidden)
        assert refused.value.code in {"table_not_found", "syntax_error"}
