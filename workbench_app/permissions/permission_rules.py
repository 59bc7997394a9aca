"""Permission rules kept in the metadata database, mapped onto the engine's rule types.

Per group: catalog grants (every table of a catalog, unrestricted) and table rules (access, row
filter with `{{user.<attribute>}}`, hidden columns, masked columns). `user_context` reads a user's
groups, rules and attributes fresh for each request, so a change applies to the next statement.
Administrators read every attached catalog without restriction.
"""
from __future__ import annotations

from typing import Any, Iterable

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.engine import (ColumnMask, GroupPermissions, TableName, TableRule, UserContext, WorkbenchEngine,
                                  rule_problems)
from workbench_app.engine.permissions import MASK_KINDS
from workbench_app.errors import invalid, not_found
from workbench_app.records import audit_log

ADMINISTRATORS = "administrators (built in)"
_RULE_COLUMNS = """rule_id, group_id, catalog, schema_name as schema, table_name as "table", access, row_filter,
                   hidden_columns, masked_columns, created_at, updated_at"""


def column_mask(name: str, spec: Any) -> ColumnMask:
    """A stored mask (`{"kind": ..., ...}`) as the engine's ColumnMask; 400 when malformed."""
    if not isinstance(spec, dict) or spec.get("kind") not in MASK_KINDS:
        raise invalid(f"The mask of {name} needs a kind among {', '.join(MASK_KINDS)}.", column=name)
    keep_first, keep_last = spec.get("keep_first", 0), spec.get("keep_last", 4)
    for value in (keep_first, keep_last):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1000:
            raise invalid(f"keep_first and keep_last of {name} must be whole numbers from 0 to 1000.", column=name)
    expression = spec.get("expression")
    if expression is not None and (not isinstance(expression, str) or len(expression) > 2000):
        raise invalid(f"The mask expression of {name} must be a string.", column=name)
    try:
        return ColumnMask(spec["kind"], keep_last=keep_last, keep_first=keep_first, expression=expression)
    except ValueError as error:
        raise invalid(f"The mask of {name} is invalid: {error}.", column=name) from None


def _table_rule(row: dict[str, Any]) -> TableRule:
    return TableRule(
        catalog=row["catalog"], schema=row["schema"], table=row["table"], access=row["access"],
        row_filter=row["row_filter"], hidden_columns=frozenset(row["hidden_columns"] or ()),
        masked_columns={name: column_mask(name, spec) for name, spec in (row["masked_columns"] or {}).items()},
    )


def user_context(conn: psycopg.Connection, identity: Identity, catalogs: Iterable[str]) -> UserContext:
    """The engine's view of a person: their groups' rules and their attributes, read now."""
    attributes = dict(identity.attributes) if identity.attributes is not None else dict(conn.execute(
        "select name, value from user_attributes where user_id = %s", (identity.user_id,)).fetchall())
    groups: list[GroupPermissions] = []
    if identity.is_admin:
        groups.append(GroupPermissions(ADMINISTRATORS, frozenset(catalogs)))
    memberships = conn.execute(
        "select g.group_id, g.name from groups g join group_members m using (group_id) where m.user_id = %s",
        (identity.user_id,),
    ).fetchall()
    for group_id, name in memberships:
        grants = frozenset(row[0] for row in conn.execute(
            "select catalog from catalog_grants where group_id = %s", (group_id,)))
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(f"select {_RULE_COLUMNS} from table_rules where group_id = %s", (group_id,)).fetchall()
        rules = []
        for row in rows:
            try:
                rules.append(_table_rule(row))
            except Exception:  # noqa: BLE001 - a malformed stored rule grants nothing (fail-closed)
                rules.append(TableRule(row["catalog"], row["schema"], row["table"], access=False))
        groups.append(GroupPermissions(f"{name}#{group_id}", grants, tuple(rules)))
    return UserContext(str(identity.user_id), tuple(groups), attributes)


# --- administration ---------------------------------------------------------------------------


def _require_group(conn: psycopg.Connection, group_id: int) -> None:
    if not conn.execute("select 1 from groups where group_id = %s", (group_id,)).fetchone():
        raise not_found("Group")


def group_permissions(conn: psycopg.Connection, group_id: int) -> dict[str, Any]:
    _require_group(conn, group_id)
    catalogs = [row[0] for row in conn.execute(
        "select catalog from catalog_grants where group_id = %s order by catalog", (group_id,))]
    with conn.cursor(row_factory=dict_row) as cur:
        rules = cur.execute(f"select {_RULE_COLUMNS} from table_rules where group_id = %s order by rule_id",
                            (group_id,)).fetchall()
    return {"group_id": group_id, "catalogs": catalogs, "table_rules": rules}


def set_catalog_grants(conn: psycopg.Connection, actor: Identity, group_id: int, catalogs: list[str]) -> dict[str, Any]:
    """Replace the catalogs a group reads without restriction (audited)."""
    _require_group(conn, group_id)
    conn.execute("delete from catalog_grants where group_id = %s", (group_id,))
    for catalog in sorted(set(catalogs)):
        conn.execute("insert into catalog_grants (group_id, catalog) values (%s, %s)", (group_id, catalog))
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.catalogs_set", str(group_id),
                     {"catalogs": sorted(set(catalogs))})
    return group_permissions(conn, group_id)


def put_table_rule(conn: psycopg.Connection, actor: Identity, group_id: int, rule: dict[str, Any]) -> dict[str, Any]:
    """Create or replace the group's rule for one table (audited). Checks shape; the engine checks
    expressions against the table when statements run (an invalid rule grants nothing)."""
    _require_group(conn, group_id)
    masks = rule.get("masked_columns") or {}
    for name, spec in masks.items():
        column_mask(name, spec)
    hidden = rule.get("hidden_columns") or []
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """delete from table_rules where group_id = %s and lower(catalog) = lower(%s)
               and lower(schema_name) = lower(%s) and lower(table_name) = lower(%s)""",
            (group_id, rule["catalog"], rule["schema"], rule["table"]),
        )
        saved = cur.execute(
            f"""insert into table_rules (group_id, catalog, schema_name, table_name, access, row_filter,
                                         hidden_columns, masked_columns)
                values (%s, %s, %s, %s, %s, %s, %s, %s) returning {_RULE_COLUMNS}""",
            (group_id, rule["catalog"], rule["schema"], rule["table"], rule.get("access", True),
             rule.get("row_filter"), list(hidden), Jsonb(masks)),
        ).fetchone()
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.rule_set", str(group_id), {
        "table": f"{rule['catalog']}.{rule['schema']}.{rule['table']}", "access": saved["access"],
        "row_filter": saved["row_filter"], "hidden_columns": list(hidden), "masked_columns": sorted(masks)})
    return saved


def delete_table_rule(conn: psycopg.Connection, actor: Identity, group_id: int, rule_id: int) -> None:
    deleted = conn.execute("delete from table_rules where group_id = %s and rule_id = %s "
                           "returning catalog, schema_name, table_name", (group_id, rule_id)).fetchone()
    if deleted is None:
        raise not_found("Rule")
    audit_log.record(conn, actor.user_id, actor.actor, "permissions.rule_deleted", str(group_id),
                     {"table": ".".join(deleted)})


def rule_problems_now(engine: WorkbenchEngine, saved: dict[str, Any]) -> list[str]:
    """Why a saved rule would grant nothing against the table as attached now (empty when fine).

    A rule is kept even with problems (the table may not be attached yet); it then grants nothing.
    """
    table = engine.schema.get(TableName(saved["catalog"], saved["schema"], saved["table"]))
    if table is None:
        return ["The table is not attached now; the rule applies once it is."]
    problems = list(rule_problems(_table_rule(saved), table))
    known = {column.name.lower() for column in table.columns}
    for name in list(saved["hidden_columns"]) + list(saved["masked_columns"]):
        if name.lower() not in known:
            problems.append(f"The table has no column {name!r}.")
    return problems
