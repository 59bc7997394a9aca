"""The question builder's definition (pick a table, filter, summarize, join) compiled to SQL.

Names are emitted as quoted identifiers and values as `{{variables}}` bound by the engine, so a
builder definition can never inject SQL; the compiled statement then goes through the same
permission rewrite as any other.

Definition::

    {"table": {"catalog": "warehouse", "schema": "analytics", "table": "visits"},
     "join": {"table": {...}, "kind": "inner" | "left", "on": [{"left": "visit_id", "right": "visit_id"}]},
     "filters": [{"column": "country", "operator": "=", "value": "FR"},
                 {"column": "channel", "operator": "in", "value": ["Email", "Direct"]},
                 {"column": "pages", "operator": "between", "value": [2, 10]},
                 {"column": "visit_start", "operator": "relative", "value": {"last": 30, "unit": "day"}},
                 {"column": "join.source", "operator": "is empty"}],
     "aggregations": [{"function": "count"}, {"function": "sum", "column": "revenue"}],
     "breakouts": ["channel", {"column": "visit_start", "bucket": "month"}],
     "order_by": [{"column": "count", "direction": "desc"}], "limit": 100}

A column is named as it is in the picked table, or `join.<name>` for the joined table's (only
when the definition has a join). The result's columns are the breakouts (a bucketed one is
`<column>_<bucket>`) then the aggregations (`count`, `<function>_<column>`); `order_by` names
one of those, or any column when nothing is summarized. Relative dates are computed by the
engine from the current time (`last` N units up to now).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from workbench_app.engine import DIALECT, bind_variables
from workbench_app.errors import invalid

OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "between", "contains", "starts with", "relative",
             "is empty", "is not empty", "is null", "is not null")
FUNCTIONS = ("count", "count_distinct", "sum", "avg", "min", "max")
BUCKETS = ("hour", "day", "week", "month", "quarter", "year")
# A relative range in units DuckDB's interval literals know (a quarter is three months).
_INTERVALS = {"hour": ("HOUR", 1), "day": ("DAY", 1), "week": ("DAY", 7), "month": ("MONTH", 1),
              "quarter": ("MONTH", 3), "year": ("YEAR", 1)}
MAX_LIMIT = 100_000
MAX_LIST = 1000
JOIN_PREFIX = "join."


def _identifier(value: Any, what: str) -> exp.Identifier:
    if not isinstance(value, str) or not value or len(value) > 128 or "\x00" in value:
        raise invalid(f"{what} must be a non-empty name.", field=what)
    return exp.to_identifier(value, quoted=True)


def _table(value: Any, what: str) -> exp.Table:
    if not isinstance(value, dict):
        raise invalid(f"{what} must be an object with catalog, schema and table.", field=what)
    return exp.Table(this=_identifier(value.get("table"), f"{what}.table"),
                     db=_identifier(value.get("schema"), f"{what}.schema"),
                     catalog=_identifier(value.get("catalog"), f"{what}.catalog"))


def _value_type(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise invalid("A filter value is text, a number or a date.", field=where)
    if isinstance(value, (int, float)):
        return "number"
    try:
        dt.date.fromisoformat(value)
        return "date"
    except ValueError:
        return "text"


@dataclass
class _Compiler:
    joined: bool
    types: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    def column(self, ref: Any, where: str) -> str:
        """A column reference as SQL: `t0."name"` for the picked table, `t1."name"` for the joined one."""
        if isinstance(ref, str) and self.joined and ref.startswith(JOIN_PREFIX):
            return f"t1.{_identifier(ref[len(JOIN_PREFIX):], where).sql(dialect=DIALECT)}"
        return f"t0.{_identifier(ref, where).sql(dialect=DIALECT)}"

    def bind(self, name: str, value: Any, where: str, kind: str | None = None) -> str:
        self.types[name] = kind or _value_type(value, where)
        self.values[name] = value
        return "{{" + name + "}}"

    def condition(self, index: int, item: Any) -> str:
        where = f"builder.filters[{index}]"
        if not isinstance(item, dict) or item.get("operator") not in OPERATORS:
            raise invalid(f"Each filter has a column and an operator among {', '.join(OPERATORS)}.", field=where)
        column = self.column(item.get("column"), f"{where}.column")
        operator, value, name = item["operator"], item.get("value"), f"f{index}"
        if operator in ("is null", "is not null"):
            return f"{column} {operator.upper()}"
        if operator == "is empty":
            return f"({column} IS NULL OR CAST({column} AS VARCHAR) = '')"
        if operator == "is not empty":
            return f"({column} IS NOT NULL AND CAST({column} AS VARCHAR) <> '')"
        if operator == "relative":
            return f"{column} >= now() - {self.interval(value, where)}"
        if operator == "in":
            if not isinstance(value, list) or not 0 < len(value) <= MAX_LIST:
                raise invalid(f"'in' takes a list of 1 to {MAX_LIST} values.", field=f"{where}.value")
            kinds = {_value_type(v, f"{where}.value") for v in value}
            kind = kinds.pop() if len(kinds) == 1 else "text"
            if kind == "text":
                value = [str(v) for v in value]
            return f"{column} IN ({', '.join(self.bind(f'{name}_{i}', v, where, kind) for i, v in enumerate(value))})"
        if operator == "between":
            if not isinstance(value, list) or len(value) != 2:
                raise invalid("'between' takes two values: [from, to].", field=f"{where}.value")
            return f"{column} BETWEEN {self.bind(f'{name}_from', value[0], where)} AND {self.bind(f'{name}_to', value[1], where)}"
        if operator in ("contains", "starts with"):
            if _value_type(value, where) == "number":
                raise invalid("contains and starts with take text.", field=f"{where}.value")
            prefix = "'%' || " if operator == "contains" else ""
            return f"CAST({column} AS VARCHAR) LIKE {prefix}{self.bind(name, value, where, 'text')} || '%'"
        return f"{column} {operator} {self.bind(name, value, where)}"

    @staticmethod
    def interval(value: Any, where: str) -> str:
        if not isinstance(value, dict) or value.get("unit") not in _INTERVALS:
            raise invalid(f"A relative date is {{\"last\": N, \"unit\": one of {', '.join(_INTERVALS)}}}.",
                          field=f"{where}.value")
        last = value.get("last")
        if isinstance(last, bool) or not isinstance(last, int) or not 0 < last <= 100_000:
            raise invalid("last must be a whole number from 1 to 100000.", field=f"{where}.value.last")
        unit, times = _INTERVALS[value["unit"]]
        return f"INTERVAL {last * times} {unit}"  # a validated whole number: no value of the caller's text


def _listed(definition: dict, key: str, maximum: int) -> list:
    items = definition.get(key) or []
    if not isinstance(items, list) or len(items) > maximum:
        raise invalid(f"builder.{key} must be a list (at most {maximum}).", field=f"builder.{key}")
    return items


def compile_definition(definition: Any) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Return (SQL with {{variables}}, their types, their values) for a builder definition."""
    if not isinstance(definition, dict):
        raise invalid("builder must be a JSON object.", field="builder")
    source = f"{_table(definition.get('table'), 'builder.table').sql(dialect=DIALECT)} AS t0"
    join = definition.get("join")
    compiler = _Compiler(joined=join is not None)
    if join is not None:
        if not isinstance(join, dict) or join.get("kind", "inner") not in ("inner", "left"):
            raise invalid("builder.join has a table, a kind (inner or left) and pairs of columns in on.",
                          field="builder.join")
        pairs = join.get("on")
        if not isinstance(pairs, list) or not 0 < len(pairs) <= 10 or not all(isinstance(p, dict) for p in pairs):
            raise invalid("builder.join.on is a list of 1 to 10 {left, right} column pairs.", field="builder.join.on")
        on = " AND ".join(
            f"t0.{_identifier(p.get('left'), 'builder.join.on.left').sql(dialect=DIALECT)} = "
            f"t1.{_identifier(p.get('right'), 'builder.join.on.right').sql(dialect=DIALECT)}" for p in pairs)
        kind = "LEFT JOIN" if join.get("kind") == "left" else "JOIN"
        source += f" {kind} {_table(join.get('table'), 'builder.join.table').sql(dialect=DIALECT)} AS t1 ON {on}"

    conditions = [compiler.condition(i, item) for i, item in enumerate(_listed(definition, "filters", 50))]
    select: list[str] = []
    aliases: list[str] = []
    for index, item in enumerate(_listed(definition, "breakouts", 20)):
        where = f"builder.breakouts[{index}]"
        if isinstance(item, dict):
            if item.get("bucket") not in BUCKETS:
                raise invalid(f"A time bucket is one of {', '.join(BUCKETS)}.", field=f"{where}.bucket")
            alias = f"{item.get('column')}_{item['bucket']}"
            select.append(f"date_trunc('{item['bucket']}', {compiler.column(item.get('column'), where)})")
        else:
            alias = item
            select.append(compiler.column(item, where))
        aliases.append(alias)
    breakout_count = len(select)
    for index, item in enumerate(_listed(definition, "aggregations", 20)):
        where = f"builder.aggregations[{index}]"
        if not isinstance(item, dict) or item.get("function") not in FUNCTIONS:
            raise invalid(f"Each aggregation has a function among {', '.join(FUNCTIONS)}.", field=where)
        function = item["function"]
        if function == "count" and item.get("column") is None:
            select.append("count(*)")
            aliases.append("count")
            continue
        column = compiler.column(item.get("column"), f"{where}.column")
        select.append(f"count(DISTINCT {column})" if function == "count_distinct" else f"{function}({column})")
        aliases.append(f"{function}_{item['column']}")
    summarized = len(select) > breakout_count
    if select:
        columns = ", ".join(f"{expression} AS {_identifier(alias, 'alias').sql(dialect=DIALECT)}"
                            for expression, alias in zip(select, aliases))
    else:
        columns = "t0.*" if join is None else "t0.*, t1.*"
    sql = f"SELECT {columns} FROM {source}"
    if conditions:
        sql += " WHERE " + " AND ".join(conditions)
    if summarized and breakout_count:
        sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(breakout_count))

    orders = []
    for item in _listed(definition, "order_by", 20):
        if not isinstance(item, dict) or item.get("direction", "asc") not in ("asc", "desc"):
            raise invalid("Each order_by has a column and a direction asc or desc.", field="builder.order_by")
        name = item.get("column")
        target = (_identifier(name, "builder.order_by").sql(dialect=DIALECT) if name in aliases
                  else compiler.column(name, "builder.order_by"))
        orders.append(f"{target} {item.get('direction', 'asc').upper()}")
    if orders:
        sql += " ORDER BY " + ", ".join(orders)
    limit = definition.get("limit")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= MAX_LIMIT:
            raise invalid(f"builder.limit must be a whole number from 1 to {MAX_LIMIT}.", field="builder.limit")
        sql += f" LIMIT {limit}"
    return sql, compiler.types, compiler.values


def _literal(value: Any) -> exp.Expression:
    if isinstance(value, dt.date):
        return exp.cast(exp.Literal.string(value.isoformat()), "DATE")
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def readable_sql(definition: Any) -> str:
    """The compiled statement with its values written as SQL literals, for "view as SQL"."""
    template, types, values = compile_definition(definition)
    bound = bind_variables(template, types, values)
    tree = sqlglot.parse_one(bound.sql, read=DIALECT)

    def inline(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Placeholder) and node.name in bound.parameters:
            return _literal(bound.parameters[node.name])
        return node

    return tree.transform(inline).sql(dialect=DIALECT, pretty=True)
