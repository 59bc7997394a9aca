"""The workbench's reading tools, written once for the agent tool server and the AI assistant.

Each tool takes a `ToolCaller` (who asks, from where) and its arguments, and acts through the same
functions as `/api/v1`: the engine's permission rewrite for data, folder access for saved content.
None of them changes anything. A refusal is a `WorkbenchError` with the API's message; each entry
point turns it into its own kind of tool error. The argument schema each entry point publishes is
derived from these signatures (by the MCP SDK's own function inspection), so it cannot drift.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, models_metrics, questions
from workbench_app.engine import jsonable
from workbench_app.errors import WorkbenchError
from workbench_app.services import WorkbenchServices
from workbench_app.statements import schema_browser
from workbench_app.statements.query_runner import open_session, run_for

DEFAULT_ROWS = 200
MAX_ROWS = 5000
CHART_MARKS = ("bar", "line", "area", "point")


@dataclass(frozen=True)
class ToolCaller:
    """The person a tool runs for, and the query history's origin of what it runs."""

    services: WorkbenchServices
    identity: Identity
    origin: str


def _rows(limit: int | None) -> int:
    return max(1, min(limit or DEFAULT_ROWS, MAX_ROWS))


def _as_records(result: dict[str, Any]) -> list[dict[str, Any]]:
    names = [column["name"] for column in result["columns"]]
    return [dict(zip(names, row)) for row in result["rows"]]


def list_datasources(caller: ToolCaller) -> dict[str, Any]:
    """Catalogs (sources) you may read, with how many tables of each you can see."""
    return {"datasources": schema_browser.datasources(open_session(caller.services, caller.identity))}


def search_schema(caller: ToolCaller, query: str) -> dict[str, Any]:
    """Find tables and columns whose name or description contains `query`."""
    return {"tables": schema_browser.search(open_session(caller.services, caller.identity), query[:200])}


def describe_table(caller: ToolCaller, table: str) -> dict[str, Any]:
    """Columns (with types, descriptions, and whether masked) of `table` (`schema.table` or `catalog.schema.table`)."""
    found = schema_browser.describe(open_session(caller.services, caller.identity), table[:400])
    if found is None:
        raise WorkbenchError(404, "table_not_found", "Table not found.")
    return found


def list_metrics(caller: ToolCaller) -> dict[str, Any]:
    """Metrics defined on models you may see, with their dimensions."""
    with caller.services.transaction() as conn:
        return {"metrics": models_metrics.list_metrics(conn, caller.identity)}


def query_metric(caller: ToolCaller, metric: str, dimensions: list[str] | None = None,
                 limit: int | None = None) -> dict[str, Any]:
    """Compute a metric (by name), optionally grouped by some of its dimensions."""
    return models_metrics.query_metric(caller.services, caller.identity, metric, dimensions or [],
                                       origin=caller.origin, row_limit=_rows(limit))


def list_questions(caller: ToolCaller, search: str | None = None) -> dict[str, Any]:
    """Saved questions you may see (optionally those whose name or description contains `search`)."""
    with caller.services.transaction() as conn:
        found = questions.list_questions(conn, caller.identity, None, (search or "")[:200] or None)
    return {"questions": [{"question_id": q["question_id"], "name": q["name"], "description": q["description"],
                           "kind": q["kind"], "variables": q["variables"]} for q in found]}


def run_question(caller: ToolCaller, question_id: int, variables: dict[str, Any] | None = None,
                 limit: int | None = None) -> dict[str, Any]:
    """Run a saved question with optional variable values."""
    return questions.run_question(caller.services, caller.identity, question_id, origin=caller.origin,
                                  variables=variables or {}, row_limit=_rows(limit))


def run_sql(caller: ToolCaller, sql: str, limit: int | None = None) -> dict[str, Any]:
    """Run one read-only SQL statement (DuckDB dialect) over the catalogs you may read."""
    return run_for(caller.services, caller.identity, sql, origin=caller.origin, row_limit=_rows(limit))


def get_dashboard(caller: ToolCaller, dashboard_id: int, include_data: bool = True) -> dict[str, Any]:
    """A dashboard's tabs, cards and filters; with `include_data`, each question card's rows (first 100)."""
    with caller.services.transaction() as conn:
        dashboard = dashboards.get_dashboard(conn, caller.identity, dashboard_id)
    if include_data:
        for card in dashboard["cards"]:
            if card["kind"] != "question":
                continue
            try:
                card["data"] = dashboards.run_card(caller.services, caller.identity, dashboard_id, card["card_id"],
                                                   {}, origin=caller.origin, row_limit=100)
            except WorkbenchError as error:
                card["error"] = error.as_dict()
    return jsonable(dashboard)


def chart_result(caller: ToolCaller, sql: str, x: str, y: str, mark: str = "bar",
                 color: str | None = None) -> dict[str, Any]:
    """`show_chart`'s checked run: the result and the encoding's Vega-Lite types by field."""
    if mark not in CHART_MARKS:
        raise WorkbenchError(400, "invalid_input", f"mark must be one of {', '.join(CHART_MARKS)}.")
    result = run_for(caller.services, caller.identity, sql, origin=caller.origin, row_limit=MAX_ROWS)
    names = [column["name"] for column in result["columns"]]
    types = {column["name"]: column["type"] for column in result["columns"]}
    for field in (x, y, color):
        if field is not None and field not in names:
            raise WorkbenchError(400, "invalid_input", f"{field!r} is not a column of the result.",
                                 {"columns": names})
    return {"result": result, "types": {field: _vega_type(types[field]) for field in (x, y, color) if field}}


def show_chart(caller: ToolCaller, sql: str, x: str, y: str, mark: str = "bar", color: str | None = None,
               title: str | None = None) -> dict[str, Any]:
    """Run SQL and return a Vega-Lite chart (mark bar, line, area or point) with its data."""
    checked = chart_result(caller, sql, x, y, mark, color)
    result, types = checked["result"], checked["types"]
    encoding = {"x": {"field": x, "type": types[x]}, "y": {"field": y, "type": types[y]}}
    if color:
        encoding["color"] = {"field": color, "type": types[color]}
    spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": {"type": mark, "tooltip": True},
            "data": {"values": _as_records(result)}, "encoding": encoding}
    if title:
        spec["title"] = title
    return {"spec": spec, "row_count": result["row_count"], "truncated": result["truncated"]}


def _vega_type(duckdb_type: str) -> str:
    upper = duckdb_type.upper()
    if any(word in upper for word in ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "NUMERIC", "HUGEINT")):
        return "quantitative"
    if "DATE" in upper or "TIME" in upper:
        return "temporal"
    return "nominal"


# Every tool, by the name both entry points publish.
TOOLS: dict[str, Callable[..., dict[str, Any]]] = {tool.__name__: tool for tool in (
    list_datasources, search_schema, describe_table, list_metrics, query_metric, list_questions, run_question,
    run_sql, get_dashboard, show_chart)}
