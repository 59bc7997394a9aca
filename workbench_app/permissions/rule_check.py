"""Checking a table rule as an administrator writes it: the row filter parsed with the engine's
dialect against the table's columns as attached now, and the mistakes that parse but do not do
what was meant (a `{{user.<attribute>}}` written inside quotes).

The answer lists problems (the rule would grant nothing) and warnings (it works, but probably not
as intended), each a `{code, message, details}` whose message is in the catalogues.
"""
from __future__ import annotations

import re
from typing import Any

from workbench_app.engine import EngineError, TableName, WorkbenchEngine
from workbench_app.engine.permissions import check_rule_expression, unknown_columns
from workbench_app.errors import WorkbenchError

# '{{user.region}}' or "{{ user.region }}": the placeholder is bound as a value, so inside quotes
# it is the literal text "{{user.region}}" (or a quoted identifier), never the person's region.
_QUOTED_PLACEHOLDER = re.compile(r"""(['"])\s*\{\{\s*user\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*\1""")


def quoted_placeholder_warnings(row_filter: str | None) -> list[WorkbenchError]:
    warnings = []
    for found in _QUOTED_PLACEHOLDER.finditer(row_filter or ""):
        attribute = found.group(2)
        warnings.append(WorkbenchError(
            200, "quoted_placeholder",
            f"{found.group(0)} is inside quotes, so it compares with that literal text and matches nothing: "
            f"the placeholder is bound as a value. Write {{{{user.{attribute}}}}} without quotes.",
            {"attribute": attribute, "written": found.group(0)}))
    return warnings


def check_rule(engine: WorkbenchEngine, catalog: str, schema: str, table: str,
               row_filter: str | None) -> dict[str, Any]:
    """`{valid, columns, problems, warnings}` for a rule on catalog.schema.table."""
    found = engine.schema.get(TableName(catalog, schema, table))
    warnings = quoted_placeholder_warnings(row_filter)
    if found is None:
        problem = WorkbenchError(200, "table_not_attached", "The table is not attached now; the rule applies once it is.")
        return {"valid": False, "columns": [], "problems": [problem], "warnings": warnings}
    columns = tuple(column.name for column in found.columns)
    problems = []
    if row_filter and row_filter.strip():
        try:
            check_rule_expression(row_filter, columns)
        except EngineError as error:
            missing = unknown_columns(row_filter, columns) if error.code == "column_not_found" else []
            if missing:
                problems.append(WorkbenchError(200, "column_not_found",
                                               f"The table has no column {', '.join(missing)}.", {"columns": missing}))
            else:
                problems.append(WorkbenchError(200, error.code, error.message))
    return {"valid": not problems, "columns": list(columns), "problems": problems, "warnings": warnings}
