"""Every failure answers `{"error": {"code", "message", "details"}}`: never HTML, never a bare 500."""
from __future__ import annotations

import logging

import psycopg

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from workbench_app.engine import EngineError
from workbench_app.errors import WorkbenchError
from workbench_app.i18n import translate
from workbench_app.statements.query_runner import engine_refusal

log = logging.getLogger(__name__)

_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}
# Our words for the HTTP refusals Werkzeug raises (its descriptions are English only).
_HTTP_MESSAGES = {400: "The request is not valid.", 404: "Not found.", 405: "This method is not allowed here.",
                  413: "The request body is too large.", 415: "This content type is not supported."}


def error_response(error: WorkbenchError):
    # A refusal may quote the request (an unknown option's name); a NUL it held is shown as U+FFFD,
    # since the documented messages never contain one and clients may not expect it.
    message = translate(error.message).replace("\x00", "\ufffd")
    response = jsonify({"error": {**error.as_dict(), "message": message}})
    response.status_code = error.status
    if error.status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="workbench"'
    if error.status == 429 and "retry_after" in error.details:
        response.headers["Retry-After"] = str(error.details["retry_after"])
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(WorkbenchError)
    def handle_refusal(error: WorkbenchError):
        return error_response(error)

    @app.errorhandler(EngineError)
    def handle_engine_error(error: EngineError):
        return error_response(engine_refusal(error))

    @app.errorhandler(psycopg.DataError)
    def handle_unacceptable_value(error: psycopg.DataError):
        # A value PostgreSQL cannot store (a NUL character, an out-of-range number): the caller's input.
        return error_response(WorkbenchError(400, "invalid_input", "A value in the request is not acceptable."))

    @app.errorhandler(psycopg.IntegrityError)
    def handle_conflict(error: psycopg.IntegrityError):
        return error_response(WorkbenchError(409, "conflict", "The change conflicts with existing data."))

    @app.errorhandler(HTTPException)
    def handle_http(error: HTTPException):
        status = error.code or 500
        response = error_response(WorkbenchError(status, _HTTP_CODES.get(status, "http_error"),
                                                 _HTTP_MESSAGES.get(status) or error.description or error.name))
        # Keep what the error carries besides its HTML content type: the Allow header of a 405.
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def handle_unexpected(error: Exception):
        # Logged without the request: its body may hold a password or a token.
        log.exception("unexpected error in the workbench API")
        return error_response(WorkbenchError(500, "internal_error",
                                             "Something went wrong on our side; nothing was changed."))
