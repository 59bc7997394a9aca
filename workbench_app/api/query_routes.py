"""The SQL endpoint, formatting, autocomplete and the schema as the caller may see it."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, origin, services
from workbench_app.content import builder
from workbench_app.engine import EngineError, VARIABLE_TYPES, format_sql, inline_values
from workbench_app.errors import invalid, not_found
from workbench_app.statements import csv_export, native_sql, schema_browser
from workbench_app.statements.query_runner import cancel, engine_refusal, open_session, run_for, run_statement

blueprint = Blueprint("query", __name__)
# The document states these bounds from here (api/openapi.py): one source for the check and its description.
MAX_SQL = 100_000
MAX_ROW_LIMIT = 1_000_000  # a run's rows (a CSV's bound is the export setting)
MAX_CATALOG = 63  # a catalog is named like a PostgreSQL identifier


def _variables(body):
    values = check.mapping(body, "variables")
    types = check.mapping(body, "variable_types")
    for name, kind in types.items():
        if kind not in VARIABLE_TYPES:
            raise invalid(f"variable_types values are {', '.join(VARIABLE_TYPES)}.", field="variable_types")
    return values, types


@blueprint.post("/sql")
def run_sql():
    """Run one read statement under the caller's permissions (variables bound as values)."""
    body = json_body()
    sql = check.text(body, "sql", required=True, max_length=MAX_SQL)
    values, types = _variables(body)
    row_limit = check.integer(body, "row_limit", minimum=1, maximum=MAX_ROW_LIMIT)
    return jsonify(run_for(services(), identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=row_limit, statement_id=check.statement_id(body)))


@blueprint.post("/sql/cancel")
def cancel_sql():
    """Stop the caller's statement that runs under `statement_id`, in whichever worker runs it.

    202 whether or not it still runs (it may have just ended, or not begun yet: then it stops as it
    begins); the run itself answers 409 `query_cancelled`. A person can stop only their own runs.
    """
    statement = check.statement_id(json_body(), required=True)
    cancel(services(), identity(), statement)
    return jsonify({"statement_id": statement}), 202


@blueprint.post("/sql/csv")
def download_sql():
    """The statement's result as a CSV file, under the caller's permissions and the export row bound."""
    body = json_body()
    sql = check.text(body, "sql", required=True, max_length=MAX_SQL)
    values, types = _variables(body)
    workbench = services()
    bound = workbench.settings.workbench_export_row_limit
    row_limit = check.integer(body, "row_limit", minimum=1, maximum=bound)
    result = run_statement(workbench, identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=row_limit, row_ceiling=bound, statement_id=check.statement_id(body))
    return csv_export.response(result, "result")


@blueprint.post("/builder/run")
def run_builder():
    """Run an unsaved builder definition as the caller (the screen's live result)."""
    body = json_body()
    sql, types, values = builder.compile_definition(body.get("builder"))
    row_limit = check.integer(body, "row_limit", minimum=1, maximum=MAX_ROW_LIMIT)
    return jsonify(run_for(services(), identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=row_limit, statement_id=check.statement_id(body)))


@blueprint.post("/builder/sql")
def builder_sql():
    """A builder definition as SQL for the editor: runnable (values as literals), and as a template."""
    sql, types, values = builder.compile_definition(json_body().get("builder"))
    try:
        runnable = format_sql(inline_values(sql, types, values))
    except EngineError as error:
        raise engine_refusal(error) from None
    return jsonify({"sql": runnable, "template": sql, "variable_types": types, "variables": values})


@blueprint.post("/sql/native")
def run_native_sql():
    """Send a statement to one source as written (only with no restriction on that source)."""
    body = json_body()
    catalog = check.text(body, "catalog", required=True, allow_empty=False, max_length=MAX_CATALOG)
    sql = check.text(body, "sql", required=True, allow_empty=False, max_length=MAX_SQL)
    row_limit = check.integer(body, "row_limit", minimum=1, maximum=MAX_ROW_LIMIT)
    return jsonify(native_sql.run_native(services(), identity(), catalog, sql, row_limit=row_limit))


@blueprint.post("/sql/format")
def format_statement():
    body = json_body()
    sql = check.text(body, "sql", required=True, max_length=MAX_SQL)
    try:
        return jsonify({"sql": format_sql(sql)})
    except EngineError as error:
        raise engine_refusal(error) from None


@blueprint.post("/sql/autocomplete")
def autocomplete():
    """Suggestions at a cursor position: only what the caller may see."""
    body = json_body()
    sql = check.text(body, "sql", required=True, max_length=MAX_SQL)
    cursor = check.integer(body, "cursor", default=len(sql), minimum=0, maximum=MAX_SQL)
    session = open_session(services(), identity())
    suggestions = session.engine.complete(sql, min(cursor, len(sql)), session.user)
    return jsonify({"suggestions": [{"label": s.label, "kind": s.kind, "detail": s.detail} for s in suggestions]})


@blueprint.get("/datasources")
def datasources():
    return jsonify({"datasources": schema_browser.datasources(open_session(services(), identity()))})


@blueprint.get("/schema")
def schema():
    catalog = check.query_text(request.args, "catalog")
    search = check.query_text(request.args, "search")
    session = open_session(services(), identity())
    if search:
        return jsonify({"tables": schema_browser.search(session, search)})
    return jsonify({"tables": schema_browser.tables(session, catalog)})


@blueprint.get("/schema/tables/<path:name>")
def describe_table(name):
    table = schema_browser.describe(open_session(services(), identity()), name[:400])
    if table is None:
        raise not_found("Table")
    return jsonify(table)
