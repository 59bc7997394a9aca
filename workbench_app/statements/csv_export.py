"""Results as CSV downloads: RFC 4180 text, protected against spreadsheet formula injection.

A text cell that begins with `=`, `+`, `-`, `@` (or a tab or carriage return, which some
spreadsheets skip before reading a formula) is written with a leading apostrophe, so a spreadsheet
shows it as text instead of running it (OWASP's advice for CSV injection). Numbers are written as
numbers: a negative number is not a formula.
"""
from __future__ import annotations

import csv
import io
import re
from typing import Any, Iterator

from flask import Response, stream_with_context

from workbench_app.engine import QueryResult
from workbench_app.engine.result_values import jsonable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_ROWS_PER_CHUNK = 1_000


def cell(value: Any) -> Any:
    """One value as a CSV cell: empty for null, lists and structs as JSON-like text, formulas defused."""
    value = jsonable(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return value
    text = value if isinstance(value, str) else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def lines(result: QueryResult) -> Iterator[str]:
    """The header then the rows, in chunks (the answer is streamed, never built whole)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([cell(name) for name in result.columns])
    for start in range(0, len(result.rows), _ROWS_PER_CHUNK):
        for row in result.rows[start:start + _ROWS_PER_CHUNK]:
            writer.writerow([cell(value) for value in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    if buffer.tell():
        yield buffer.getvalue()


def response(result: QueryResult, name: str) -> Response:
    """A streamed `text/csv` answer named `<name>.csv`; `X-Truncated` says whether the bound cut it."""
    filename = (re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.") or "result")[:100] + ".csv"
    answer = Response(stream_with_context(lines(result)), mimetype="text/csv")
    answer.headers["Content-Type"] = "text/csv; charset=utf-8"
    answer.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    answer.headers["X-Truncated"] = "true" if result.truncated else "false"
    answer.headers["X-Row-Count"] = str(len(result.rows))
    return answer
