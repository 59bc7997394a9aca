"""The question builder's definition (pick a table, filter, summarize, join) compiled to SQL.

The definition is checked by its models (statements/builder_definition.py), which also make its
OpenAPI components; the rules that depend on the operator are checked here, as it compiles.
Names are emitted as quoted identifiers and values as `{{variables}}` bound by the engine, so a
builder definition can never inject SQL; the compiled statement then goes through the same
permission rewrite as any other. Every refusal is a 400 `invalid_input` whose `details.field` names
the part of the definition at fault (`builder.filters[2].value`).

Definition::

    {"table": {"catalog": "warehouse", "schema": "analytics", "table": "events"},
     "join": {"table": {"catalog": "warehouse", "schema": "analytics", "table": "pages"},
              "kind": "inner", "on": [{"left": "page_id", "right": "page_id"}]},
     "filters": [{"column": "country", "operator": "=", "value": "FR"},
                 {"column": "section", "from": "join", "operator": "in", "value": ["blog", "docs"]},
                 {"column": "at", "operator": "relative", "value": {"last": 30, "unit": "day"}}],
     "aggregations": [{"function": "count"}, {"function": "sum", "column": "revenue"}],
     "breakouts": ["page", {"column": "at", "bucket": "month"}, {"column": "section", "from": "join"}],
     "order_by": [{"alias": "count", "direction": "desc"}, {"column": "page"}], "limit": 100}

A column is named by `column`, in the picked table unless `"from": "join"` names the joined one
(filters, breakouts, aggregations, order_by and the join's `right` side alike). With a join, the
picked table is aliased `base` and the joined one `join`, and a joined column's output name is
prefixed `join_`.

Filter operators: `=`, `!=`, `<`, `<=`, `>`, `>=` (a value: text, number or `YYYY-MM-DD` date);
`contains`, `starts with` (text); `in` (a non-empty list of text or numbers, bound as one `list`
variable: `list_contains({{f0}}, col)`); `between` (a list of two values, both ends included);
`is null`, `is not null`; `is empty`, `is not empty` (null or empty text); `relative` with
`{"last": n, "unit": u}` (the n whole units before the current one: "last 30 days" ends at
midnight today) or `{"current": u}` (the unit that contains now), u among hour, day, week, month,
quarter, year. Relative dates are computed by the SQL engine from `current_timestamp` (UTC) when
the statement runs, so a saved question stays relative; n is bound as a number variable.

Breakouts: a column name (plain group by), or `{"column", "from"?, "bucket"?}` where a bucket
(hour ... year) groups by `date_trunc(bucket, col)`, output name `<column>_<bucket>`.
Aggregations: count (no column: rows), count_distinct, sum, avg, min, max; output name
`count` or `<function>_<column>` (`<function>_join_<column>` for a joined column).
order_by: `{"column", "from"?, "direction"?}` or `{"alias": <an output name>, "direction"?}`
(an aggregation's or a bucket's). limit: 1 to 100,000.
segment: a saved segment's id; the picked table's visits are kept when they are in it (the table has
a `visit_id` column: the analytics views visits, events, pageviews, conversions...).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlglot import exp

from workbench_app.engine import DIALECT
from workbench_app.errors import invalid
from workbench_app.statements.builder_definition import (UNITS, BuilderAggregation, BuilderBreakout, BuilderDefinition,
                                                         BuilderFilter, BuilderOrder, BuilderTable, builder_definition)

MAX_LIST = 1_000
MAX_RELATIVE = 100_000
BASE, JOINED = "base", "join"


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect=DIALECT)


def _table(table: BuilderTable) -> str:
    return exp.Table(this=exp.to_identifier(table.table, quoted=True), db=exp.to_identifier(table.schema_, quoted=True),
                     catalog=exp.to_identifier(table.catalog, quoted=True)).sql(dialect=DIALECT)


def _value_type(value: Any, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise invalid("A filter value is text, a number or a date.", field=field)
    if isinstance(value, (int, float)):
        return "number"
    try:
        dt.date.fromisoformat(value)
        return "date"
    except ValueError:
        return "text"


class _Compiler:
    """One definition's compilation: the SQL pieces and the variables they bind."""

    def __init__(self, definition: BuilderDefinition):
        self.definition = definition
        self.types: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self.joined = definition.join is not None

    def bind(self, name: str, kind: str, value: Any) -> str:
        self.types[name], self.values[name] = kind, value
        return "{{" + name + "}}"

    def column(self, name: str, side: str, field: str) -> tuple[str, str]:
        """(SQL of the column, its output name) for a column of the picked (`base`) or joined table."""
        if side == JOINED and not self.joined:
            raise invalid('from "join" needs a join in the definition.', field=f"{field}.from")
        identifier = exp.to_identifier(name, quoted=True)
        if not self.joined:
            return identifier.sql(dialect=DIALECT), name
        sql = exp.Column(this=identifier, table=exp.to_identifier(side, quoted=True)).sql(dialect=DIALECT)
        return sql, name if side == BASE else f"join_{name}"

    def source(self) -> str:
        sql, join = _table(self.definition.table), self.definition.join
        if join is None:
            return sql
        conditions = []
        for index, pair in enumerate(join.on):
            left, _ = self.column(pair.left, BASE, f"builder.join.on[{index}].left")
            right, _ = self.column(pair.right, JOINED, f"builder.join.on[{index}].right")
            conditions.append(f"{left} = {right}")
        return (f"{sql} AS {_quoted(BASE)} {join.kind.upper()} JOIN {_table(join.table)} AS {_quoted(JOINED)} "
                f"ON {' AND '.join(conditions)}")

    def condition(self, index: int, item: BuilderFilter) -> str:
        field = f"builder.filters[{index}]"
        column, _ = self.column(item.column, item.from_, field)
        operator, value, name = item.operator, item.value, f"f{index}"
        if operator in ("is null", "is not null"):
            return f"{column} {operator.upper()}"
        if operator == "is empty":
            return f"({column} IS NULL OR CAST({column} AS VARCHAR) = '')"
        if operator == "is not empty":
            return f"({column} IS NOT NULL AND CAST({column} AS VARCHAR) <> '')"
        if operator == "in":
            return self._one_of(column, name, value, f"{field}.value")
        if operator == "between":
            if not isinstance(value, list) or len(value) != 2:
                raise invalid("between takes a list of two values.", field=f"{field}.value")
            low = self.bind(f"{name}_from", _value_type(value[0], f"{field}.value"), value[0])
            high = self.bind(f"{name}_to", _value_type(value[1], f"{field}.value"), value[1])
            return f"{column} BETWEEN {low} AND {high}"
        if operator == "relative":
            return self._relative(column, name, value, f"{field}.value")
        kind = _value_type(value, f"{field}.value")
        if operator in ("contains", "starts with"):
            if kind == "number":
                raise invalid("contains and starts with take text.", field=f"{field}.value")
            prefix = "'%' || " if operator == "contains" else ""
            return f"CAST({column} AS VARCHAR) LIKE {prefix}{self.bind(name, 'text', value)} || '%'"
        return f"{column} {operator} {self.bind(name, kind, value)}"

    def _one_of(self, column: str, name: str, value: Any, field: str) -> str:
        if not isinstance(value, list) or not 0 < len(value) <= MAX_LIST:
            raise invalid(f"in takes a non-empty list (at most {MAX_LIST} values).", field=field)
        kinds = {_value_type(item, field) for item in value}
        if len(kinds) > 1 and "number" in kinds:
            raise invalid("The values of in are all text or all numbers.", field=field)
        # Dates compare as text against a date column's text form; numbers as numbers.
        target = column if kinds == {"number"} else f"CAST({column} AS VARCHAR)"
        return f"list_contains({self.bind(name, 'list', value)}, {target})"

    def _relative(self, column: str, name: str, value: Any, field: str) -> str:
        if not isinstance(value, dict):
            raise invalid('relative takes {"last": n, "unit": u} or {"current": u}.', field=field)
        now = "CAST(current_timestamp AS TIMESTAMP)"
        if "current" in value:
            unit = value["current"]
            if unit not in UNITS or len(value) != 1:
                raise invalid(f"current is one of {', '.join(UNITS)}.", field=field)
            start = f"date_trunc('{unit}', {now})"
            return f"({column} >= {start} AND {column} < {start} + INTERVAL 1 {unit.upper()})"
        count, unit = value.get("last"), value.get("unit")
        if unit not in UNITS or set(value) != {"last", "unit"}:
            raise invalid(f"unit is one of {', '.join(UNITS)}.", field=field)
        if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= MAX_RELATIVE:
            raise invalid(f"last must be a whole number from 1 to {MAX_RELATIVE}.", field=field)
        end = f"date_trunc('{unit}', {now})"
        amount = self.bind(name, "number", count)
        return f"({column} >= {end} - {amount} * INTERVAL 1 {unit.upper()} AND {column} < {end})"

    def breakout(self, index: int, item: str | BuilderBreakout) -> tuple[str, str]:
        field = f"builder.breakouts[{index}]"
        if isinstance(item, str):
            item = BuilderBreakout(column=item)
        column, output = self.column(item.column, item.from_, field)
        if item.bucket is None:
            # A joined column is named join_<column>, so it never collides with the picked table's.
            return (column if output == item.column else f"{column} AS {_quoted(output)}"), output
        output = f"{output}_{item.bucket}"
        return f"date_trunc('{item.bucket}', {column}) AS {_quoted(output)}", output

    def aggregation(self, index: int, item: BuilderAggregation) -> tuple[str, str]:
        if item.column is None:
            return 'count(*) AS "count"', "count"
        column, output = self.column(item.column, item.from_, f"builder.aggregations[{index}]")
        output = f"{item.function}_{output}"
        call = f"count(DISTINCT {column})" if item.function == "count_distinct" else f"{item.function}({column})"
        return f"{call} AS {_quoted(output)}", output

    def order(self, index: int, item: BuilderOrder, aliases: set[str]) -> str:
        field = f"builder.order_by[{index}]"
        direction = item.direction.upper()
        if item.alias is not None:
            if item.alias not in aliases:
                raise invalid("alias names an aggregation or a time bucket of this definition.",
                              field=f"{field}.alias")
            return f"{_quoted(item.alias)} {direction}"
        return f"{self.column(item.column, item.from_, field)[0]} {direction}"


def compile_definition(value: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Return (SQL with {{variables}}, their types, their values) for a builder definition."""
    definition = builder_definition(value)
    compiler = _Compiler(definition)
    source = compiler.source()
    conditions = [compiler.condition(i, item) for i, item in enumerate(definition.filters)]
    if definition.segment is not None:
        # Expanded into a subquery of visit ids (content/segments.py) when the question runs.
        visit_id = compiler.column("visit_id", BASE, "builder.segment")[0]
        conditions.append(f"{visit_id} IN {compiler.bind('segment', 'segment', definition.segment)}")
    breakouts = [compiler.breakout(i, item) for i, item in enumerate(definition.breakouts)]
    aggregations = [compiler.aggregation(i, item) for i, item in enumerate(definition.aggregations)]
    select = [sql for sql, _ in breakouts + aggregations]
    sql = f"SELECT {', '.join(select) if select else '*'} FROM {source}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    if breakouts and aggregations:
        sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(breakouts)))
    aliases = {output for _, output in aggregations} | {
        output for sql_text, output in breakouts if sql_text.startswith("date_trunc(")}
    orders = [compiler.order(i, item, aliases) for i, item in enumerate(definition.order_by)]
    if orders:
        sql += " ORDER BY " + ", ".join(orders)
    if definition.limit is not None:
        sql += f" LIMIT {definition.limit}"
    return sql, compiler.types, compiler.values
