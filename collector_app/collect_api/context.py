"""The `Ingestion` of an app and the request helpers shared by the collection endpoints."""
from __future__ import annotations

import json
import threading

from flask import Flask, current_app, request

from collector_app.database import get_pool
from collector_app.errors import ApiError
from pipelines.database.connection import server_url
from pipelines.ingest.service import Ingestion

_KEY = "analytics_ingestion"
_lock = threading.Lock()


def ingestion(app: Flask | None = None) -> Ingestion:
    """The app's Ingestion, created on first use (after gunicorn's fork)."""
    app = app or current_app._get_current_object()
    found = app.extensions.get(_KEY)
    if found is None:
        with _lock:
            found = app.extensions.get(_KEY)
            if found is None:
                settings = app.config["ANALYTICS_SETTINGS"]
                found = app.extensions[_KEY] = Ingestion(
                    settings, pool=lambda: get_pool(app), url=lambda: server_url(settings))
    return found


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


# One decoder for every request: json.loads with an option builds a new one per call.
_strict_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json(data: bytes):
    """Strict JSON (no NaN or Infinity); ValueError for anything else."""
    try:
        if isinstance(data, bytes):
            # As json.loads reads bytes: UTF-8, -16 or -32 by their first bytes. A body that opens
            # with an ASCII character other than NUL is UTF-8 for detect_encoding: skip the call.
            first = data[:1]
            encoding = "utf-8" if first and b"\x00" < first < b"\x80" and data[1:2] != b"\x00" \
                else json.detect_encoding(data)
            text = data.decode(encoding, "surrogatepass")
        else:
            text = data
        return _strict_decoder.decode(text)
    except RecursionError:  # nesting deeper than the interpreter's stack
        raise ValueError("too deeply nested") from None


def json_document(data: bytes):
    """A request body parsed as JSON (`parse_json`), or the 400 that refuses it."""
    try:
        return parse_json(data)
    except ValueError:
        raise ApiError(400, "invalid_json", "The body is not valid JSON.") from None


def json_body(limit: int):
    """The request body parsed as JSON, at most `limit` bytes (413 beyond), or a 400.
    The raw bytes stay available through `request.get_data()`."""
    request.max_content_length = limit
    return json_document(request.get_data())


def database_unavailable() -> ApiError:
    return ApiError(503, "database_unavailable", "The database is not reachable; try again shortly.",
                    headers={"Retry-After": "5"})
