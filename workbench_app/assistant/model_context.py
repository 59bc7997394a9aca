"""What the provider is told: the instructions, the schema the person may see, the tools' results.

Everything here is built under the asker's permissions (the engine's `visible_tables`), so a
hidden table or column never appears, with the labels and descriptions of the SQL comments. Sizes
are capped: a tool result keeps at most `max_rows` rows and `max_result_chars` characters, with a
note saying how much more there was, so a large result is summarised rather than shipped whole.
"""
from __future__ import annotations

import json
from typing import Any

from workbench_app.assistant.provider_config import ProviderConfig
from workbench_app.json_encoding import WorkbenchJSONProvider
from workbench_app.statements import schema_browser
from workbench_app.statements.query_runner import Session

SCHEMA_CONTEXT_CHARS = 12_000
INSTRUCTIONS = (
    "You are the analysis assistant of an audience analytics workbench. Answer the person's questions "
    "about their data by using the tools: search the schema, describe tables, run read-only SQL in the "
    "DuckDB dialect, use saved questions, metrics and dashboards, and draw charts with show_chart when a "
    "chart helps. You can only read: you never change anything. Tools run with the person's own "
    "permissions; a table or column you do not see does not exist for them. Tool results may be cut to "
    "their first rows: say so when it matters. Answer in Markdown, in the language of the question; show "
    "the SQL you ran when it helps. Never output HTML."
)


def _encode(value: Any) -> str:
    return json.dumps(value, default=WorkbenchJSONProvider.default, ensure_ascii=False, separators=(",", ":"))


def schema_context(session: Session) -> str:
    """The visible tables and columns with their descriptions, within a size bound."""
    lines = []
    for table in schema_browser.tables(session):
        head = f"- {table['catalog']}.{table['schema']}.{table['table']}"
        if table["description"]:
            head += f": {table['description']}"
        columns = []
        for column in table["columns"]:
            text = f"{column['name']} {column['type']}"
            if column["masked"]:
                text += " (masked)"
            if column["description"]:
                text += f" — {column['description']}"
            columns.append(text)
        lines.append(head + "\n  columns: " + "; ".join(columns))
    text = "\n".join(lines)
    if len(text) > SCHEMA_CONTEXT_CHARS:
        text = text[:SCHEMA_CONTEXT_CHARS].rsplit("\n", 1)[0] + "\n(more tables: use search_schema)"
    return text or "(no tables are visible to this person)"


def system_message(session: Session) -> dict[str, str]:
    return {"role": "system", "content": f"{INSTRUCTIONS}\n\nTables you may query:\n{schema_context(session)}"}


def _capped_rows(result: dict[str, Any], config: ProviderConfig) -> dict[str, Any]:
    rows = result.get("rows") or []
    kept = rows[:config.max_rows]
    capped = {**result, "rows": kept}
    if len(kept) < len(rows) or result.get("truncated"):
        capped["note"] = (f"Only the first {len(kept)} rows of {result.get('row_count', len(rows))}"
                          f"{' or more' if result.get('truncated') else ''} are shown.")
    return capped


def tool_result_text(result: Any, config: ProviderConfig) -> str:
    """A tool's result as sent to the provider: rows and characters capped."""
    if isinstance(result, dict) and "rows" in result and "columns" in result:
        result = _capped_rows(result, config)
    elif isinstance(result, dict) and "spec" in result:  # show_chart: the model needs the shape, not the data
        values = result["spec"].get("data", {}).get("values", [])
        spec = {**result["spec"], "data": {"values": values[:config.max_rows]}}
        result = {**result, "spec": spec, "note": "The chart is shown to the person."}
    text = _encode(result)
    if len(text) > config.max_result_chars:
        text = text[:config.max_result_chars] + f"… [cut: {len(text) - config.max_result_chars} more characters]"
    return text


def tool_error_text(code: str, message: str) -> str:
    return _encode({"error": {"code": code, "message": message}})
