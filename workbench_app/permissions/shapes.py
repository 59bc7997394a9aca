"""Data permissions as requests set and check them: a group's catalogs, a table rule, a rule as it
is typed, and "view as" (base: request_shapes.py)."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, WithJsonSchema

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
