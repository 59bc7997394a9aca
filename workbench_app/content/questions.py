"""Saved questions: SQL with typed `{{variables}}`, a builder definition compiled to SQL, or a funnel,
path or retention analysis (kind "analysis", workbench_app/analyses) compiled to SQL.

A question has its folder's access; running it needs view access, and its statement runs under
the runner's own data permissions (never its author's).
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.analyses.compiler import DASHBOARD_VARIABLES, compile_analysis, with_dashboard_values
from workbench_app.content import builder, folders, segments
from workbench_app.content.dashboard_filters import with_column_conditions
from workbench_app.content.shapes import QUESTION_VARIABLE_TYPES
from workbench_app.engine import EngineError, variable_names
from workbench_app.errors import invalid
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import run_for

_COLUMNS = """question_id, folder_id, name, description, kind, builder, analysis, sql_text as sql, variables, visualization,
              created_by, created_at, updated_at"""


def check_variables(sql: str, declared: Any) -> dict[str, str]:
    """Declared variable types, checked against the `{{names}}` the SQL uses."""
    if not isinstance(declared, dict) or not all(
            isinstance(name, str) and kind in QUESTION_VARIABLE_TYPES for name, kind in declared.items()):
        raise invalid(f"variables maps each name to one of {', '.join(QUESTION_VARIABLE_TYPES)}.", field="variables")
    try:
        used = variable_names(sql)
    except EngineError as error:
        raise invalid(error.message, field="sql") from None
    missing = [name for name in used if name not in declared]
    if missing:
        raise invalid(f"Declare the type of: {', '.join(missing)}.", field="variables", missing=missing)
    return dict(declared)


def _definition(fields: dict[str, Any]) -> tuple[str, str, Any, dict[str, str]]:
    """(kind, SQL, the definition kept in the kind's column, variable types)."""
    kind = fields.get("kind") or ("builder" if fields.get("builder") is not None
                                  else "analysis" if fields.get("analysis") is not None else "sql")
    if kind == "analysis":
        sql, _, _ = compile_analysis(fields.get("analysis"))
        return kind, sql, fields["analysis"], dict(DASHBOARD_VARIABLES)
    if kind == "builder":
        sql, types, _ = builder.compile_definition(fields.get("builder"))
        return kind, sql, fields["builder"], types
    if fields.get("builder") is not None:
        # A builder sent with a SQL question is not kept, but what is sent is still checked (the
        # document describes it, and a client should hear that it is wrong).
        builder.compile_definition(fields["builder"])
    sql = fields.get("sql")
    if not isinstance(sql, str) or not sql.strip() or len(sql) > 100_000:
        raise invalid("sql is required for a SQL question (at most 100,000 characters).", field="sql")
    return kind, sql, None, check_variables(sql, fields.get("variables") or {})


def _kept(kind: str, definition: Any) -> tuple[Jsonb | None, Jsonb | None]:
    """(builder, analysis) columns: the definition in its kind's column, the other empty."""
    if definition is None:
        return None, None
    return (Jsonb(definition), None) if kind == "builder" else (None, Jsonb(definition))


def get_question(conn: psycopg.Connection, identity: Identity, question_id: int, level: str = "view") -> dict[str, Any]:
    return folders.filed_item(conn, identity, "questions", "question_id", _COLUMNS, question_id, level, "Question")


def list_questions(conn: psycopg.Connection, identity: Identity, folder_id: int | None = None,
                   search: str | None = None) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""select {_COLUMNS} from questions
                where (%(folder)s::bigint is null or folder_id = %(folder)s)
                  and (%(search)s::text is null or name ilike '%%' || %(search)s || '%%'
                       or description ilike '%%' || %(search)s || '%%')
                order by question_id""",
            {"folder": folder_id, "search": search},
        ).fetchall()
    return folders.visible(conn, identity, rows)


def create_question(conn: psycopg.Connection, identity: Identity, fields: dict[str, Any]) -> dict[str, Any]:
    folder_id = fields.get("folder_id") or folders.personal_folder(conn, identity)
    folders.require(conn, identity, folder_id, "edit")
    kind, sql, definition, variables = _definition(fields)
    question_id = conn.execute(
        """insert into questions (folder_id, name, description, kind, builder, analysis, sql_text, variables,
                                  visualization, created_by)
           values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) returning question_id""",
        (folder_id, fields["name"], fields.get("description") or "", kind, *_kept(kind, definition), sql,
         Jsonb(variables),
         Jsonb(fields.get("visualization") or {}), identity.user_id),
    ).fetchone()[0]
    return get_question(conn, identity, question_id)


def update_question(conn: psycopg.Connection, identity: Identity, question_id: int, fields: dict[str, Any]) -> dict[str, Any]:
    current = get_question(conn, identity, question_id, "edit")
    if fields.get("folder_id") is not None and fields["folder_id"] != current["folder_id"]:
        folders.require(conn, identity, fields["folder_id"], "edit")
    merged = {
        "kind": fields.get("kind") or current["kind"],
        "builder": fields["builder"] if "builder" in fields else current["builder"],
        "analysis": fields["analysis"] if "analysis" in fields else current["analysis"],
        "sql": fields.get("sql") if fields.get("sql") is not None else current["sql"],
        "variables": fields["variables"] if fields.get("variables") is not None else current["variables"],
    }
    if merged["kind"] != "builder" and fields.get("kind") in ("sql", "analysis"):
        merged["builder"] = None
    kind, sql, definition, variables = _definition(merged)
    conn.execute(
        """update questions set folder_id = %s, name = %s, description = %s, kind = %s, builder = %s, analysis = %s,
                  sql_text = %s, variables = %s, visualization = %s, updated_at = now() where question_id = %s""",
        (fields.get("folder_id") or current["folder_id"], fields.get("name") or current["name"],
         fields["description"] if fields.get("description") is not None else current["description"], kind,
         *_kept(kind, definition), sql, Jsonb(variables),
         Jsonb(fields["visualization"] if fields.get("visualization") is not None else current["visualization"]),
         question_id),
    )
    return get_question(conn, identity, question_id)


def delete_question(conn: psycopg.Connection, identity: Identity, question_id: int) -> None:
    get_question(conn, identity, question_id, "edit")
    conn.execute("delete from questions where question_id = %s", (question_id,))


def question_statement(services: WorkbenchServices, identity: Identity, question_id: int,
                       variables: dict[str, Any] | None = None) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(SQL, variable types, values) of a saved question the caller may view, its segments expanded."""
    with services.transaction() as conn:
        question = get_question(conn, identity, question_id)
        return segments.expand(conn, identity, statement_of(question, variables))


def statement_of(question: dict[str, Any], variables: dict[str, Any] | None = None
                 ) -> tuple[str, dict[str, str], dict[str, Any]]:
    """(SQL, variable types, values) of a question already read with its access checked."""
    if question["kind"] == "builder":
        if variables:
            raise invalid("A builder question takes no variables.", field="variables")
        return builder.compile_definition(question["builder"])
    if question["kind"] == "analysis":
        return compile_analysis(with_dashboard_values(question["analysis"], variables))
    return question["sql"], question["variables"], variables or {}


def run_question(services: WorkbenchServices, identity: Identity, question_id: int, *, origin: str,
                 variables: dict[str, Any] | None = None, row_limit: int | None = None) -> dict[str, Any]:
    """Run a saved question under `identity`'s own rights."""
    sql, types, values = question_statement(services, identity, question_id, variables)
    result = run_for(services, identity, sql, origin=origin, variables=values, variable_types=types,
                     row_limit=row_limit, question_id=question_id)
    result["question_id"] = question_id
    return result


def question_columns(services: WorkbenchServices, identity: Identity, question_id: int, *,
                     origin: str) -> dict[str, Any]:
    """The columns of a question's result, for pickers (a dashboard filter linked to a column).

    The question runs under the caller's own rights, wrapped to keep no row (so nothing is read
    that a run would not show them: a column they may not see is not listed), and with no
    variables: optional clauses drop out, and a question that needs a value is refused as a run
    without it would be (the screen then lets the column be typed)."""
    statement = question_statement(services, identity, question_id)
    sql, types, values = with_column_conditions(statement, [("false", {}, {})])
    result = run_for(services, identity, sql, origin=origin, variables=values, variable_types=types,
                     question_id=question_id)
    return {"columns": result["columns"]}
