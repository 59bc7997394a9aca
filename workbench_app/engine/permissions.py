"""Permission rules, the user they apply to, and how several groups combine.

Rules
-----
A :class:`GroupPermissions` says what one group may read:

* ``unrestricted_catalogs``: catalogs whose every table (today's and future ones)
  the group reads without restriction;
* ``table_rules``: one :class:`TableRule` per table, which overrides the catalog
  grant of the same group for that table. A rule gives access (or, with
  ``access=False``, withdraws the group's catalog grant on that table), an
  optional row filter (a DuckDB SQL condition on the table's own columns that
  may use ``{{user.<attribute>}}``), hidden columns and masked columns
  (:class:`ColumnMask`: ``null``, ``hash``, ``partial`` or ``expression``).

Combining a user's groups (fail-closed)
---------------------------------------
Groups add rights; nothing is visible unless some group grants it. Each group
is evaluated on its own into a *grant* for the table, or no grant. A group
gives no grant when it has no rule for the table and no catalog grant, when
its rule says ``access=False``, when its rule uses a ``{{user.x}}`` attribute
the user does not have, when it has two rules for the same table, or when its
rule is invalid (does not parse, names a column the table lacks, calls a
function outside the allow-list, reads another table). Then, per cell:

* a **row** is visible if at least one grant's row filter accepts it;
* a **column** exists for the user if at least one grant does not hide it;
  otherwise it does not exist (``SELECT *`` omits it, naming it is "column
  not found");
* a **cell** shows the clear value if a grant that accepts the row shows the
  column in clear; otherwise the masked value of the first grant (by group
  name) that accepts the row and masks the column; otherwise NULL (the row
  comes from a group that hides that column).

So a user never sees a cell that none of their groups would show them, and
the result does not depend on the order groups are listed in. When groups
treat a column differently, a masked or mixed column is returned as text.

Native SQL (sent to a source without this rewrite) is allowed for a catalog
only when one group grants the whole catalog without any restricting table rule
(:func:`native_sql_allowed`).

See ``PERMISSIONS.md`` beside this module for the same rules with examples.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import re
import secrets
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Mapping

from sqlglot import exp

from workbench_app.engine.catalog_schema import SchemaCatalog, TableInfo, TableName
from workbench_app.engine.dialect import parse_expression
from workbench_app.engine.duckdb_parse_check import (
    ParseFacts,
    duckdb_can_read,
    expression_refusal,
    expression_statement,
    parse_facts_many,
)
from workbench_app.engine.errors import EngineError

log = logging.getLogger(__name__)

MASK_KINDS = ("null", "hash", "partial", "expression")
_USER_ATTRIBUTE = re.compile(r"\{\{\s*user\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
AttributeValue = str | int | float | bool | Decimal | dt.date | dt.datetime | list | tuple


@dataclass(frozen=True)
class ColumnMask:
    """How a masked column's value is replaced.

    ``null``: NULL. ``hash``: hex SHA-256 of the value keyed with the engine's
    mask salt (equal values stay equal, joins on them still work).
    ``partial``: keep ``keep_first`` leading and ``keep_last`` trailing
    characters and star the rest; values shorter than twice the kept length are
    starred entirely. ``expression``: a DuckDB SQL expression over the row's
    columns (may use ``{{user.<attribute>}}``).
    """

    kind: str
    keep_last: int = 4
    keep_first: int = 0
    expression: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in MASK_KINDS:
            raise ValueError(f"unknown mask kind {self.kind!r}")
        if self.kind == "expression" and not self.expression:
            raise ValueError("an expression mask needs an expression")
        if self.keep_first < 0 or self.keep_last < 0:
            raise ValueError("kept character counts cannot be negative")


@dataclass(frozen=True)
class TableRule:
    """One group's rule for one table (names match case-insensitively).

    Immutable, ``masked_columns`` included: its fingerprint, part of the rewrite's
    cache keys, is computed once.
    """

    catalog: str
    schema: str
    table: str
    access: bool = True
    row_filter: str | None = None
    hidden_columns: frozenset[str] = frozenset()
    masked_columns: Mapping[str, ColumnMask] = field(default_factory=dict)

    @functools.cached_property
    def key(self) -> tuple[str, str, str]:
        """Case-insensitive identity of the table the rule is about."""
        return (self.catalog.lower(), self.schema.lower(), self.table.lower())

    @functools.cached_property
    def fingerprint(self) -> str:
        """Everything the rule says, as text (part of the rewrite's cache keys)."""
        return repr(self)

    @property
    def is_restricting(self) -> bool:
        """True when the rule gives less than the whole table in clear."""
        return (not self.access) or bool(self.row_filter) or bool(self.hidden_columns) or bool(
            self.masked_columns
        )


@dataclass(frozen=True)
class GroupPermissions:
    """What one group may read."""

    name: str
    unrestricted_catalogs: frozenset[str] = frozenset()
    table_rules: tuple[TableRule, ...] = ()


@dataclass(frozen=True)
class UserContext:
    """The person a statement runs for: id, directory attributes and groups."""

    user_id: str
    groups: tuple[GroupPermissions, ...] = ()
    attributes: Mapping[str, Any] = field(default_factory=dict)


# --- evaluated grants ----------------------------------------------------------------------


class ParameterSink:
    """Collects values bound as DuckDB ``$parameters`` for one statement.

    Names carry a random nonce so that text written by a user can never refer
    to a value that a rule bound (an attribute, the mask salt).
    """

    def __init__(self) -> None:
        self.nonce = secrets.token_hex(4)
        self.values: dict[str, Any] = {}

    def bind(self, value: Any, hint: str = "p") -> exp.Placeholder:
        """Keep ``value`` and return the ``$parameter`` node that stands for it."""
        name = f"wbp_{self.nonce}_{hint}_{len(self.values)}"
        self.values[name] = value
        return exp.Placeholder(this=name)


@dataclass(frozen=True)
class GroupGrant:
    """One group's evaluated grant on one table."""

    group: str
    row_filter: exp.Expression | None
    hidden: frozenset[str]  # lower-case column names
    masks: Mapping[str, ColumnMask]  # lower-case column name -> mask
    mask_expressions: Mapping[str, exp.Expression]  # bound trees of "expression" masks

    @property
    def unrestricted(self) -> bool:
        """This grant alone shows every row and column in clear."""
        return self.row_filter is None and not self.hidden and not self.masks


@dataclass(frozen=True)
class VisibleColumn:
    """A column as the user sees it: ``masked`` when at least one grant masks it."""

    name: str
    data_type: str
    masked: bool
    comment: str | None = None


@dataclass(frozen=True)
class TableAccess:
    """The combined grants of a user's groups on one table."""

    table: TableInfo
    grants: tuple[GroupGrant, ...]

    @property
    def unrestricted(self) -> bool:
        """Some group shows the whole table in clear, so nothing needs rewriting."""
        return any(grant.unrestricted for grant in self.grants)

    def visible_columns(self) -> list[VisibleColumn]:
        """Columns that exist for the user, in table order."""
        return list(self._visible_columns)

    @functools.cached_property
    def _visible_columns(self) -> tuple[VisibleColumn, ...]:
        if self.unrestricted:
            return tuple(VisibleColumn(c.name, c.data_type, False, c.comment) for c in self.table.columns)
        if not self.grants:
            return ()
        # A column exists if one grant does not hide it; it is masked if one of those masks it.
        hidden_by_all = frozenset.intersection(*(frozenset(g.hidden) for g in self.grants))
        masked_by_some = {name for g in self.grants for name in g.masks if name not in g.hidden}
        return tuple(
            VisibleColumn(column.name, column.data_type, key in masked_by_some, column.comment)
            for column, key in zip(self.table.columns, self.table.column_keys)
            if key not in hidden_by_all
        )


# --- evaluation ----------------------------------------------------------------------------


def _rules_for(group: GroupPermissions, table: TableName) -> list[TableRule]:
    return [rule for rule in group.table_rules if rule.key == table.key]


def _attribute_value(attributes: Mapping[str, Any], name: str) -> Any:
    value = attributes.get(name)
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return list(value) if value else None
    if isinstance(value, (str, int, float, bool, Decimal, dt.date, dt.datetime)):
        return value
    return None  # an attribute of an unknown type is treated as missing (fail-closed)


def _attributes_present(expression: str | None, attributes: Mapping[str, Any]) -> bool:
    if not expression:
        return True
    return all(
        _attribute_value(attributes, name) is not None for name in _USER_ATTRIBUTE.findall(expression)
    )


@dataclass(frozen=True)
class _RuleExpression:
    tree: exp.Expression  # {{user.x}} as $wbattr_x placeholders
    template: str  # the text DuckDB's parser checks


@functools.lru_cache(maxsize=4096)
def _parsed_rule_expression(text: str, column_names: tuple[str, ...]) -> _RuleExpression:
    """Parse a rule expression once; ``{{user.x}}`` becomes ``$wbattr_x``.

    Raises EngineError when sqlglot's reading already shows that the expression
    may not be used (the caller then treats the group as giving no grant).
    Which functions it calls is DuckDB's parser's decision: see :func:`_rule_expression`.
    """
    if not duckdb_can_read(text):
        raise EngineError("syntax_error", "A rule expression may not contain a NUL or an invalid character.")
    template = _USER_ATTRIBUTE.sub(lambda m: f" $wbattr_{m.group(1)} ", text)
    tree = parse_expression(template)
    known = set(column_names)
    for node in tree.walk():
        # The parser's position metadata (for error messages) is never needed
        # again, and deep-copying it triples the cost of binding the tree.
        node._meta = None
        if isinstance(node, (exp.Query, exp.Table, exp.Subquery)):
            raise EngineError("statement_not_allowed", "A rule expression may not read other tables.")
        if isinstance(node, exp.Column):
            if node.table or node.name.lower() not in known:
                raise EngineError("column_not_found", "A rule names a column the table does not have.")
        if isinstance(node, exp.Placeholder) and not str(node.name).startswith("wbattr_"):
            raise EngineError("variable_error", "A rule may only use {{user.<attribute>}} placeholders.")
    return _RuleExpression(tree, template)


# DuckDB's parser's verdict on each rule expression template: None when it may be
# used, else (code, message) of the refusal. Templates are the administrators'
# texts, so this stays small; it is emptied if it ever grows past the bound.
_EXPRESSION_VERDICTS: dict[str, tuple[str, str] | None] = {}
_EXPRESSION_VERDICTS_SIZE = 4096
_UNCHECKED = object()


def _rule_expression(text: str, column_names: tuple[str, ...], unchecked: set[str] | None) -> _RuleExpression:
    """A usable rule expression, or EngineError.

    DuckDB's parser checks each template once. With ``unchecked`` (a set), a
    template it has not seen yet is taken as usable and added to the set: the
    caller owes that check before running anything (the rewrite makes it in
    the same DuckDB call as the statement's own check, then records it with
    :func:`record_expression_checks`). Without it, the check is made now.
    """
    expression = _parsed_rule_expression(text, column_names)
    verdict = _EXPRESSION_VERDICTS.get(expression.template, _UNCHECKED)
    if verdict is _UNCHECKED:
        if unchecked is not None:
            unchecked.add(expression.template)
            return expression
        facts = parse_facts_many([expression_statement(expression.template)])[0]
        record_expression_checks({expression.template: facts})
        verdict = _EXPRESSION_VERDICTS.get(expression.template)
    if verdict is not None:
        raise EngineError(*verdict)
    return expression


def check_rule_expression(text: str, column_names: tuple[str, ...]) -> None:
    """Refuse (EngineError) a rule expression the engine would not use on a table with these columns."""
    _rule_expression(text, tuple(name.lower() for name in column_names), None)


def unknown_columns(text: str, column_names: tuple[str, ...]) -> list[str]:
    """The column names a rule expression uses that the table lacks (for the administration screen)."""
    try:
        tree = parse_expression(_USER_ATTRIBUTE.sub(lambda m: f" $wbattr_{m.group(1)} ", text))
    except Exception:  # noqa: BLE001 - a syntax error is reported by check_rule_expression
        return []
    known = {name.lower() for name in column_names}
    return sorted({node.name for node in tree.find_all(exp.Column) if node.name.lower() not in known})


def record_expression_checks(checked: Mapping[str, ParseFacts]) -> bool:
    """Keep DuckDB's verdict on rule expression templates; True when one of them is refused."""
    refused = False
    if len(_EXPRESSION_VERDICTS) >= _EXPRESSION_VERDICTS_SIZE:
        _EXPRESSION_VERDICTS.clear()
    for template, facts in checked.items():
        refusal = expression_refusal(facts)
        _EXPRESSION_VERDICTS[template] = None if refusal is None else (refusal.code, refusal.message)
        refused = refused or refusal is not None
    return refused


def unchecked_expressions(templates: frozenset[str]) -> frozenset[str] | None:
    """Of these rule expression templates, those DuckDB's parser has not checked yet; None if it refused one."""
    if not templates:
        return templates
    verdicts = {template: _EXPRESSION_VERDICTS.get(template, _UNCHECKED) for template in templates}
    if any(verdict is not None and verdict is not _UNCHECKED for verdict in verdicts.values()):
        return None
    return frozenset(template for template, verdict in verdicts.items() if verdict is _UNCHECKED)


def clear_rule_caches() -> None:
    """Forget parsed rule expressions and their checks (they are rebuilt on next use)."""
    _parsed_rule_expression.cache_clear()
    _EXPRESSION_VERDICTS.clear()


def _bind_rule_expression(
    text: str,
    table: TableInfo,
    attributes: Mapping[str, Any],
    sink: ParameterSink | None,
    unchecked: set[str] | None,
) -> exp.Expression:
    tree = _rule_expression(text, table.column_keys, unchecked).tree
    if sink is None:
        return tree
    bound = tree.copy()
    for placeholder in list(bound.find_all(exp.Placeholder)):
        attribute = str(placeholder.name)[len("wbattr_") :]
        placeholder.replace(sink.bind(_attribute_value(attributes, attribute), "attr"))
    return bound


def _group_grant(
    group: GroupPermissions,
    table: TableInfo,
    attributes: Mapping[str, Any],
    sink: ParameterSink | None,
    unchecked: set[str] | None,
) -> GroupGrant | None:
    rules = _rules_for(group, table.table)
    if len(rules) > 1:
        log.warning("group %s has several rules for %s: it grants nothing there", group.name, table.table)
        return None
    if not rules:
        catalogs = {catalog.lower() for catalog in group.unrestricted_catalogs}
        if table.table.catalog.lower() in catalogs:
            return GroupGrant(group.name, None, frozenset(), {}, {})
        return None
    rule = rules[0]
    if not rule.access:
        return None
    expressions = [rule.row_filter] + [
        mask.expression for mask in rule.masked_columns.values() if mask.kind == "expression"
    ]
    if not all(_attributes_present(text, attributes) for text in expressions):
        return None  # a missing attribute closes this group's access to the table
    try:
        row_filter = (
            _bind_rule_expression(rule.row_filter, table, attributes, sink, unchecked) if rule.row_filter else None
        )
        mask_expressions = {
            name.lower(): _bind_rule_expression(mask.expression, table, attributes, sink, unchecked)
            for name, mask in rule.masked_columns.items()
            if mask.kind == "expression"
        }
    except EngineError as error:
        log.warning("group %s: rule for %s is invalid (%s): it grants nothing", group.name, table.table, error.message)
        return None
    return GroupGrant(
        group=group.name,
        row_filter=row_filter,
        hidden=frozenset(name.lower() for name in rule.hidden_columns),
        masks={name.lower(): mask for name, mask in rule.masked_columns.items()},
        mask_expressions=mask_expressions,
    )


def table_access(
    user: UserContext,
    table: TableInfo,
    sink: ParameterSink | None = None,
    unchecked: set[str] | None = None,
) -> TableAccess | None:
    """The user's combined access to ``table``, or None when the table does not exist for them.

    With a ``sink``, attribute values are bound as parameters into the returned
    expressions; without one, only visibility is decided. With ``unchecked``,
    rule expressions DuckDB's parser has not checked yet are assumed usable and
    collected there, for the caller to check (see :func:`_rule_expression`).
    """
    grants = []
    for group in sorted(user.groups, key=lambda g: g.name):
        grant = _group_grant(group, table, user.attributes, sink, unchecked)
        if grant is not None:
            grants.append(grant)
    if not grants:
        return None
    access = TableAccess(table, tuple(grants))
    if not access.visible_columns():
        return None  # every column hidden: the table does not exist for the user
    return access


def visible_schema(user: UserContext, schema: SchemaCatalog) -> list[tuple[TableInfo, list[VisibleColumn]]]:
    """Every table the user may read, with the columns that exist for them."""
    result = []
    for info in sorted(schema, key=lambda i: i.table.key):
        access = table_access(user, info)
        if access is not None:
            result.append((info, access.visible_columns()))
    return result


def native_sql_allowed(user: UserContext, catalog: str) -> bool:
    """Whether the user may send native SQL to ``catalog`` (no restriction there at all)."""
    lowered = catalog.lower()
    for group in user.groups:
        if lowered not in {c.lower() for c in group.unrestricted_catalogs}:
            continue
        if not any(rule.catalog.lower() == lowered and rule.is_restricting for rule in group.table_rules):
            return True
    return False


def rule_problems(rule: TableRule, table: TableInfo) -> list[str]:
    """Why a rule would grant nothing (for the administration screen); empty when valid."""
    problems = []
    column_names = table.column_keys
    # Not fatal, but a typo here leaves the real column in clear.
    for name in sorted(rule.hidden_columns):
        if name.lower() not in column_names:
            problems.append(f"hidden column {name}: the table has no such column")
    for name in sorted(rule.masked_columns):
        if name.lower() not in column_names:
            problems.append(f"masked column {name}: the table has no such column")
    texts = [("row filter", rule.row_filter)] + [
        (f"mask of {name}", mask.expression)
        for name, mask in rule.masked_columns.items()
        if mask.kind == "expression"
    ]
    for label, text in texts:
        if not text:
            continue
        try:
            _rule_expression(text, column_names, None)
        except EngineError as error:
            problems.append(f"{label}: {error.message}")
    return problems

