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
   the exact final text reads only the tables and functions we allowed, each
   restricted table exactly as many times as we put it there
   (:mod:`duckdb_parse_check`). The same call to DuckDB checks the rule
   expressions (row filters, expression masks) it has not seen yet; if it
   refuses one, that group grants nothing and the statement is rewritten again.

A successful rewrite is cached whole, keyed by everything it depends on (the
text, its bound values, the person, their groups' rules and attributes, the
catalog snapshot, the options): running the same statement again with the same
rules costs a dictionary lookup, and an edited rule is a new key, so it applies
at once (see "the statement cache" below). Below that, each user's projection
of a table is built once and cached as text (keyed by the table's columns, the
user's rules for it, their attributes and the mask salt, so an edited rule is
never served stale either). In the tree, the reference
points at a marker with a per-statement random name, and the marker is
swapped for the projection's text after rendering.

A table the user may not see is reported as "table not found", exactly like a
table that does not exist.
"""

from __future__ import annotations

import functools
import secrets
import threading
import time
from collections import abc
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from sqlglot import exp

from workbench_app.engine.catalog_schema import SchemaCatalog, TableInfo, TableName, candidate_names
from workbench_app.engine.dialect import parse_single_statement, render
from workbench_app.engine.duckdb_parse_check import (
    check_statement_facts,
    duckdb_can_read,
    expression_statement,
    parse_facts_many,
)
from workbench_app.engine.errors import STATEMENT_NOT_ALLOWED, SYNTAX_ERROR, TABLE_NOT_FOUND, EngineError
from workbench_app.engine.permissions import (
    ColumnMask,
    GroupGrant,
    ParameterSink,
    TableAccess,
    UserContext,
    clear_rule_caches,
    record_expression_checks,
    table_access,
    unchecked_expressions,
)
from workbench_app.engine.statement_policy import check_statement, is_table_function
from workbench_app.engine.written_names import name_columns_as_written

_RESULT_ALIAS = "wb_result"
#: Longer statements are refused before parsing (a question is never this long).
MAX_STATEMENT_LENGTH = 200_000


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


class _RuleExpressionRefused(Exception):
    """DuckDB's parser refused a rule expression that a projection was built with."""


@dataclass
class _RewriteState:
    user: UserContext
    schema: SchemaCatalog
    options: RewriteOptions
    nonce: str = field(default_factory=lambda: secrets.token_hex(4))
    tables: dict[tuple[str, str, str], TableName] = field(default_factory=dict)
    references: dict[tuple[str, str, str], int] = field(default_factory=dict)  # real table -> times emitted
    cte_names: dict[int, str] = field(default_factory=dict)  # id(CTE node) -> internal name
    markers: dict[str, "_Projection"] = field(default_factory=dict)  # marker -> projection
    parameters: dict[str, Any] = field(default_factory=dict)
    #: Rule expressions in the projections that DuckDB's parser has not checked yet.
    unchecked: set[str] = field(default_factory=set)
    attributes_key: tuple | None = None  # the user's attributes, as part of projection cache keys


@dataclass
class _BuildState:
    """State of building one table's projection."""

    options: RewriteOptions
    sink: ParameterSink = field(default_factory=ParameterSink)
    salt_parameter: exp.Placeholder | None = None
    used_row_filters: set[int] = field(default_factory=set)

    def row_filter(self, grant: GroupGrant) -> exp.Expression:
        """The grant's row filter, bound for this build: itself the first time, then copies."""
        if id(grant) in self.used_row_filters:
            return grant.row_filter.copy()  # a node has one parent
        self.used_row_filters.add(id(grant))
        return grant.row_filter


@dataclass(frozen=True)
class _Projection:
    """What replaces one table for one user: the plain table, or a ``(SELECT ...)`` text."""

    table: TableName
    unrestricted: bool
    sql: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    #: Rule expressions it was built with before DuckDB's parser had checked them.
    unchecked: frozenset[str] = frozenset()


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
    if len(sql) > MAX_STATEMENT_LENGTH:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement is too long.")
    if not duckdb_can_read(sql):
        # DuckDB's parser stops at a NUL and takes UTF-8 only: the text it checks must be ours.
        raise EngineError(SYNTAX_ERROR, "Syntax error: the statement contains a NUL or an invalid character.")
    started = time.perf_counter()
    arguments = (sql, user, schema, options or RewriteOptions(), dict(parameters or {}), row_limit)
    key = _statement_key(*arguments)
    if key is not None:
        with _CACHE_LOCK:
            cached = _STATEMENT_CACHE.get(key)
        if cached is not None:
            # A fresh dict: the caller may add to it, and the entry is shared.
            return replace(cached, parameters=dict(cached.parameters), rewrite_seconds=time.perf_counter() - started)
    try:
        try:
            rewritten = _rewrite(*arguments)
        except _RuleExpressionRefused:
            # The groups whose rule DuckDB's parser refused now grant nothing:
            # build again. Every expression has a verdict now, so this is the last try.
            rewritten = _rewrite(*arguments)
    except _RuleExpressionRefused:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement could not be checked.") from None
    except RecursionError:
        # sqlglot, the JSON decoder and the generator all recurse on nesting depth.
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement is nested too deeply.") from None
    if key is not None:
        _remember(key, rewritten)
    return rewritten


# --- the statement cache -------------------------------------------------------------------
#
# A rewrite is a pure function of its inputs: the statement text, its bound
# values, the person's groups with every rule and their attributes, the catalog
# snapshot and the engine's options (the random names it makes up aside). Every
# check it makes (sqlglot's policy, DuckDB's parse of the final text, the rule
# expressions' verdicts, the allow-lists) depends on nothing else, and the
# allow-lists are constants. So a successful rewrite is kept under a key made of
# all of those inputs and served again for exactly the same inputs: a worker
# re-running a dashboard's card or an analyst re-running a query skips sqlglot
# and DuckDB's parser altogether. An edited rule, attribute or catalog changes
# the key, so it applies at once; a refusal is never cached.

_STATEMENT_CACHE: dict[Any, RewrittenStatement] = {}
_STATEMENT_CACHE_SIZE = 2048
#: Longer statements are rewritten every time rather than held in memory.
_STATEMENT_CACHE_MAX_LENGTH = 20_000
#: Characters held (statements and their rewrites): a bound on memory, whatever their sizes.
_STATEMENT_CACHE_MAX_CHARS = 16_000_000
_statement_cache_chars = 0


def _remember(key: Any, rewritten: RewrittenStatement) -> None:
    global _statement_cache_chars
    size = len(key[0]) + len(rewritten.sql)
    with _CACHE_LOCK:
        if len(_STATEMENT_CACHE) >= _STATEMENT_CACHE_SIZE or _statement_cache_chars + size > _STATEMENT_CACHE_MAX_CHARS:
            _STATEMENT_CACHE.clear()
            _statement_cache_chars = 0
        if key not in _STATEMENT_CACHE:
            _statement_cache_chars += size
        _STATEMENT_CACHE[key] = replace(rewritten, parameters=dict(rewritten.parameters))


def _statement_key(
    sql: str,
    user: UserContext,
    schema: SchemaCatalog,
    options: RewriteOptions,
    parameters: Mapping[str, Any],
    row_limit: int | None,
) -> Any:
    """The statement cache's key for these inputs, or None when they are not to be cached."""
    if len(sql) > _STATEMENT_CACHE_MAX_LENGTH:
        return None
    try:
        return _key_of(sql, user, schema, options, parameters, row_limit)
    except (RecursionError, TypeError):
        # A value nested too deeply, or one whose stand-ins do not sort: rewrite it every time.
        return None


def _key_of(
    sql: str,
    user: UserContext,
    schema: SchemaCatalog,
    options: RewriteOptions,
    parameters: Mapping[str, Any],
    row_limit: int | None,
) -> Any:
    groups = tuple(
        (
            group.name,
            tuple(sorted(group.unrestricted_catalogs)),
            tuple(rule.fingerprint for rule in group.table_rules),
        )
        for group in user.groups
    )
    # The person's id too, though equal rules and attributes give equal rewrites:
    # an entry is then never shared between two people, whatever the key misses.
    return (
        sql,
        _values_key(parameters),
        user.user_id,
        groups,
        _attributes_key(user),
        schema.fingerprint,
        options,
        row_limit,
    )


def _value_key(value: Any) -> Any:
    """A hashable stand-in for a bound value or an attribute, equal only for equal values of one type."""
    # The type as well as the value: 1, 1.0, True, '1' and Decimal('1') bind differently.
    kind = (type(value).__module__, type(value).__qualname__)
    if isinstance(value, (list, tuple)):
        return (kind, tuple(_value_key(item) for item in value))
    if isinstance(value, abc.Mapping):  # collections.abc's: typing.Mapping's check is slower
        return (kind, _values_key(value))
    return (kind, repr(value))


def _values_key(values: Mapping[Any, Any]) -> tuple:
    # Names keyed with their type too: {1: x} and {"1": x} are different attributes.
    return tuple(sorted((_value_key(name), _value_key(value)) for name, value in values.items()))


def _rewrite(
    sql: str,
    user: UserContext,
    schema: SchemaCatalog,
    options: RewriteOptions,
    parameters: dict[str, Any],
    row_limit: int | None,
) -> RewrittenStatement:
    started = time.perf_counter()
    tree = parse_single_statement(sql)
    check_statement(tree, allowed_parameters=parameters, sql=sql)
    name_columns_as_written(tree, sql)
    state = _RewriteState(user=user, schema=schema, options=options)

    ctes: list[exp.CTE] = []
    tables: list[exp.Table] = []
    for node in tree.walk():  # one pass, in the order of find_all
        if isinstance(node, exp.CTE):
            ctes.append(node)
        elif isinstance(node, exp.Table):
            tables.append(node)
    for cte in ctes:
        state.cte_names[id(cte)] = f"wb_cte_{len(state.cte_names)}"

    # Decide every reference on the untouched tree first, then edit it.
    decisions: list[tuple[exp.Table, str, Any]] = []
    for table in tables:
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
            _point_at_projection(table, target, state)
    for cte in ctes:  # the edits above add no CTE
        _rename_cte(cte, state.cte_names[id(cte)])

    if row_limit is not None:
        tree = _limit(tree, row_limit)

    final_sql = _splice_projections(render(tree), state)
    all_parameters = {**parameters, **state.parameters}
    # One call to DuckDB's parser for the statement and for the rule expressions
    # it has not checked yet; their verdicts come first, since a refused one means
    # a group that should grant nothing was counted in.
    unchecked = sorted(state.unchecked)
    statement_facts, *expression_facts = parse_facts_many(
        [final_sql, *(expression_statement(template) for template in unchecked)]
    )
    if record_expression_checks(dict(zip(unchecked, expression_facts))):
        raise _RuleExpressionRefused()
    check_statement_facts(
        statement_facts,
        allowed_tables=state.references,
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
                # Identity, not ==: sqlglot compares trees structurally.
                index = next((i for i, cte in enumerate(ctes) if cte is inside), len(ctes))
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
    original = _same_identifier(table.this)
    table.set("this", exp.to_identifier(internal_name))
    if not table.args.get("alias"):
        table.set("alias", exp.TableAlias(this=original))


def _rename_cte(cte: exp.CTE, internal_name: str) -> None:
    alias = cte.args.get("alias")
    columns = alias.args.get("columns") if alias is not None else None
    cte.set("alias", exp.TableAlias(this=exp.to_identifier(internal_name), columns=columns))


# --- table resolution ----------------------------------------------------------------------


def _resolve(table: exp.Table, state: _RewriteState) -> "_Projection":
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
        projection = _projection_for(info, state)
        if projection is not None:
            state.tables[info.table.key] = info.table
            return projection
    raise EngineError(TABLE_NOT_FOUND, f"Table {written!r} not found.")


def _candidates(names: list[str], state: _RewriteState) -> list[TableName]:
    return candidate_names(names, state.schema, state.options.default_catalog, state.options.default_schema)


# --- the projection that replaces a table ---------------------------------------------------


def _quoted(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _same_identifier(identifier: exp.Identifier) -> exp.Identifier:
    # Not identifier.copy(): that also deep-copies the parser's position metadata.
    return exp.Identifier(this=identifier.this, quoted=identifier.args.get("quoted"))


def _point_at_projection(table: exp.Table, projection: _Projection, state: _RewriteState) -> None:
    """Make a table reference read the projection, keeping its alias, pivots and sample."""
    if not table.args.get("alias"):
        # Qualified column references (events.page) use the name as written.
        table.set("alias", exp.TableAlias(this=_same_identifier(table.this)))
    real = projection.table
    state.references[real.key] = state.references.get(real.key, 0) + 1
    if projection.unrestricted:
        # Nothing to hide: keep the plain table so that DuckDB pushes filters to the source.
        table.set("catalog", _quoted(real.catalog))
        table.set("db", _quoted(real.schema))
        table.set("this", _quoted(real.name))
        return
    # A marker with a per-statement random name, swapped for the projection's
    # text after rendering: the projection is rendered once per user and table.
    marker = f"wbrel_{state.nonce}_{len(state.markers)}"
    state.markers[marker] = projection
    state.parameters.update(projection.parameters)
    table.set("catalog", None)
    table.set("db", None)
    table.set("this", _quoted(marker))


def _splice_projections(sql: str, state: _RewriteState) -> str:
    for marker, projection in state.markers.items():
        quoted = f'"{marker}"'
        if sql.count(quoted) != 1:
            # Cannot happen unless the text was tampered with: refuse rather than guess.
            raise EngineError(STATEMENT_NOT_ALLOWED, "The statement could not be checked.")
        sql = sql.replace(quoted, projection.sql)
    return sql


_PROJECTION_CACHE: dict[Any, _Projection | None] = {}
_PROJECTION_CACHE_SIZE = 4096
_MISSING = object()
_CACHE_LOCK = threading.Lock()


def _projection_key(user: UserContext, info: TableInfo, options: RewriteOptions, attributes: tuple) -> Any:
    # Everything the projection depends on: the table's columns, this user's
    # rules for it in each group, their attributes and the mask salt. Editing a
    # rule changes the key, so a cached projection is never stale.
    table_key = info.table.key
    catalog = table_key[0]
    rules = []
    for group in user.groups:
        relevant = tuple(rule.fingerprint for rule in group.table_rules if rule.key == table_key)
        whole_catalog = any(c.lower() == catalog for c in group.unrestricted_catalogs)
        if relevant or whole_catalog:
            rules.append((group.name, whole_catalog, relevant))
    return (info, tuple(sorted(rules)), attributes, options.mask_salt)


def _attributes_key(user: UserContext) -> tuple:
    return _values_key(user.attributes)


def _projection_for(info: TableInfo, state: _RewriteState) -> _Projection | None:
    """The user's projection of a table (cached), or None when the table does not exist for them.

    Rule expressions that DuckDB's parser has not checked yet are added to
    ``state.unchecked``: they are checked before anything runs.
    """
    user, options, unchecked = state.user, state.options, state.unchecked
    if state.attributes_key is None:
        state.attributes_key = _attributes_key(user)
    key = _projection_key(user, info, options, state.attributes_key)
    with _CACHE_LOCK:
        cached = _PROJECTION_CACHE.get(key, _MISSING)
    if cached is not _MISSING:
        still_unchecked = unchecked_expressions(cached.unchecked) if cached is not None else frozenset()
        if still_unchecked is not None:
            unchecked.update(still_unchecked)
            return cached
        # Built with an expression that DuckDB's parser has refused since: build it again.
    build = _BuildState(options=options)
    pending: set[str] = set()
    access = table_access(user, info, build.sink, pending)
    # A refused expression only takes a grant away: a table that is invisible or
    # unrestricted with every expression taken as usable stays so without them.
    if access is None:
        projection = None
    elif access.unrestricted:
        projection = _Projection(info.table, unrestricted=True)
    else:
        projection = _Projection(
            info.table,
            unrestricted=False,
            sql=f"({render(_projection_select(access, build))})",
            parameters=dict(build.sink.values),
            unchecked=frozenset(pending),
        )
        unchecked.update(pending)
    with _CACHE_LOCK:
        if len(_PROJECTION_CACHE) >= _PROJECTION_CACHE_SIZE:
            _PROJECTION_CACHE.clear()
        _PROJECTION_CACHE[key] = projection
    return projection


def clear_caches() -> None:
    """Forget every rewritten statement, projection and parsed rule (for tests and the cold benchmark)."""
    clear_statement_cache()
    with _CACHE_LOCK:
        _PROJECTION_CACHE.clear()
    clear_rule_caches()


def clear_statement_cache() -> None:
    """Forget rewritten statements only: the next rewrite of each is built again from the
    cached projections and rule checks (the benchmark's "warm, new statements")."""
    global _statement_cache_chars
    with _CACHE_LOCK:
        _STATEMENT_CACHE.clear()
        _statement_cache_chars = 0


def _projection_select(access: TableAccess, build: _BuildState) -> exp.Select:
    real = access.table.table
    base = exp.Table(this=_quoted(real.name), db=_quoted(real.schema), catalog=_quoted(real.catalog))
    projections = []
    for column in access.visible_columns():
        expression = _column_expression(column.name, column.data_type, access, build)
        if not (isinstance(expression, exp.Column) and expression.name == column.name and not expression.table):
            # The column itself keeps its own name; anything else is named after it.
            expression = exp.alias_(expression, _quoted(column.name), copy=False)
        projections.append(expression)
    select = exp.Select(expressions=projections).from_(base, copy=False)
    predicate = _row_predicate(access.grants, build)
    if predicate is not None:
        select = select.where(predicate, copy=False)
    return select


def _row_predicate(grants: tuple[GroupGrant, ...], build: _BuildState) -> exp.Expression | None:
    filters = []
    for grant in grants:
        if grant.row_filter is None:
            return None  # one grant reads every row
        filters.append(exp.paren(build.row_filter(grant), copy=False))
    return exp.or_(*filters, copy=False) if len(filters) > 1 else filters[0]


def _treatment(grant: GroupGrant, column: str) -> tuple[str, Any]:
    lowered = column.lower()
    if lowered in grant.hidden:
        return ("hidden", None)
    mask = grant.masks.get(lowered)
    if mask is None:
        return ("clear", None)
    return ("mask", mask)


def _column_expression(column: str, data_type: str, access: TableAccess, state: _BuildState) -> exp.Expression:
    lowered = column.lower()
    if not any(lowered in g.hidden or lowered in g.masks for g in access.grants):
        return exp.Column(this=_quoted(column))  # every grant shows it in clear: most columns
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
            return case.else_(value, copy=False) if case.args.get("ifs") else value
        case = case.when(exp.paren(state.row_filter(grant), copy=False), value, copy=False)
    return case.else_(exp.Null(), copy=False)


def _apply(
    column: str,
    data_type: str,
    kind: str,
    mask: ColumnMask | None,
    grant: GroupGrant,
    state: _BuildState,
    as_text: bool,
) -> exp.Expression:
    ref = exp.Column(this=_quoted(column))
    if kind == "clear":
        return _as_text(ref) if as_text else ref
    if kind == "hidden" or mask is None:
        return exp.Null()
    if mask.kind == "null":
        return exp.Null() if as_text else _typed_null(data_type)
    as_varchar = _as_text(ref.copy())
    if mask.kind == "hash":
        if state.salt_parameter is None:
            state.salt_parameter = state.sink.bind(state.options.mask_salt, "salt")
        # NULL stays NULL: `||` with a NULL operand is NULL in DuckDB, and so is sha256(NULL).
        return exp.Anonymous(
            this="sha256", expressions=[exp.DPipe(this=state.salt_parameter.copy(), expression=as_varchar)]
        )
    if mask.kind == "partial":
        return _null_if_null(ref, _partial(as_varchar, mask.keep_first, mask.keep_last))
    value = grant.mask_expressions[column.lower()].copy()
    return _as_text(value) if as_text else value


@functools.lru_cache(maxsize=1024)
def _data_type(data_type: str) -> exp.DataType | None:
    try:
        return exp.DataType.build(data_type, dialect="duckdb")
    except Exception:  # an exotic source type
        return None


def _as_text(value: exp.Expression) -> exp.Expression:
    return exp.Cast(this=value, to=exp.DataType(this=exp.DataType.Type.VARCHAR))


def _typed_null(data_type: str) -> exp.Expression:
    parsed = _data_type(data_type)
    # An untyped NULL is still a NULL when the source type is exotic.
    return exp.Cast(this=exp.Null(), to=parsed.copy()) if parsed is not None else exp.Null()


def _null_if_null(ref: exp.Expression, value: exp.Expression) -> exp.Expression:
    return (
        exp.Case()
        .when(exp.Is(this=ref.copy(), expression=exp.Null()), exp.Null(), copy=False)
        .else_(value, copy=False)
    )


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
    return exp.Case().when(too_short, stars_all, copy=False).else_(shown, copy=False)


def _limit(tree: exp.Expression, row_limit: int) -> exp.Expression:
    if row_limit < 0:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The row limit cannot be negative.")
    if isinstance(tree, exp.Query) and not isinstance(tree, exp.Values):
        existing = tree.args.get("limit")
        if existing is None:
            tree.set("limit", exp.Limit(expression=exp.Literal.number(row_limit)))
            return tree
        written = existing.expression if isinstance(existing, exp.Limit) else None
        if (
            isinstance(written, exp.Literal)
            and written.is_int
            and not existing.args.get("limit_options")
        ):
            # A plain LIMIT n: lower it in place (wrapping would rename duplicate columns).
            existing.set("expression", exp.Literal.number(min(int(written.this), row_limit)))
            return tree
    # Any other LIMIT (an expression, a percentage): cap it from outside.
    subquery = exp.Subquery(this=tree, alias=exp.TableAlias(this=exp.to_identifier(_RESULT_ALIAS)))
    wrapper = exp.Select(expressions=[exp.Star()]).from_(subquery, copy=False)
    wrapper.set("limit", exp.Limit(expression=exp.Literal.number(row_limit)))
    return wrapper
