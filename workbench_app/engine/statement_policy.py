"""First wall: which sqlglot trees may go any further.

An allow-list over the parsed statement: the root must be a read query, every
node must be of a known, harmless kind, table functions in FROM must be
allow-listed, functions sqlglot does not know must be allow-listed by name,
and only the ``$parameters`` that our own variable binding produced may appear.
Statements such as ATTACH, COPY, PRAGMA, SET, INSTALL, LOAD or CALL never get
past the root check; DDL and DML neither.

This wall gives early, precise errors. The authoritative function and relation
check is the second wall (:mod:`workbench_app.engine.duckdb_parse_check`) on the
final text, so a function sqlglot knows by a class of its own is checked there.
"""

from __future__ import annotations

from typing import Iterable

from sqlglot import exp

from workbench_app.engine.dialect import not_a_read_statement
from workbench_app.engine.errors import (
    FUNCTION_NOT_ALLOWED,
    STATEMENT_NOT_ALLOWED,
    VARIABLE_ERROR,
    EngineError,
)
from workbench_app.engine.function_allowlist import is_allowed_function, is_allowed_table_function

READ_ROOTS = (exp.Select, exp.Union, exp.Except, exp.Intersect, exp.Values, exp.Subquery)

# Node kinds that may appear anywhere in a read query. Functions, operators and
# predicates are admitted by base class below and their names checked separately.
_ALLOWED_NODES: tuple[type[exp.Expression], ...] = (
    exp.Select, exp.Union, exp.Except, exp.Intersect, exp.Values, exp.Subquery,
    exp.From, exp.Join, exp.Where, exp.Group, exp.Having, exp.Qualify, exp.Order, exp.Ordered,
    exp.Limit, exp.Offset, exp.Fetch, exp.Distinct, exp.With, exp.CTE, exp.TableAlias, exp.Table,
    exp.Alias, exp.Aliases, exp.Column, exp.Identifier, exp.Star, exp.Literal, exp.Null, exp.Boolean,
    exp.Placeholder, exp.Paren, exp.Tuple, exp.PropertyEQ, exp.Slice, exp.Bracket, exp.Dot,
    exp.Lambda, exp.Interval, exp.Var, exp.DataType, exp.DataTypeParam, exp.Window, exp.WindowSpec,
    exp.Filter, exp.Lateral, exp.Pivot, exp.PivotAlias, exp.TableSample, exp.Kwarg,
    exp.GroupingSets, exp.Cube, exp.Rollup, exp.ColumnDef, exp.Collate, exp.Any, exp.All,
    exp.Exists, exp.IgnoreNulls, exp.RespectNulls, exp.HavingMax, exp.RawString, exp.ByteString,
    exp.JSONPath, exp.JSONPathPart, exp.WithinGroup, exp.AtTimeZone, exp.LimitOptions,
    exp.Comprehension,
    # The key/value pairs of json_object(...), an allowed function.
    exp.JSONKeyValue,
)
_ALLOWED_BASES: tuple[type[exp.Expression], ...] = (exp.Func, exp.Binary, exp.Unary, exp.Predicate)

# sqlglot Table arguments we understand; anything else (time travel, hints,
# ONLY, partitions, CHANGES...) is refused rather than silently dropped.
_TABLE_ARGS = frozenset({"this", "db", "catalog", "alias", "pivots", "sample", "joins", "laterals", "ordinality"})
# sqlglot classes that DuckDB table functions we allow parse into.
_TABLE_FUNCTION_CLASSES: tuple[type[exp.Expression], ...] = (exp.GenerateSeries, exp.Unnest, exp.Explode)


def check_statement(tree: exp.Expression, allowed_parameters: Iterable[str] = (), sql: str = "") -> None:
    """Raise :class:`EngineError` unless ``tree`` (parsed from ``sql``) is a single read query we can check."""
    if not isinstance(tree, READ_ROOTS):
        raise not_a_read_statement(sql)
    parameters = set(allowed_parameters)
    for node in tree.walk():
        _check_node(node, parameters)


def _check_node(node: exp.Expression, parameters: set[str]) -> None:
    if isinstance(node, exp.Placeholder):
        name = node.name
        if not name or name not in parameters:
            raise EngineError(
                VARIABLE_ERROR, "Query parameters are not supported here; use {{name}} variables."
            )
        return
    if isinstance(node, exp.Table):
        _check_table(node)
        return
    if isinstance(node, exp.Anonymous):
        if isinstance(node.parent, exp.Table) and node.arg_key == "this":
            return  # a table function: _check_table decided
        if not is_allowed_function(str(node.name)):
            raise EngineError(FUNCTION_NOT_ALLOWED, f"Function {str(node.name)!r} is not allowed.")
        return
    if not _allowed_kind(type(node)):
        raise EngineError(STATEMENT_NOT_ALLOWED, f"{written_construct(node)} is not allowed in a statement.")


# Constructs whose sqlglot rendering would not read as what the person wrote.
_WRITTEN = {exp.Lock: "FOR UPDATE / FOR SHARE", exp.Into: "SELECT ... INTO"}
_MAX_CONSTRUCT = 60


def written_construct(node: exp.Expression) -> str:
    """The refused construct as the person wrote it (never the parser's class name): the call it
    sits in, `json_object(...)`, else its SQL, shortened. Only the person's own statement is
    checked here (before any rule is added), so this echoes nothing they may not see."""
    for kind, words in _WRITTEN.items():
        if isinstance(node, kind):
            return words
    call = node if isinstance(node, exp.Func) else node.find_ancestor(exp.Func)
    if call is not None:
        name = str(call.name) if isinstance(call, exp.Anonymous) else call.sql_name()
        return f"{name.lower()}(...)"
    return _clipped(_sql(node), node.key.upper())


def _sql(node) -> str:
    try:
        return node.sql(dialect="duckdb") if isinstance(node, exp.Expression) else str(node)
    except Exception:  # noqa: BLE001 - a node sqlglot cannot render: fall back to its kind
        return ""


def _clipped(text: str, fallback: str) -> str:
    text = " ".join(text.split())
    if not text:
        return fallback
    return text if len(text) <= _MAX_CONSTRUCT else text[:_MAX_CONSTRUCT - 1] + "…"


_ALLOWED_KINDS: dict[type, bool] = {}


def _allowed_kind(kind: type) -> bool:
    # Decided once per node class: the walk meets the same few classes in every statement.
    allowed = _ALLOWED_KINDS.get(kind)
    if allowed is None:
        allowed = not issubclass(kind, (exp.Into, exp.Lock)) and issubclass(kind, _ALLOWED_NODES + _ALLOWED_BASES)
        _ALLOWED_KINDS[kind] = allowed
    return allowed


def _check_table(table: exp.Table) -> None:
    for arg, value in table.args.items():
        if value in (None, [], False) or arg in _TABLE_ARGS:
            continue
        raise EngineError(STATEMENT_NOT_ALLOWED, f"{_clipped(_sql(value), arg.upper())} on a table is not allowed.")
    target = table.this
    if isinstance(target, exp.Func) and (table.args.get("db") or table.args.get("catalog")):
        # warehouse.main.range(...) could be a table macro stored in an attached database.
        raise EngineError(FUNCTION_NOT_ALLOWED, "Qualified table functions are not allowed.")
    if isinstance(target, exp.Anonymous):
        if not is_allowed_table_function(str(target.name)):
            raise EngineError(FUNCTION_NOT_ALLOWED, f"Table function {str(target.name)!r} is not allowed.")
    elif isinstance(target, exp.Func) and not isinstance(target, _TABLE_FUNCTION_CLASSES):
        name = target.sql_name() if hasattr(target, "sql_name") else target.key
        raise EngineError(FUNCTION_NOT_ALLOWED, f"Table function {name.lower()!r} is not allowed.")
    elif table.args.get("ordinality") and not isinstance(target, exp.Func):
        raise EngineError(STATEMENT_NOT_ALLOWED, "WITH ORDINALITY is only allowed on table functions.")


def is_table_function(table: exp.Table) -> bool:
    """Whether a sqlglot Table node is a table function call rather than a named table."""
    return isinstance(table.this, exp.Func)
