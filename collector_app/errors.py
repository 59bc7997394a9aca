"""Structured errors: every failure answers `{"error": {"code", "message", "details"}}`.

Handlers turn Flask's own errors (404, 405, 413, ...) and unexpected exceptions into that shape,
so no endpoint ever answers an HTML page or a bare 500 traceback.
"""
from __future__ import annotations

import logging
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

_log = logging.getLogger(__name__)


class ApiError(Exception):
    """Raise from a view to answer a structured error."""

    def __init__(self, status: int, code: str, message: str, details: Any = None,
                 headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details if details is not None else {}
        self.headers = headers or {}


def error_document(code: str, message: str, details: Any = None) -> dict:
    """The body of every error answer."""
    return {"error": {"code": code, "message": message, "details": details if details is not None else {}}}


def internal_error() -> ApiError:
    return ApiError(500, "internal_error", "Something went wrong on our side; the request was not applied.")


def error_response(status: int, code: str, message: str, details: Any = None, headers: dict | None = None):
    response = jsonify(error_document(code, message, details))
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def http_headers(exc: HTTPException) -> dict[str, str]:
    """The headers a Werkzeug error carries besides its HTML content type: `Allow` of a 405,
    `Retry-After`, ..."""
    return {name: value for name, value in exc.get_headers() if name.lower() != "content-type"}


def _code_for(exc: HTTPException) -> str:
    return {
        400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
        405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
        429: "rate_limited",
    }.get(exc.code or 500, "http_error")


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def handle_api_error(exc: ApiError):
        return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)

    @app.errorhandler(HTTPException)
    def handle_http_exception(exc: HTTPException):
        return error_response(exc.code or 500, _code_for(exc), exc.description or exc.name, headers=http_headers(exc))

    @app.errorhandler(Exception)
    def handle_unexpected(exc: Exception):
        # Logged without the request: its body or headers could hold an address or a secret.
        _log.exception("unexpected error")
        return handle_api_error(internal_error())
