"""Models (named SQL queries) and metrics (an aggregation of a model's column, by dimensions).

`metric_query` builds `SELECT <dimensions>, <aggregation> FROM (<model SQL>) GROUP BY ...` with
quoted identifiers; it runs through the engine like any statement, so the model's tables keep
the person's row filters and masks.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from sqlglot import exp

from workbench_app.accounts.identity import Identity
from workbench_app.content import folders
from workbench_app.engine import DIALECT
from workbench_app.errors import conflict, invalid, not_found
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import run_for

AGGREGATIONS = ("count", "count_distinct", "sum", "avg", "min", "max")
_MODEL = "model_id, folder_id, name, description, sql_text as sql, created_by, created_at, updated_at"
_METRIC = "m.metric_id, m.model_id, m.name, m.description, m.aggregation, m.column_name as column, m.dimensions, m.created_at"


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect=DIALECT)


def get_model(conn: psycopg.Connection, identity: Identity, model_id: int, level: str = "view") -> dict[str, Any]:
    return folders.filed_item(conn, identity, "models", "model_id", _MODEL, model_id, level, "Model")


def list_models(conn: psycopg.Connection, identity: Identity) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"select {_MODEL} from models order by model_id").fetchall()
    return folders.visible(conn, identity, rows)


def create_model(conn: psycopg.Connection, identity: Identity, *, name: str, sql: str, description: str = "",
                 folder_id: int | None = None) -> dict[str, Any]:
    folder_id = folder_id or folders.personal_folder(conn, identity)
    folders.require(conn, identity, folder_id, "edit")
    model_id = conn.execute(
        "insert into models (folder_id, name, description, sql_text, created_by) values (%s, %s, %s, %s, %s) "
        "returning model_id", (folder_id, name, description, sql, identity.user_id)).fetchone()[0]
    return get_model(conn, identity, model_id)


def update_model(conn: psycopg.Connection, identity: Identity, model_id: int, fields: dict[str, Any]) -> dict[str, Any]:
    current = get_model(conn, identity, model_id, "edit")
    conn.execute("update models set name = %s, description = %s, sql_text = %s, updated_at = now() where model_id = %s",
                 (fields.get("name") or current["name"],
                  fields["description"] if fields.get("description") is not None else current["description"],
                  fields.get("sql") or current["sql"], model_id))
    return get_model(conn, identity, model_id)


def delete_model(conn: psycopg.Connection, identity: Identity, model_id: int) -> None:
    get_model(conn, identity, model_id, "edit")
    conn.execute("delete from models where model_id = %s", (model_id,))


def _metric_row(conn: psycopg.Connection, where: str, value: Any) -> dict[str, Any] | None:
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_METRIC} from metrics m where {where}", (value,)).fetchone()


def get_metric(conn: psycopg.Connection, identity: Identity, metric_id: int) -> dict[str, Any]:
    metric = _metric_row(conn, "m.metric_id = %s", metric_id)
    if metric is None:
        raise not_found("Metric")
    get_model(conn, identity, metric["model_id"])
    return metric


def metric_by_name(conn: psycopg.Connection, identity: Identity, name: str) -> dict[str, Any]:
    metric = _metric_row(conn, "lower(m.name) = lower(%s)", name)
    if metric is None:
        raise not_found("Metric")
    get_model(conn, identity, metric["model_id"])
    return metric


def list_metrics(conn: psycopg.Connection, identity: Identity) -> list[dict[str, Any]]:
    visible = {model["model_id"]: model["name"] for model in list_models(conn, identity)}
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"select {_METRIC} from metrics m order by m.metric_id").fetchall()
    return [{**row, "model": visible[row["model_id"]]} for row in rows if row["model_id"] in visible]


def create_metric(conn: psycopg.Connection, identity: Identity, *, model_id: int, name: str, aggregation: str,
                  column: str | None, dimensions: list[str], description: str = "") -> dict[str, Any]:
    get_model(conn, identity, model_id, "edit")
    if aggregation not in AGGREGATIONS:
        raise invalid(f"aggregation must be one of {', '.join(AGGREGATIONS)}.", field="aggregation")
    if column is None and aggregation != "count":
        raise invalid("column is required for this aggregation.", field="column")
    if conn.execute("select 1 from metrics where lower(name) = lower(%s)", (name,)).fetchone():
        raise conflict("A metric with this name exists already.", field="name")
    metric_id = conn.execute(
        """insert into metrics (model_id, name, description, aggregation, column_name, dimensions, created_by)
           values (%s, %s, %s, %s, %s, %s, %s) returning metric_id""",
        (model_id, name, description, aggregation, column, dimensions, identity.user_id)).fetchone()[0]
    return get_metric(conn, identity, metric_id)


def delete_metric(conn: psycopg.Connection, identity: Identity, metric_id: int) -> None:
    metric = get_metric(conn, identity, metric_id)
    get_model(conn, identity, metric["model_id"], "edit")
    conn.execute("delete from metrics where metric_id = %s", (metric_id,))


def metric_sql(model_sql: str, metric: dict[str, Any], dimensions: list[str]) -> str:
    unknown = [d for d in dimensions if d.lower() not in {x.lower() for x in metric["dimensions"]}]
    if unknown:
        raise invalid(f"Not a dimension of this metric: {', '.join(unknown)}.", field="dimensions",
                      allowed=metric["dimensions"])
    aggregation, column = metric["aggregation"], metric["column"]
    if aggregation == "count" and not column:
        call = "count(*)"
    elif aggregation == "count_distinct":
        call = f"count(DISTINCT {_quoted(column)})"
    else:
        call = f"{aggregation}({_quoted(column)})"
    select = [_quoted(d) for d in dimensions] + [f"{call} AS {_quoted(metric['name'])}"]
    # The newline ends a trailing `--` comment of the model's SQL.
    sql = f"SELECT {', '.join(select)} FROM (\n{model_sql}\n) AS wb_model"
    if dimensions:
        sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(dimensions)))
        sql += " ORDER BY " + ", ".join(str(i + 1) for i in range(len(dimensions)))
    return sql


def query_metric(services: WorkbenchServices, identity: Identity, metric: int | str, dimensions: list[str], *,
                 origin: str, row_limit: int | None = None) -> dict[str, Any]:
    """Compute a metric by some of its dimensions, under the person's own rights."""
    with services.transaction() as conn:
        found = (get_metric(conn, identity, metric) if isinstance(metric, int)
                 else metric_by_name(conn, identity, metric))
        model = get_model(conn, identity, found["model_id"])
    result = run_for(services, identity, metric_sql(model["sql"], found, dimensions), origin=origin,
                     row_limit=row_limit)
    result["metric"] = found["name"]
    return result
