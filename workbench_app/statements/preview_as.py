""""View as": an administrator runs a sample statement as a chosen person, and sees the rows and
columns that person would get and which of their groups' grants decided, per table read.

The statement runs through the same engine path as the person's own (their rights read now); it
is recorded in the audit log under the administrator, not in the person's history.
"""
from __future__ import annotations

from typing import Any

from sqlglot import exp

from workbench_app.accounts.identity import Identity
from workbench_app.engine import EngineError, TableName, UserContext, WorkbenchEngine
from workbench_app.engine.catalog_schema import candidate_names
from workbench_app.engine.dialect import parse_single_statement
from workbench_app.i18n import translate
from workbench_app.permissions.permission_rules import ADMINISTRATORS
from workbench_app.records import audit_log
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import engine_refusal, open_session

PREVIEW_ROWS = 100


def preview(services: WorkbenchServices, actor: Identity, person: Identity, sql: str) -> dict[str, Any]:
    session = open_session(services, person)
    with services.transaction() as conn:
        audit_log.record(conn, actor.user_id, actor.actor, "permissions.previewed", str(person.user_id),
                         {"sql": sql[:2000]})
    decisions = [{"table": str(table), "grants": grants_for(session.user, table)}
                 for table in tables_read(session.engine, sql)]
    try:
        result = session.engine.run(sql, session.user, row_limit=PREVIEW_ROWS)
    except EngineError as error:
        refusal = engine_refusal(error)
        return {"result": None, "refusal": {**refusal.as_dict(), "message": translate(refusal.message)},
                "decisions": decisions}
    return {"result": result.as_json(), "refusal": None, "decisions": decisions}


def tables_read(engine: WorkbenchEngine, sql: str) -> list[TableName]:
    """The attached tables a statement names (as the engine resolves them); [] when it does not parse."""
    try:
        tree = parse_single_statement(sql)
    except EngineError:
        return []
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    found: dict[tuple[str, str, str], TableName] = {}
    for table in tree.find_all(exp.Table):
        parts = [part for part in (table.catalog, table.db, table.name) if part]
        if len(parts) == 1 and parts[0].lower() in ctes:
            continue
        for candidate in candidate_names(parts, engine.schema, engine.settings.default_catalog,
                                         engine.settings.default_schema):
            info = engine.schema.get(candidate)
            if info is not None:
                found.setdefault(info.table.key, info.table)
                break
    return list(found.values())


def grants_for(user: UserContext, table: TableName) -> list[dict[str, Any]]:
    """Each of the person's groups' say on `table`: a table rule, a whole-catalog grant, or nothing."""
    grants = []
    for group in user.groups:
        name = group.name if group.name == ADMINISTRATORS else group.name.rsplit("#", 1)[0]
        rule = next((r for r in group.table_rules if (r.catalog.lower(), r.schema.lower(), r.table.lower())
                     == table.key), None)
        if rule is not None:
            grants.append({"group": name, "kind": "table_rule", "access": rule.access, "row_filter": rule.row_filter,
                           "hidden_columns": sorted(rule.hidden_columns),
                           "masked_columns": {column: mask.kind for column, mask in rule.masked_columns.items()}})
        elif table.catalog.lower() in {c.lower() for c in group.unrestricted_catalogs}:
            grants.append({"group": name, "kind": "catalog", "access": True, "row_filter": None,
                           "hidden_columns": [], "masked_columns": {}})
    return grants
