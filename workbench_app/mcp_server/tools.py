"""The tools of the agent tool server, each run under the API token owner's permissions.

Every tool acts as the person whose token authenticated the HTTP request (put in the request
state by `authentication.BearerTokenMiddleware`), through the same functions as `/api/v1`: the
engine's permission rewrite for data, folder access for saved content. Refusals come back as
tool errors with the same messages as the API.
"""
from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from workbench_app import schema_browser
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, models_metrics, questions
from workbench_app.engine import jsonable
from workbench_app.errors import WorkbenchError
from workbench_app.query_runner import open_session, run_for
from workbench_app.services import WorkbenchServices

ORIGIN = "tool_server"
DEFAULT_ROWS = 200
MAX_ROWS = 5000
CHART_MARKS = ("bar", "line", "area", "point")


def caller(ctx: Context) -> Identity:
    identity = getattr(ctx.request_context.request.state, "workbench_identity", None)
    if identity is None:  # the middleware refuses unauthenticated requests before this point
        raise ToolError("Not authenticated.")
    return identity


def _rows(limit: int | None) -> int:
    return max(1, min(limit or DEFAULT_ROWS, MAX_ROWS))


def _as_records(result: dict[str, Any]) -> list[dict[str, Any]]:
    names = [column["name"] for column in result["columns"]]
    return [dict(zip(names, row)) for row in result["rows"]]


def build_tool_server(services: WorkbenchServices) -> MCPServer:
    """The MCP server with the ten workbench tools bound to one worker's services."""
    server = MCPServer("audience-analytics-workbench", version="1.0.0",
                       instructions="Read-only access to the audience analytics workbench under your own "
                                    "permissions: explore the schema, run SQL (DuckDB dialect), metrics, saved "
                                    "questions and dashboards, and draw charts.")

    def guarded(work):
        try:
            return work()
        except WorkbenchError as error:
            raise ToolError(f"{error.code}: {error.message}") from None

    @server.tool()
    def list_datasources(ctx: Context) -> dict[str, Any]:
        """Catalogs (sources) you may read, with how many tables of each you can see."""
        return guarded(lambda: {"datasources": schema_browser.datasources(open_session(services, caller(ctx)))})

    @server.tool()
    def search_schema(query: str, ctx: Context) -> dict[str, Any]:
        """Find tables and columns whose name or description contains `query`."""
        return guarded(lambda: {"tables": schema_browser.search(open_session(services, caller(ctx)), query[:200])})

    @server.tool()
    def describe_table(table: str, ctx: Context) -> dict[str, Any]:
        """Columns (with types, descriptions, and whether masked) of `table` (`schema.table` or `catalog.schema.table`)."""
        def work():
            found = schema_browser.describe(open_session(services, caller(ctx)), table[:400])
            if found is None:
                raise WorkbenchError(404, "table_not_found", "Table not found.")
            return found
        return guarded(work)

    @server.tool()
    def list_metrics(ctx: Context) -> dict[str, Any]:
        """Metrics defined on models you may see, with their dimensions."""
        def work():
            with services.transaction() as conn:
                return {"metrics": models_metrics.list_metrics(conn, caller(ctx))}
        return guarded(work)

    @server.tool()
    def query_metric(metric: str, ctx: Context, dimensions: list[str] | None = None,
                     limit: int | None = None) -> dict[str, Any]:
        """Compute a metric (by name), optionally grouped by some of its dimensions."""
        return guarded(lambda: models_metrics.query_metric(services, caller(ctx), metric, dimensions or [],
                                                          origin=ORIGIN, row_limit=_rows(limit)))

    @server.tool()
    def list_questions(ctx: Context, search: str | None = None) -> dict[str, Any]:
        """Saved questions you may see (optionally those whose name or description contains `search`)."""
        def work():
            with services.transaction() as conn:
                found = questions.list_questions(conn, caller(ctx), None, (search or "")[:200] or None)
            return {"questions": [{"question_id": q["question_id"], "name": q["name"], "description": q["description"],
                                   "kind": q["kind"], "variables": q["variables"]} for q in found]}
        return guarded(work)

    @server.tool()
    def run_question(question_id: int, ctx: Context, variables: dict[str, Any] | None = None,
                     limit: int | None = None) -> dict[str, Any]:
        """Run a saved question with optional variable values."""
        return guarded(lambda: questions.run_question(services, caller(ctx), question_id, origin=ORIGIN,
                                                      variables=variables or {}, row_limit=_rows(limit)))

    @server.tool()
    def run_sql(sql: str, ctx: Context, limit: int | None = None) -> dict[str, Any]:
        """Run one read-only SQL statement (DuckDB dialect) over the catalogs you may read."""
        return guarded(lambda: run_for(services, caller(ctx), sql, origin=ORIGIN, row_limit=_rows(limit)))

    @server.tool()
    def get_dashboard(dashboard_id: int, ctx: Context, include_data: bool = True) -> dict[str, Any]:
        """A dashboard's tabs, cards and filters; with `include_data`, each question card's rows (first 100)."""
        def work():
            who = caller(ctx)
            with services.transaction() as conn:
                dashboard = dashboards.get_dashboard(conn, who, dashboard_id)
            if include_data:
                for card in dashboard["cards"]:
                    if card["kind"] != "question":
                        continue
                    try:
                        card["data"] = dashboards.run_card(services, who, dashboard_id, card["card_id"], {},
                                                           origin=ORIGIN, row_limit=100)
                    except WorkbenchError as error:
                        card["error"] = error.as_dict()
            return jsonable(dashboard)
        return guarded(work)

    @server.tool()
    def show_chart(sql: str, x: str, y: str, ctx: Context, mark: str = "bar", color: str | None = None,
                   title: str | None = None) -> dict[str, Any]:
        """Run SQL and return a Vega-Lite chart (mark bar, line, area or point) with its data."""
        def work():
            if mark not in CHART_MARKS:
                raise WorkbenchError(400, "invalid_input", f"mark must be one of {', '.join(CHART_MARKS)}.")
            result = run_for(services, caller(ctx), sql, origin=ORIGIN, row_limit=MAX_ROWS)
            names = [column["name"] for column in result["columns"]]
            types = {column["name"]: column["type"] for column in result["columns"]}
            for field in (x, y, color):
                if field is not None and field not in names:
                    raise WorkbenchError(400, "invalid_input", f"{field!r} is not a column of the result.",
                                         {"columns": names})
            encoding = {"x": {"field": x, "type": _vega_type(types[x])},
                        "y": {"field": y, "type": _vega_type(types[y])}}
            if color:
                encoding["color"] = {"field": color, "type": _vega_type(types[color])}
            spec = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json", "mark": {"type": mark, "tooltip": True},
                    "data": {"values": _as_records(result)}, "encoding": encoding}
            if title:
                spec["title"] = title
            return {"spec": spec, "row_count": result["row_count"], "truncated": result["truncated"]}
        return guarded(work)

    return server


def _vega_type(duckdb_type: str) -> str:
    upper = duckdb_type.upper()
    if any(word in upper for word in ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "NUMERIC", "HUGEINT")):
        return "quantitative"
    if "DATE" in upper or "TIME" in upper:
        return "temporal"
    return "nominal"
