"""The editor's formatter: DuckDB SQL pretty-printed, with the template's variables kept.

It sits above the dialect and the variables (it needs both), so that neither imports the other back.
"""
from __future__ import annotations

from workbench_app.engine.dialect import DIALECT, parse_statements
from workbench_app.engine.errors import STATEMENT_NOT_ALLOWED, EngineError
from workbench_app.engine.variables import protect_template, restore_template


def format_sql(sql: str) -> str:
    """Pretty-print SQL for the editor (keeps comments, keeps ``{{variables}}``).

    Variables and optional clauses are not SQL, so they are protected before
    formatting and put back afterwards.
    """
    protected, tokens = protect_template(sql)
    trees = parse_statements(protected)
    try:
        formatted = ";\n\n".join(tree.sql(dialect=DIALECT, pretty=True) for tree in trees)
    except RecursionError:
        raise EngineError(STATEMENT_NOT_ALLOWED, "The statement is nested too deeply.") from None
    return restore_template(formatted, tokens)
