"""Columns of a document collection, inferred from a sample, and documents as Arrow columns.

A type is one of: a scalar name (``BOOLEAN``, ``BIGINT``, ``DOUBLE``, ``VARCHAR``), ``JSON``,
``("struct", {field: type})`` or ``("list", type)``; ``None`` means "seen only as null".
Two types widen to the narrowest type holding both (``BIGINT`` + ``DOUBLE`` = ``DOUBLE``, two
structs merge field by field, two lists widen their elements); anything else becomes ``JSON``
(the value as JSON text). A field missing from a document is NULL. A value that does not fit
its column's type (a document outside the sample) is NULL too, never a failed statement.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import pyarrow as pa

JSON = "JSON"
_NUMBERS = ("BIGINT", "DOUBLE")
# A struct with more fields than this (or with field names DuckDB cannot tell apart) is read as JSON.
MAX_STRUCT_FIELDS = 200
_ARROW = {"BOOLEAN": pa.bool_(), "BIGINT": pa.int64(), "DOUBLE": pa.float64(), "VARCHAR": pa.string(),
          JSON: pa.string()}


def value_type(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "BIGINT" if -(2 ** 63) <= value < 2 ** 63 else "DOUBLE"
    if isinstance(value, float):
        return "DOUBLE"
    if isinstance(value, str):
        return "VARCHAR"
    if isinstance(value, dict):
        return ("struct", {key: value_type(item) for key, item in value.items()})
    if isinstance(value, list):
        element = None
        for item in value:
            element = widen(element, value_type(item))
        return ("list", element)
    return JSON


def widen(a: Any, b: Any) -> Any:
    """The narrowest type holding values of both types."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    if a in _NUMBERS and b in _NUMBERS:
        return "DOUBLE"
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0]:
        if a[0] == "list":
            return ("list", widen(a[1], b[1]))
        fields = dict(a[1])
        for key, kind in b[1].items():
            fields[key] = widen(fields.get(key), kind)
        return ("struct", fields)
    return JSON


def infer_columns(documents: Iterable[dict[str, Any]], max_columns: int) -> dict[str, Any]:
    """Column name -> type over a sample; `_id` first, `_rev` and other `_` fields left out."""
    columns: dict[str, Any] = {"_id": "VARCHAR"}
    for document in documents:
        for key, value in document.items():
            if key.startswith("_"):
                continue
            if key not in columns and len(columns) >= max_columns:
                continue
            columns[key] = widen(columns.get(key), value_type(value))
    return _readable(columns)


def _readable(columns: dict[str, Any]) -> dict[str, Any]:
    """Drop names DuckDB cannot tell apart (it compares them case-insensitively); settle types."""
    kept: dict[str, Any] = {}
    seen: set[str] = set()
    for name, kind in columns.items():
        if not name or name.lower() in seen:
            continue
        seen.add(name.lower())
        kept[name] = _settled(kind)
    return kept


def _settled(kind: Any) -> Any:
    if kind is None:
        return "VARCHAR"  # only nulls seen
    if isinstance(kind, tuple) and kind[0] == "list":
        return ("list", _settled(kind[1]))
    if isinstance(kind, tuple):
        names = [key.lower() for key in kind[1]]
        if not kind[1] or len(names) > MAX_STRUCT_FIELDS or len(set(names)) != len(names) or "" in names:
            return JSON
        return ("struct", {key: _settled(value) for key, value in kind[1].items()})
    return kind


def duckdb_type(kind: Any) -> str:
    if isinstance(kind, tuple) and kind[0] == "list":
        return f"{duckdb_type(kind[1])}[]"
    if isinstance(kind, tuple):
        return "STRUCT(" + ", ".join(f'"{_quoted(k)}" {duckdb_type(v)}' for k, v in kind[1].items()) + ")"
    return kind


def arrow_type(kind: Any) -> pa.DataType:
    if isinstance(kind, tuple) and kind[0] == "list":
        return pa.list_(arrow_type(kind[1]))
    if isinstance(kind, tuple):
        return pa.struct([pa.field(k, arrow_type(v)) for k, v in kind[1].items()])
    return _ARROW[kind]


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def fit(value: Any, kind: Any) -> Any:
    """``value`` as a value of ``kind``, or None when it does not fit."""
    if value is None:
        return None
    if kind == JSON:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if isinstance(kind, tuple):
        if kind[0] == "list":
            return [fit(item, kind[1]) for item in value] if isinstance(value, list) else None
        if not isinstance(value, dict):
            return None
        return {key: fit(value.get(key), sub) for key, sub in kind[1].items()}
    if kind == "VARCHAR":
        return value if isinstance(value, str) else None
    if kind == "BOOLEAN":
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if kind == "BIGINT":
        return value if isinstance(value, int) and -(2 ** 63) <= value < 2 ** 63 else None
    return float(value) if isinstance(value, (int, float)) else None


def to_arrow(documents: list[dict[str, Any]], columns: dict[str, Any]) -> pa.Table:
    """The documents as an Arrow table with exactly ``columns`` (in order)."""
    arrays = []
    for name, kind in columns.items():
        arrays.append(pa.array([fit(document.get(name), kind) for document in documents], type=arrow_type(kind)))
    return pa.Table.from_arrays(arrays, schema=pa.schema([pa.field(n, arrow_type(k)) for n, k in columns.items()]))
