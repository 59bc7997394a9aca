"""The permission rewrite: every table reference becomes a filtered, masked projection.

``rewrite_statement`` takes the user's SQL (after variable binding) and returns
the SQL the engine runs:

1. parse one statement with sqlglot (DuckDB dialect) and check it with
   :mod:`statement_policy`;
2. give every CTE a fresh internal name (``wb_cte_<n>``), so that a reference
   we read as "this CTE" can only ever mean that CTE to DuckDB, and a reference
   we read as a table is replaced and can never be captured by a CTE;
3. resolve every other table reference among the tables the user may see
   (``table``, ``schema.table``, ``catalog.table``, ``catalog.schema.table``;
   case-insensitive, quoted or not, with the engine's default catalog and
   schema) and replace it by::

       (SELECT <visible columns, masked> FROM "cat"."schema"."table" WHERE <row filter>) AS <alias>

   keeping the user's alias (or the table name) so that qualified column
   references and ``alias.*`` still work — and see only visible columns;
4. render DuckDB SQL without comments and let DuckDB's own parser confirm that
   it reads only the tables and functions we allowed
   (:mod:`duckdb_parse_check`).

A table the user may not see is reported as "table not found", exactly like a
table that does not exist.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from sqlglot import exp

from workbench_app.engine.catalog_schema import SchemaCatalog, TableName, candidate_names
from workbench_app.engine.dialect import parse_single_statement, render
from workbench_app.engine.duckdb_parse_check import check_final_statement
from workbench_app.engine.errors import STATEMENT_NOT_ALLOWED, TABLE_NOT_FOUND, EngineError
from workbench_app.engine.permissions import (
    ColumnMask,
    GroupGrant,
    ParameterSink,
    TableAccess,
    UserContext,
    table_access,
)
from workbench_app.engine.statement_policy import check_statement, is_table_function

_RESULT_ALIAS = "wb_result"


@dataclass(frozen=True)
class RewriteOptions:
    """Engine-wide settings the rewrite needs."""

    default_catalog: str | None = None
    default_schema: str | None = None
    #: Key of the ``hash`` mask: without it, hashes of guessable values could be reversed.
    mask_salt: str = ""


@dataclass(frozen=True)
class RewrittenStatement:
    """What the engine executes: SQL text plus the values bound to its ``$parameters``."""

    sql: str
    parameters: dict[str, Any]
    tables: tuple[TableName, ...]
    rewrite_seconds: float = 0.0


@dataclass
class _RewriteState:
    user: UserContext
    schema: SchemaCatalog
    options: RewriteOptions
    sink: ParameterSink = field(default_factory=ParameterSink)
    tables: dict[tuple[str, str, str], TableName] = field(default_factory=dict)
    cte_names: dict[int, str] = field(default_factory=dict)  # id(CTE node) -> internal name
    salt_parameter: exp.Placeholder | None = None


def rewrite_statement(
    sql: str,
    user: UserContext,
    schema: SchemaCatalog,
    options: RewriteOptions | None = None,
    parameters: Mapping[str, Any] | None = None,
    row_limit: int | None = None,
) -> RewrittenStatement:
    """Check and rewrite one statement for ``user``; raise :class:`EngineError` when refused.

    ``parameters`` are the values of ``$parameters`` already in ``sql`` (from
    :func:`workbench_app.engine.variables.bind_variables`); no other parameter
    is accepted. ``row_limit`` caps the rows returned (the engine passes its
    limit plus one to detect truncation).
    """
    started = time.perf_counter()
    options = options or RewriteOptions()
    parameters = dict(parameters or {})
    tree = parse_single_statement(sql)
    check_statement(tree, allowed_parameters=parameters)
    state = _RewriteState(user=user, schema=schema, options=options)

    for cte in tree.find_all(exp.CTE):
        state.cte_names[id(cte)] = f"wb_cte_{len(state.cte_names)}"

    # Decide every reference on the untouched tree first, then edit it.
    decisions: list[tuple[exp.Table, str, Any]] = []
    for table in list(tree.find_all(exp.Table)):
        if is_table_function(table):
            continue
        cte = _visible_cte(table)
        if cte is not None:
            decisions.append((table, "cte", cte))
        else:
            decisions.append((table, "table", _resolve(table, state)))

    for table, kind, target in decisions:
        if kind == "cte":
            _point_at_cte(table, state.cte_names[id(target)])
        else:
            table.replace(_projection(table, target, state))
    for cte in list(tree.find_all(exp.CTE)):
        _rename_cte(cte, state.cte_names[id(cte)])

    if row_limit is not None:
        tree = _limit(tree, row_limit)

    final_sql = render(tree)
    all_parameters = {**parameters, **state.sink.values}
    check_final_statement(
        final_sql,
        allowed_tables=[t.key for t in state.tables.values()],
        allowed_cte_names=state.cte_names.values(),
        allowed_parameters=all_parameters,
    )
    return RewrittenStatement(
        sql=final_sql,
        parameters=all_parameters,
        tables=tuple(state.tables.values()),
        rewrite_seconds=time.perf_counter() - started,
    )


# --- CTE scoping ---------------------------------------------------------------------------


def _visible_cte(table: exp.Table) -> exp.CTE | None:
    """The CTE an unqualified name refers to at this point of the query, if any.

    Walks outwards: in a WITH list, CTE number i sees CTEs 0..i-1 (and itself
    when RECURSIVE); the query body sees all of them; the innermost WITH wins.
    """
    if table.args.get("db") or table.args.get("catalog") or not isinstance(table.this, exp.Identifier):
        return None
    name = table.name.lower()
    child: exp.Expression = table
    node = table.parent
    while node is not None:
        with_ = node.args.get("with_") if isinstance(node, exp.Expression) else None
        if isinstance(with_, exp.With):
            ctes = list(with_.expressions)
            if child is with_:
                # We came up through the WITH list: find which CTE we are in.
                inside = _enclosing_cte(table, with_)
                index = ctes.index(inside) if inside in ctes else len(ctes)
                visible = ctes[: index + 1] if with_.args.get("recursive") else ctes[:index]
            else:
                visible = ctes
            for cte in reversed(visible):
                if cte.alias.lower() == name:
                    return cte
        child, node = node, node.parent
    return None


def _enclosing_cte(table: exp.Table, with_: exp.With) -> exp.CTE | None:
    node: exp.Expression | None = table
    while node is not None and node.parent is not with_:
        node = node.parent
    return node if isinstance(node, exp.CTE) else None


def _point_at_cte(table: exp.Table, internal_name: str) -> None:
    original = table.this.copy()
    table.set("this", exp.to_identifier(internal_name))
    if not table.args.get("alias"):
        table.set("alias", exp.TableAlias(this=original))


def _rename_cte(cte: exp.CTE, internal_name: str) -> None:
    alias = cte.args.get("alias")
    columns = alias.args.get("columns") if alias is not None else None
    cte.set("alias", exp.TableAlias(this=exp.to_identifier(internal_name), columns=columns))


# --- table resolution ----------------------------------------------------------------------


def _resolve(table: exp.Table, state: _RewriteState) -> TableAccess:
    if not isinstance(table.this, exp.Identifier):
        raise EngineError(TABLE_NOT_FOUND, "Table not found.")
    parts = [part for part in (table.args.get("catalog"), table.args.get("db"), table.this) if part is not None]
    names = [part.name for part in parts]
    if any(not isinstance(part, exp.Identifier) for part in parts) or not all(names):
        raise EngineError(TABLE_NOT_FOUND, "Table not found.")
    written = ".".join(names)
    for candidate in _candidates(names, state):
        info = state.schema.get(candidate)
        if info is None:
            continue
        access = table_access(state.user, info, state.sink)
        if access is not None:
            state.tables[info.table.key] = info.table
            return access
    raise EngineError(TABLE_NOT_FOUND, f"Table {written!r} not found.")


def _candidates(names: list[str], state: _RewriteState) -> list[TableName]:
    return candidate_names(names, state.schema, state.options.default_catalog, state.options.default_schema)


# --- the projection that replaces a table ---------------------------------------------------


def _quoted(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _projection(table: exp.Table, access: TableAccess, state: _RewriteState) -> exp.Expression:
    real = access.table.table
    alias = table.args.get("alias") or exp.TableAlias(this=table.this.copy())
    carried = {key: table.args.get(key) for key in ("pivots", "sample", "joins", "laterals")}
    base = exp.Table(this=_quoted(real.name), db=_quoted(real.schema), catalog=_quoted(real.catalog))

    if access.unrestricted:
        # Nothing to hide: keep the plain table so that DuckDB pushes filters to the source.
        base.set("alias", alias)
        for key, value in carried.items():
            if value:
                base.set(key, value)
        return base

    projections = []
    for column in access.visible_columns():
        expression = _column_expression(column.name, column.data_type, access, state)
        projections.append(exp.alias_(expression, _quoted(column.name)))
    select = exp.Select(expressions=projections).from_(base)
    predicate = _row_predicate(access.grants)
    if predicate is not None:
        select = select.where(predicate)
    subquery = exp.Subquery(this=select, alias=alias)
    for key, value in carried.items():
        if value:
            subquery.set(key, value)
    return subquery


def _row_predicate(grants: tuple[GroupGrant, ...]) -> exp.Expression | None:
    filters = []
    for grant in grants:
        if grant.row_filter is None:
            return None  # one grant reads every row
        filters.append(exp.paren(grant.row_filter.copy()))
    return exp.or_(*filters) if len(filters) > 1 else filters[0]


def _treatment(grant: GroupGrant, column: str) -> tuple[str, Any]:
    lowered = column.lower()
    if lowered in grant.hidden:
        return ("hidden", None)
    mask = grant.masks.get(lowered)
    if mask is None:
        return ("clear", None)
    return ("mask", mask)


def _column_expression(column: str, data_type: str, access: TableAccess, state: _RewriteState) -> exp.Expression:
    showing = [(g, _treatment(g, column)) for g in access.grants]
    shown = [(g, t) for g, t in showing if t[0] != "hidden"]
    kinds = {(t[0], t[1]) for _, t in showing}
    if len(kinds) == 1:
        kind, mask = next(iter(kinds))
        return _apply(column, data_type, kind, mask, shown[0][0], state, as_text=False)

    # Groups disagree on this column: decide per row which grant shows the cell.
    # Clear first, then masks by group name; rows only hiding groups accept get NULL.
    shown.sort(key=lambda item: (item[1][0] != "clear", item[0].group))
    mixed_types = any(t[0] == "mask" and t[1].kind != "null" for _, t in shown)
    case = exp.Case()
    for grant, (kind, mask) in shown:
        value = _apply(column, data_type, kind, mask, grant, state, as_text=mixed_types)
        if grant.row_filter is None:
            return case.else_(value) if case.args.get("ifs") else value
        case = case.when(exp.paren(grant.row_filter.copy()), value)
    return case.else_(exp.Null())


def _apply(
    column: str,
    data_type: str,
    kind: str,
    mask: ColumnMask | None,
    grant: GroupGrant,
    state: _RewriteState,
    as_text: bool,
) -> exp.Expression:
    ref = exp.column(_quoted(column))
    if kind == "clear":
        return exp.cast(ref, "VARCHAR") if as_text else ref
    if kind == "hidden" or mask is None:
        return exp.Null()
    if mask.kind == "null":
        return exp.Null() if as_text else _typed_null(data_type)
    as_varchar = exp.cast(ref.copy(), "VARCHAR")
    if mask.kind == "hash":
        if state.salt_parameter is None:
            state.salt_parameter = state.sink.bind(state.options.mask_salt, "salt")
        digest = exp.Anonymous(
            this="sha256", expressions=[exp.DPipe(this=state.salt_parameter.copy(), expression=as_varchar)]
        )
        return _null_if_null(ref, digest)
    if mask.kind == "partial":
        return _null_if_null(ref, _partial(as_varchar, mask.keep_first, mask.keep_last))
    value = grant.mask_expressions[column.lower()].copy()
    return exp.cast(value, "VARCHAR") if as_text else value


def _typed_null(data_type: str) -> exp.Expression:
    try:
        return exp.cast(exp.Null(), exp.DataType.build(data_type, dialect="duckdb"))
    except Exception:  # an exotic source type: an untyped NULL is still a NULL
        return exp.Null()


def _null_if_null(ref: exp.Expression, value: exp.Expression) -> exp.Expression:
    return exp.Case().when(exp.Is(this=ref.copy(), expression=exp.Null()), exp.Null()).else_(value)


def _partial(text: exp.Expression, keep_first: int, keep_last: int) -> exp.Expression:
    kept = keep_first + keep_last
    length = exp.Anonymous(this="length", expressions=[text.copy()])
    stars_all = exp.Anonymous(this="repeat", expressions=[exp.Literal.string("*"), length.copy()])
    pieces: list[exp.Expression] = []
    if keep_first:
        pieces.append(exp.Anonymous(this="left", expressions=[text.copy(), exp.Literal.number(keep_first)]))
    pieces.append(
        exp.Anonymous(
            this="repeat",
            expressions=[exp.Literal.string("*"), exp.Sub(this=length.copy(), expression=exp.Literal.number(kept))],
        )
    )
    if keep_last:
        pieces.append(exp.Anonymous(this="right", expressions=[text.copy(), exp.Literal.number(keep_last)]))
    shown: exp.Expression = pieces[0]
    for piece in pieces[1:]:
        shown = exp.DPipe(this=shown, expression=piece)
    too_short = exp.LTE(this=length.copy(), expression=exp.Literal.number(kept * 2))
    return exp.Case().when(too_short, stars_all).else_(shown)


def _limit(tree: exp.Expression, row_limit: int) -> exp.Expression:
    if row_limit < 0:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The row limit cannot be negative.")
    if isinstance(tree, exp.Query) and not tree.args.get("limit") and not tree.args.get("offset") and not isinstance(tree, exp.Values):
        return tree.limit(row_limit, copy=False)
    # The query has its own LIMIT/OFFSET: cap it from outside.
    subquery = exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier(_RESULT_ALIAS)))
    return exp.select("*").from_(subquery).limit(row_limit)
