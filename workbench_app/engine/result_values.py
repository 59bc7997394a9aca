"""Result values as JSON: one conversion for the API, the tool server, the UI and exports.

DuckDB returns Python objects (Decimal, datetime, UUID, bytes, lists, dicts...).
Every caller that sends rows as JSON should use :func:`jsonable` so that the
same value looks the same everywhere.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import uuid
from decimal import Decimal
from typing import Any


def jsonable(value: Any) -> Any:
    """A JSON-serialisable form of one result value.

    Dates and times become ISO 8601 strings, intervals seconds, decimals
    numbers (floats: charts need numbers; exact text is not kept), UUIDs text,
    bytes base64, NaN and infinities null; lists, structs and maps recurse.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        return jsonable(float(value))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(item) for item in value]
    return str(value)


def jsonable_rows(rows: list[tuple]) -> list[list[Any]]:
    """Rows of a :class:`QueryResult` as JSON-serialisable lists."""
    return [[jsonable(value) for value in row] for row in rows]
