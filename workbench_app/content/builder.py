"""The question builder's definition (pick a table, filter, summarize) compiled to SQL.

Names are emitted as quoted identifiers and values as `{{variables}}` bound by the engine, so a
builder definition can never inject SQL; the compiled statement then goes through the same
permission rewrite as any other.

Definition::

    {"table": {"catalog": "warehouse", "schema": "analytics", "table": "events"},
     "filters": [{"column": "country", "operator": "=", "value": "FR"}],
     "aggregations": [{"function": "count"}, {"function": "sum", "column": "revenue"}],
     "breakouts": ["page"], "order_by": [{"column": "page", "direction": "asc"}], "limit": 100}
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlglot import exp

from workbench_app.engine import DIALECT
from workbench_app.errors import invalid

OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "is null", "is not null", "contains", "starts with")
FUNCTIONS = ("count", "count_distinct", "sum", "avg", "min", "max")
MAX_LIMIT = 100_000


def _identifier(value: Any, what: str) -> exp.Identifier:
    if not isinstance(value, str) or not value or len(value) > 128 or "\x00" in value:
        raise invalid(f"{what} must be a non-empty name.", field=what)
    return exp.to_identifier(value, quoted=True)


def _column(value: Any) -> exp.Column:
    return exp.Column(this=_identifier(value, "column"))


def _value_type(value: Any) -> str:
    if isinstance(value, bool):
        raise invalid("A filter value is text, a number or a date.")
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        try:
            dt.date.fromisoformat(value)
            return "date"
        except ValueError:
            return "text"
    raise invalid("A filter value is text, a number or a date.")


def compile_definition(definition: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Return (SQL with {{variables}}, their types, their values) for a builder definition."""
    if not isinstance(definition, dict):
        raise invalid("builder must be a JSON object.", field="builder")
    table = definition.get("table")
    if not isinstance(table, dict):
        raise invalid("builder.table must be an object with catalog, schema and table.", field="builder.table")
    source = exp.Table(this=_identifier(table.get("table"), "table"), db=_identifier(table.get("schema"), "schema"),
                       catalog=_identifier(table.get("catalog"), "catalog"))
    types: dict[str, str] = {}
    values: dict[str, Any] = {}
    conditions: list[str] = []
    filters = definition.get("filters") or []
    if not isinstance(filters, list) or len(filters) > 50:
        raise invalid("builder.filters must be a list (at most 50).", field="builder.filters")
    for index, item in enumerate(filters):
        if not isinstance(item, dict) or item.get("operator") not in OPERATORS:
            raise invalid(f"Each filter has a column and an operator among {', '.join(OPERATORS)}.",
                          field=f"builder.filters[{index}]")
        column = _column(item.get("column")).sql(dialect=DIALECT)
        operator = item["operator"]
        if operator in ("is null", "is not null"):
            conditions.append(f"{column} {operator.upper()}")
            continue
        name = f"f{index}"
        value = item.get("value")
        kind = _value_type(value)
        if operator in ("contains", "starts with"):
            if kind == "number":
                raise invalid("contains and starts with take text.", field=f"builder.filters[{index}]")
            kind = "text"
            prefix = "'%' || " if operator == "contains" else ""
            conditions.append(f"CAST({column} AS VARCHAR) LIKE {prefix}{{{{{name}}}}} || '%'")
        else:
            conditions.append(f"{column} {operator} {{{{{name}}}}}")
        types[name], values[name] = kind, value
    breakouts = definition.get("breakouts") or []
    aggregations = definition.get("aggregations") or []
    if not isinstance(breakouts, list) or not isinstance(aggregations, list) or len(breakouts) > 20 or len(aggregations) > 20:
        raise invalid("builder.breakouts and builder.aggregations must be lists (at most 20).")
    select: list[str] = [_column(name).sql(dialect=DIALECT) for name in breakouts]
    for index, item in enumerate(aggregations):
        if not isinstance(item, dict) or item.get("function") not in FUNCTIONS:
            raise invalid(f"Each aggregation has a function among {', '.join(FUNCTIONS)}.",
                          field=f"builder.aggregations[{index}]")
        function = item["function"]
        if function == "count" and item.get("column") is None:
            select.append('count(*) AS "count"')
            continue
        column = _column(item.get("column")).sql(dialect=DIALECT)
        alias = exp.to_identifier(f"{function}_{item['column']}", quoted=True).sql(dialect=DIALECT)
        call = f"count(DISTINCT {column})" if function == "count_distinct" else f"{function}({column})"
        select.append(f"{call} AS {alias}")
    sql = f"SELECT {', '.join(select) if select else '*'} FROM {source.sql(dialect=DIALECT)}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    if breakouts and aggregations:
        sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(breakouts)))
    order_by = definition.get("order_by") or []
    if not isinstance(order_by, list) or len(order_by) > 20:
        raise invalid("builder.order_by must be a list.", field="builder.order_by")
    orders = []
    for item in order_by:
        if not isinstance(item, dict) or item.get("direction", "asc") not in ("asc", "desc"):
            raise invalid("Each order_by has a column and a direction asc or desc.", field="builder.order_by")
        orders.append(f"{_column(item.get('column')).sql(dialect=DIALECT)} {item.get('direction', 'asc').upper()}")
    if orders:
        sql += " ORDER BY " + ", ".join(orders)
    limit = definition.get("limit")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= MAX_LIMIT:
            raise invalid(f"builder.limit must be a whole number from 1 to {MAX_LIMIT}.", field="builder.limit")
        sql += f" LIMIT {limit}"
    return sql, types, values
