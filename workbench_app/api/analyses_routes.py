"""Funnels, paths and retention run unsaved (the builder screen's live answer), and their SQL."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app.analyses.compiler import compile_analysis
from workbench_app.analyses.shapes import AnalysisCompile, AnalysisRun
from workbench_app.api.authentication import identity, json_body, origin, services
from workbench_app.content import segments
from workbench_app.engine import EngineError, format_sql, inline_values
from workbench_app.request_shapes import validated
from workbench_app.statements.query_runner import engine_refusal, run_for

blueprint = Blueprint("analyses", __name__)


def _statement(definition):
    """A definition compiled, its segment (if any) expanded as the caller may see it."""
    return segments.expanded(services(), identity(), compile_analysis(definition))


@blueprint.post("/analyses/run")
def run_analysis():
    """Run a definition as the caller, through the statement path (their row filters and columns apply)."""
    run = validated(AnalysisRun, json_body())
    sql, types, values = _statement(run.analysis)
    return jsonify(run_for(services(), identity(), sql, origin=origin(), variables=values, variable_types=types,
                           row_limit=run.row_limit, statement_id=run.statement_id))


@blueprint.post("/analyses/sql")
def analysis_sql():
    """A definition as SQL for the editor: runnable (values as literals), and as a template."""
    sql, types, values = _statement(validated(AnalysisCompile, json_body()).analysis)
    try:
        runnable = format_sql(inline_values(sql, types, values))
    except EngineError as error:
        raise engine_refusal(error) from None
    return jsonify({"sql": runnable, "template": sql, "variable_types": types, "variables": values})
