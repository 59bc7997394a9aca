"""The `Ingestion` of an app and the request helpers shared by the collection endpoints."""
from __future__ import annotations

import threading

from flask import Flask, current_app, request

from collector_app.database import get_pool
from collector_app.errors import ApiError
from pipelines.database.connection import server_url
from pipelines.ingest.json_bodies import parse_json
from pipelines.ingest.service import Ingestion

__all__ = ["ingestion", "parse_json", "json_document", "json_body", "database_unavailable"]

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
