"""The SQL endpoint, formatting, autocomplete and the schema as the caller may see it."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, origin, services
from workbench_app.content import builder, segments
from workbench_app.engine import EngineError, format_sql, inline_values
from workbench_app.errors import not_found
from workbench_app.request_shapes import validated, validated_query
from workbench_app.statements import csv_export, native_sql, schema_browser
from workbench_app.statements.query_runner import cancel, engine_refusal, open_session, run_for, run_statement
from workbench_app.statements.shapes import (SchemaQuery, BuilderCompile, BuilderRun, NativeSql, SqlAutocomplete, SqlDownload, SqlRun,
                                             SqlToFormat, StatementCancel)

blueprint = Blueprint("query", __name__)


@blueprint.post("/sql")
def run_sql():
    """Run one read statement under the caller's permissions (variables bound as values)."""
    run = validated(SqlRun, json_body())
    return jsonify(run_for(services(), identity(), run.sql, origin=origin(), variables=run.variables,
                           variable_types=run.variable_types, row_limit=run.row_limit,
                           statement_id=run.statement_id))


@blueprint.post("/sql/cancel")
def cancel_sql():
    """Stop the caller's statement that runs under `statement_id`, in whichever worker runs it.

    202 whether or not it still runs (it may have just ended, or not begun yet: then it stops as it
    begins); the run itself answers 409 `query_cancelled`. A person can stop only their own runs.
    """
    statement = validated(StatementCancel, json_body()).statement_id
    cancel(services(), identity(), statement)
    return jsonify({"statement_id": statement}), 202


@blueprint.post("/sql/csv")
def download_sql():
    """The statement's result as a CSV file, under the caller's permissions and the export row bound."""
    run = validated(SqlDownload, json_body())
    workbench = services()
    bound = workbench.settings.workbench_export_row_limit
    # The bound is a setting, so the model cannot state it: the same refusal as the model's.
    row_limit = check.integer({"row_limit": run.row_limit}, "row_limit", minimum=1, maximum=bound, nullable=True)
    result = run_statement(workbench, identity(), run.sql, origin=origin(), variables=run.variables,
                           variable_types=run.variable_types, row_limit=row_limit, row_ceiling=bound,
                           statement_id=run.statement_id)
    return csv_export.response(result, "result")


def _builder_statement(definition):
    """A builder definition compiled, its segment (if any) expanded as the caller may see it."""
    return segments.expanded(services(), identity(), builder.compile_definition(definition))


@blueprint.post("/builder/run")
def run_builder():
    """Run an unsaved builder definition as the caller (the screen's live result)."""
    run = validated(BuilderRun, json_body())
    sql, types, values = _builder_statement(run.builder)
    return jsonify(run_for(services(), identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=run.row_limit, statement_id=run.statement_id))


@blueprint.post("/builder/sql")
def builder_sql():
    """A builder definition as SQL for the editor: runnable (values as literals), and as a template."""
    sql, types, values = _builder_statement(validated(BuilderCompile, json_body()).builder)
    try:
        runnable = format_sql(inline_values(sql, types, values))
    except EngineError as error:
        raise engine_refusal(error) from None
    return jsonify({"sql": runnable, "template": sql, "variable_types": types, "variables": values})


@blueprint.post("/sql/native")
def run_native_sql():
    """Send a statement to one source as written (only with no restriction on that source)."""
    run = validated(NativeSql, json_body())
    return jsonify(native_sql.run_native(services(), identity(), run.catalog, run.sql, row_limit=run.row_limit))


@blueprint.post("/sql/format")
def format_statement():
    sql = validated(SqlToFormat, json_body()).sql
    try:
        return jsonify({"sql": format_sql(sql)})
    except EngineError as error:
        raise engine_refusal(error) from None


@blueprint.post("/sql/autocomplete")
def autocomplete():
    """Suggestions at a cursor position: only what the caller may see."""
    asked = validated(SqlAutocomplete, json_body())
    sql = asked.sql
    cursor = len(sql) if asked.cursor is None else asked.cursor
    session = open_session(services(), identity())
    suggestions = session.engine.complete(sql, min(cursor, len(sql)), session.user)
    return jsonify({"suggestions": [{"label": s.label, "kind": s.kind, "detail": s.detail} for s in suggestions]})


@blueprint.get("/datasources")
def datasources():
    return jsonify({"datasources": schema_browser.datasources(open_session(services(), identity()))})


@blueprint.get("/schema")
def schema():
    query = validated_query(SchemaQuery, request.args)
    session = open_session(services(), identity())
    if query.search:
        return jsonify({"tables": schema_browser.search(session, query.search)})
    return jsonify({"tables": schema_browser.tables(session, query.catalog)})


@blueprint.get("/schema/tables/<path:name>")
def describe_table(name):
    table = schema_browser.describe(open_session(services(), identity()), name[:400])
    if table is None:
        raise not_found("Table")
    return jsonify(table)
