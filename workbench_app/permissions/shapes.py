"""Data permissions as requests set and check them: a group's catalogs, a table rule, a rule as it
is typed, and "view as" (base: request_shapes.py); and as the API answers them: a group's catalogs and
rules, a rule's check (base: answer_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from workbench_app.answer_shapes import AnswerShape
from workbench_app.engine.permissions import MASK_KINDS
from workbench_app.request_shapes import RequestShape, Text, TextList

TableName = Text(128, allow_empty=False)
# A SQL condition on the table's columns, with {{user.<attribute>}} placeholders (null: every row).
RowFilter = Text(4000) | None
# Column name -> how it is masked (permission_rules.py checks each mask and names the column).
MaskedColumns = Annotated[dict[str, Any], WithJsonSchema(
    {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/ColumnMask"}})]


class CatalogGrants(RequestShape):
    catalogs: TextList(500, 63)
    """The catalogs whose every table the group reads (replaces the list)."""


class RuleTarget(RequestShape):
    catalog: TableName
    # `schema` is a name BaseModel has: the field is `schema_`, the body's key `schema`.
    schema_: TableName = Field(alias="schema")
    table: TableName


class TableRule(RuleTarget):
    """A group's rule for one table (it replaces the group's rule for that table)."""
    access: bool = True
    """false: the group may not read the table, whatever its catalogs grant."""
    row_filter: RowFilter = None
    hidden_columns: TextList(500, 128) = []
    masked_columns: MaskedColumns = {}


class RuleToCheck(RuleTarget):
    row_filter: RowFilter = None


class PreviewStatement(RequestShape):
    sql: Text(100_000)
    """A sample statement, run as the person."""


# The answers (base: answer_shapes.py).

class Notice(AnswerShape):
    """A problem or a warning, in the error's shape."""
    code: str
    message: str
    details: dict[str, Any]


class ColumnMask(AnswerShape):
    """How a column is masked: null, a hash, part of it kept (keep_first and keep_last characters), or
    a SQL expression of the column."""
    kind: Literal[MASK_KINDS]  # type: ignore[valid-type]
    keep_first: Annotated[int, Field(ge=0, le=1000)] | None = None
    keep_last: Annotated[int, Field(ge=0, le=1000)] | None = None
    expression: str | None = None


class GroupRule(AnswerShape):
    """A group's stored rule for one table."""
    rule_id: int
    group_id: int
    catalog: str
    schema_: str = Field(alias="schema")
    table: str
    access: bool
    row_filter: str | None
    hidden_columns: list[str]
    masked_columns: dict[str, ColumnMask]
    created_at: datetime
    updated_at: datetime


class SavedRule(GroupRule):
    """A rule as POST /groups/{group_id}/rules answers it: with what it means now."""
    problems: list[str]
    """Why the rule grants nothing now (an unknown column, a table not attached): it is saved anyway."""
    warnings: list[Notice]
    """quoted_placeholder: a {{user.<attribute>}} inside quotes compares with the literal text."""


class GroupPermissions(AnswerShape):
    group_id: int
    catalogs: list[str]
    """The catalogs whose every table the group reads."""
    table_rules: list[GroupRule]


class RuleCheck(AnswerShape):
    valid: bool
    """false: the rule would grant nothing (see problems)."""
    columns: list[str]
    problems: list[Notice]
    warnings: list[Notice]
    """quoted_placeholder: a {{user.<attribute>}} inside quotes compares with the literal text and matches nothing."""
