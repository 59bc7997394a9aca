"""Catalogs read through Python (a CouchDB server, Snowflake): rows fetched per statement as Arrow.

DuckDB has no scanner for these sources, so each one is attached as an in-memory catalog holding
one *empty* table per collection or remote table, with the source's columns. That is all the
rest of the engine sees: the schema snapshot, the permission rewrite, the parse check and the
function allow-list treat these tables like any other, and there is no SQL function that reads
a source — nothing a user could call to reach one around the rewrite.

After the rewrite, every reference to such a table sits inside the rewrite's projection
``(SELECT <visible columns, masked> FROM "cat"."schema"."table" WHERE <row filter>)``.
``prepare`` reads that final statement and, for each reference:

* projection pushdown: the source is asked only for the columns the statement can use — those of
  the projection's row filter and those of its output that the rest of the statement names
  (every one when it cannot tell: ``*``, a row used as a value, a positional alias...). A hidden
  column is not in the projection, so it is never requested;
* filter pushdown: ``column <op> constant`` conjuncts (``=``, ``<``, ``<=``, ``>``, ``>=``,
  ``IN``, ``BETWEEN``) of the row filter and of the ``WHERE`` directly over the projection, on a
  column passed through unmasked, are sent to the source when the constant's type matches the
  column's. DuckDB still applies the whole ``WHERE``: pushing only makes the source send fewer rows;
* the source's rows (at most the catalog's row bound for the whole statement, or the statement
  fails) are registered on the statement's own DuckDB cursor as an Arrow table under a random
  name — no row-by-row copy — and the reference is replaced by a typed projection of it.

The fetch runs in the thread of the statement, within its time limit, holding no engine lock: a
slow or failing source fails the statements that read it and no other.
"""
from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

import pyarrow as pa
from sqlglot import exp, parse_one

from workbench_app.engine.dialect import DIALECT, render
from workbench_app.engine.errors import CATALOG_ERROR, QUERY_FAILED, QUERY_TIMEOUT, EngineError

log = logging.getLogger(__name__)

OPERATORS = {exp.EQ: "=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_FLIPPED = {"=": "=", ">": "<", ">=": "<=", "<": ">", "<=": ">="}
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "FLOAT", "DOUBLE", "DECIMAL")


class SourceUnavailable(Exception):
    """The source could not be reached or refused us: the message says why, for people.

    `reason` sorts it for a connection test: unreachable, authentication_failed,
    database_not_found, or failed (anything else)."""

    def __init__(self, message: str, reason: str = "failed"):
        super().__init__(message)
        self.reason = reason


class SourceTimeout(SourceUnavailable):
    """The source did not answer within the statement's time limit."""

    def __init__(self, message: str, reason: str = "unreachable"):
        super().__init__(message, reason)


@dataclass(frozen=True)
class ExternalTable:
    """One table of an external catalog: its name in the engine and its columns (name, DuckDB type)."""

    schema: str
    name: str
    columns: tuple[tuple[str, str], ...]
    remote: Any = None  # what the source needs to find it (its own spelling of the names)


@dataclass(frozen=True)
class Condition:
    column: str
    op: str  # =, <, <=, >, >=, in
    value: Any


@dataclass(frozen=True)
class ReadRequest:
    columns: tuple[str, ...]
    conditions: tuple[Condition, ...]
    max_rows: int  # read at most this many rows plus one (to tell that there were more)
    timeout_seconds: float


class ExternalCatalog(Protocol):
    max_rows: int

    def tables(self) -> list[ExternalTable]: ...

    def read(self, table: ExternalTable, request: ReadRequest) -> pa.Table:
        """The requested columns (in order) of the rows matching the conditions; SourceUnavailable."""


@dataclass
class PreparedStatement:
    sql: str
    arrow_tables: dict[str, pa.Table]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_placeholders(connection, catalog_name: str, tables: list[ExternalTable]) -> None:
    """The empty tables that stand for the source's tables in the engine's catalog."""
    connection.execute(f"ATTACH ':memory:' AS {quoted(catalog_name)}")
    schemas = {table.schema for table in tables}
    for schema in sorted(schemas - {"main"}):
        connection.execute(f"CREATE SCHEMA {quoted(catalog_name)}.{quoted(schema)}")
    for table in tables:
        columns = ", ".join(f"{quoted(name)} {kind}" for name, kind in table.columns)
        connection.execute(
            f"CREATE TABLE {quoted(catalog_name)}.{quoted(table.schema)}.{quoted(table.name)} ({columns})"
        )


def prepare(sql: str, parameters: Mapping[str, Any], catalogs: Mapping[str, tuple[ExternalCatalog, dict]],
            deadline: float) -> PreparedStatement:
    """Fetch the external tables the rewritten ``sql`` reads and point it at the fetched rows.

    ``catalogs``: lowercased catalog name -> (catalog, {(schema, table) lowercased: ExternalTable}).
    """
    tree = parse_one(sql, read=DIALECT)
    references = [table for table in tree.find_all(exp.Table) if table.catalog.lower() in catalogs]
    if not references:
        return PreparedStatement(sql, {})
    aliases = _row_aliases(references)
    whole_rows = _reads_whole_rows([tree], aliases)
    # Plan every read on the statement as it is, then fetch and swap the references.
    found = []
    for reference in references:
        catalog, tables = catalogs[reference.catalog.lower()]
        table = tables.get((reference.db.lower(), reference.name.lower()))
        if table is None:  # the snapshot and the source disagree: refresh the sources
            raise EngineError(CATALOG_ERROR, "A table of this source changed; refresh the sources and retry.")
        found.append((reference, catalog, table))
    own_columns = _self_contained([(reference, table) for reference, _, table in found])
    plans = [(reference, catalog, table,
              *_pushdown(tree, reference, table, whole_rows, aliases, own_columns, parameters))
             for reference, catalog, table in found]
    nonce = secrets.token_hex(4)
    budgets = {name: catalog.max_rows for name, (catalog, _) in catalogs.items()}
    fetched: dict[str, pa.Table] = {}
    for index, (reference, catalog, table, columns, conditions) in enumerate(plans):
        catalog_name = reference.catalog.lower()
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise EngineError(QUERY_TIMEOUT, "The query took too long and was stopped.")
        request = ReadRequest(tuple(columns), tuple(conditions), budgets[catalog_name], remaining)
        log.debug("reading %s.%s.%s: columns %s, pushed %s", reference.catalog, table.schema, table.name,
                  list(request.columns), [(c.column, c.op) for c in conditions])
        try:
            rows = catalog.read(table, request)
        except SourceTimeout:
            raise EngineError(QUERY_TIMEOUT, f"Source {reference.catalog!r} took too long; the query was stopped.") from None
        except SourceUnavailable as error:
            raise EngineError(QUERY_FAILED, f"Source {reference.catalog!r} failed: {error}.") from None
        if rows.num_rows > budgets[catalog_name]:
            raise EngineError(
                QUERY_FAILED,
                f"This statement would read more than {catalog.max_rows} rows from source {reference.catalog!r} "
                "(its bound per statement): add a filter the source can apply, or raise the source's max_rows.",
            )
        budgets[catalog_name] -= rows.num_rows
        registered = f"wbx_{nonce}_{index}"
        fetched[registered] = rows
        reference.replace(_typed_projection(registered, table, set(request.columns), reference))
    return PreparedStatement(render(tree), fetched)


def _holder(reference: exp.Table) -> exp.Select | None:
    """The SELECT whose FROM or JOIN names the reference."""
    clause = reference.parent
    select = clause.parent if isinstance(clause, (exp.From, exp.Join)) else None
    return select if isinstance(select, exp.Select) else None


def _row_aliases(references: list[exp.Table]) -> set[str]:
    aliases = {(reference.alias or reference.name).lower() for reference in references}
    for holder in filter(None, (_holder(reference) for reference in references)):
        if isinstance(holder.parent, exp.Subquery) and holder.parent.alias:
            aliases.add(holder.parent.alias.lower())
    return aliases


def _reads_whole_rows(nodes: list[exp.Expression], aliases: set[str]) -> bool:
    """Whether these expressions may use every column without naming it (then nothing is pruned)."""
    for node in (n for root in nodes for n in root.walk()):
        if isinstance(node, exp.Star) and not isinstance(node.parent, exp.Count):
            return True  # *, t.*, COLUMNS(*), * EXCLUDE...
        if isinstance(node, exp.TableAlias) and node.args.get("columns"):
            return True  # t(a, b): columns renamed by position
        if isinstance(node, exp.Anonymous) and node.name.lower() == "columns":
            return True
        if isinstance(node, exp.Join) and (node.args.get("method") or "").upper() == "NATURAL":
            return True
        if isinstance(node, exp.Column) and not node.table and node.name.lower() in aliases:
            return True  # a whole row used as a value (to_json(t), struct_pack...)
    return False


def _self_contained(references: list[tuple[exp.Table, ExternalTable]]) -> set[int]:
    """Nodes of select-list items that read only their own table's columns (the rewrite's projections).

    They name no output of another reference, so they are left out when looking for the names the
    statement uses (else a self-join's projections would make each other read every column).
    """
    skipped: set[int] = set()
    for reference, table in references:
        holder = _holder(reference)
        if holder is None or holder.args.get("joins"):
            continue
        own = {name.lower() for name, _ in table.columns}
        names = {(reference.alias or reference.name).lower()}
        for expression in holder.expressions:
            if expression.find(exp.Select):
                continue  # a subquery may reach other tables
            if all(column.table.lower() in names if column.table else column.name.lower() in own
                   for column in expression.find_all(exp.Column)):
                skipped.update(id(node) for node in expression.walk())
    return skipped


def _identifiers(node: exp.Expression, skipped: set[int] = frozenset()) -> set[str]:
    """Every name written under ``node`` (columns, struct fields, aliases...), outside ``skipped`` subtrees."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in skipped:
            continue
        if isinstance(current, exp.Identifier):
            names.add(current.name.lower())
        stack.extend(current.iter_expressions())
    return names


def _pushdown(tree: exp.Expression, reference: exp.Table, table: ExternalTable, whole_rows: bool,
              aliases: set[str], own_columns: set[int], parameters: Mapping[str, Any]) -> tuple[list[str], list[Condition]]:
    """The columns to request and the conditions the source may apply, for one reference.

    Columns are over-approximated by names: a column is requested when its name is written
    anywhere it could be read (a struct field or alias of the same name only makes us read more).
    """
    all_columns = [name for name, _ in table.columns]
    holder = _holder(reference)
    if holder is None:
        return all_columns, []
    by_name = {name.lower(): name for name in all_columns}
    types = {name.lower(): kind for name, kind in table.columns}
    alias = (reference.alias or reference.name).lower()
    single = not holder.args.get("joins")
    where = holder.args.get("where")
    conditions = _conditions(where.this if where is not None else None, (alias, single), types, parameters, by_name)
    if not single:
        wanted = set(by_name) if whole_rows else _identifiers(tree)
    elif _reads_whole_rows(holder.expressions, aliases):
        wanted = set(by_name)
    else:
        expressions = {id(e) for e in holder.expressions}
        # Outputs of a subquery in FROM (or of a CTE) are read by name; any other SELECT's are the result.
        prunable = isinstance(holder.parent, exp.CTE) or (
            isinstance(holder.parent, exp.Subquery) and isinstance(holder.parent.parent, (exp.From, exp.Join)))
        used_outside = _identifiers(tree, expressions | own_columns)
        wanted = _identifiers(holder, expressions | {id(reference)})
        for expression in holder.expressions:
            # Outside, "*" (or a row used as a value) reads all of the subquery's outputs, never more.
            if whole_rows or not prunable or expression.alias_or_name.lower() in used_outside:
                wanted |= _identifiers(expression)
        conditions += _outer_conditions(holder, types, parameters)
    columns = [name for name in all_columns if name.lower() in wanted]
    return columns or all_columns[:1], conditions


def _outer_conditions(holder: exp.Select, types: dict[str, str], parameters: Mapping[str, Any]) -> list[Condition]:
    """Conditions of the WHERE over a subquery in FROM (the rewrite's projection) on unmasked columns."""
    outer = _outer_select(holder)
    if outer is None or outer.args.get("where") is None:
        return []
    # Filtering below a LIMIT, a GROUP BY, DISTINCT or a window would change what they compute.
    if set(k for k, v in holder.args.items() if v) - {"expressions", "from", "where"} or any(
            holder.find(kind) for kind in (exp.Window, exp.AggFunc)):
        return []
    passed_through: dict[str, str] = {}
    for expression in holder.expressions:
        inner = expression.this if isinstance(expression, exp.Alias) else expression
        if isinstance(inner, exp.Column) and not inner.table and inner.name.lower() in types:
            passed_through[expression.alias_or_name.lower()] = inner.name
    qualifier = (holder.parent.alias.lower(), not outer.args.get("joins"))
    return _conditions(outer.args["where"].this, qualifier, types, parameters, passed_through)


def _outer_select(holder: exp.Select) -> exp.Select | None:
    subquery = holder.parent
    clause = subquery.parent if isinstance(subquery, exp.Subquery) else None
    select = clause.parent if isinstance(clause, (exp.From, exp.Join)) else None
    return select if isinstance(select, exp.Select) else None


def _conditions(predicate: exp.Expression | None, qualifier: tuple[str | None, bool] | None,
                types: dict[str, str], parameters: Mapping[str, Any], columns: dict[str, str]) -> list[Condition]:
    """Pushable ``column <op> constant`` conjuncts of ``predicate``.

    ``qualifier`` is None inside the projection (its columns are the table's), else (alias of
    the projection, whether it is the only source): a column must name the projection.
    ``columns`` maps a name the predicate may use to the source column.
    """
    found: list[Condition] = []
    for conjunct in (predicate.flatten() if isinstance(predicate, exp.And) else [predicate] if predicate else []):
        condition = _condition(conjunct, qualifier, types, parameters, columns)
        if isinstance(condition, list):
            found.extend(condition)
        elif condition is not None:
            found.append(condition)
    return found


def _condition(node: exp.Expression, qualifier, types, parameters, columns) -> Condition | list | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if type(node) in OPERATORS:
        op = OPERATORS[type(node)]
        left, right = node.this, node.expression
        if not isinstance(left, exp.Column):
            left, right, op = right, left, _FLIPPED[op]
        column = _column(left, qualifier, columns)
        value = _constant(right, parameters)
        if column is None or value is _NOT_CONSTANT or not _fits(types[column.lower()], value, op):
            return None
        return Condition(column, op, value)
    if isinstance(node, exp.Between):
        low = _condition(exp.GTE(this=node.this.copy(), expression=node.args["low"].copy()), qualifier, types,
                         parameters, columns)
        high = _condition(exp.LTE(this=node.this.copy(), expression=node.args["high"].copy()), qualifier, types,
                          parameters, columns)
        return [c for c in (low, high) if c is not None] or None
    if isinstance(node, exp.In) and not node.args.get("query") and not node.args.get("unnest"):
        column = _column(node.this, qualifier, columns)
        values = [_constant(item, parameters) for item in node.expressions]
        if column is None or not values or any(v is _NOT_CONSTANT or not _fits(types[column.lower()], v, "=")
                                               for v in values):
            return None
        return Condition(column, "in", tuple(values))
    return None


def _column(node: exp.Expression, qualifier, columns: dict[str, str]) -> str | None:
    if not isinstance(node, exp.Column) or node.args.get("db"):
        return None
    if qualifier is not None:
        alias, single = qualifier
        if node.table.lower() != (alias or "") and not (not node.table and single):
            return None
    return columns.get(node.name.lower())


_NOT_CONSTANT = object()


def _constant(node: exp.Expression, parameters: Mapping[str, Any]) -> Any:
    if isinstance(node, exp.Neg):
        value = _constant(node.this, parameters)
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else _NOT_CONSTANT
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        try:
            return int(node.this)
        except ValueError:
            try:
                return float(node.this)
            except ValueError:
                return _NOT_CONSTANT
    if isinstance(node, exp.Boolean):
        return node.this
    if isinstance(node, (exp.Parameter, exp.Placeholder)):
        name = node.name
        if name in parameters and isinstance(parameters[name], (str, int, float, bool)):
            return parameters[name]
    return _NOT_CONSTANT


def _fits(column_type: str, value: Any, op: str) -> bool:
    """Whether the source compares ``value`` with the column as DuckDB does (else DuckDB alone filters)."""
    kind = column_type.upper()
    if isinstance(value, bool):
        return kind == "BOOLEAN" and op == "="
    if isinstance(value, (int, float)):
        return kind.startswith(_NUMERIC)
    return isinstance(value, str) and kind == "VARCHAR"


def _typed_projection(registered: str, table: ExternalTable, fetched: set[str], reference: exp.Table) -> exp.Expression:
    """``(SELECT CAST(c AS type) AS c, ... FROM registered) AS <table>``; unfetched columns are typed NULLs."""
    items = []
    for name, kind in table.columns:
        source = quoted(name) if name in fetched else "NULL"
        items.append(f"CAST({source} AS {kind}) AS {quoted(name)}")
    select = parse_one(f"SELECT {', '.join(items)} FROM {quoted(registered)}", read=DIALECT)
    alias = reference.alias or reference.name
    return exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)))
