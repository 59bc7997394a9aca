"""The API answers a screen starts with, handed over inside the page that opens it.

Opening an address of the web application used to cost two round trips before anything could be
drawn: the page and its scripts, then `GET /api/v1/session` (the person and the CSRF token that a
card run needs) and the screen's first reads (a dashboard's definition and theme), and only then
the card runs. The page now carries those answers: the server asks its own `/api/v1` for them, as
the browser would (the same endpoints, cookie, permission checks and error answers), and puts them
in a `<script type="application/json" id="first-reads">` element, which the browser's API client
takes once instead of asking the network (`frontend/src/api/firstReads.ts`). Nothing is executed
from it, so the page's `script-src 'self'` policy is unchanged.

Only a browser that holds a session cookie gets them: anyone else is sent to sign-in anyway. An
answer of 5xx is left out, so the browser asks again as it always did.
"""
from __future__ import annotations

import io
import json
import logging
from typing import Any

from flask import current_app, request
from jinja2.utils import htmlsafe_json_dumps
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule

from workbench_app.accounts import web_sessions

logger = logging.getLogger(__name__)

ELEMENT_ID = "first-reads"
SESSION = "/api/v1/session"

# Screens with reads of their own, beside the session: the same list as FIRST_READS in App.tsx.
_SCREENS = Map([
    Rule("/dashboards/<int:dashboard_id>", endpoint=("/api/v1/dashboards/{dashboard_id}",
                                                     "/api/v1/dashboards/{dashboard_id}/theme")),
]).bind("localhost")


def reads_of(path: str) -> list[str]:
    """The API paths read first by the screen at `path` (the session first)."""
    try:
        templates, arguments = _SCREENS.match(path, method="GET")
    except HTTPException:  # not a screen with reads of its own (NotFound, or a redirect to one)
        return [SESSION]
    return [SESSION] + [template.format(**arguments) for template in templates]


def _answer(path: str) -> tuple[int, Any] | None:
    """`GET path` answered by this application, with the request's cookies and address."""
    environ = {key: value for key, value in request.environ.items()
               if not key.startswith("werkzeug.") and key not in ("CONTENT_TYPE", "CONTENT_LENGTH")}
    environ.update({"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "RAW_URI": path,
                    "REQUEST_URI": path, "wsgi.input": io.BytesIO()})
    environ.pop("HTTP_AUTHORIZATION", None)  # as the browser's own read would: the cookie only
    status: list[int] = []

    def start_response(line: str, headers: list, exc_info: Any = None):
        status.append(int(line.split(" ", 1)[0]))
        return lambda data: None

    app = current_app._get_current_object()  # type: ignore[attr-defined]
    # A fresh application context: the inner request must not share (or clear) this one's `g`.
    with app.app_context():
        chunks = app.wsgi_app(environ, start_response)
        try:
            body = b"".join(chunks)
        finally:
            getattr(chunks, "close", lambda: None)()
    if not status or status[0] >= 500:
        return None
    try:
        return status[0], json.loads(body)
    except ValueError:
        return None


def first_reads(path: str) -> dict[str, dict[str, Any]]:
    """The answers the screen at `path` starts with, by API path: {"status", "body"} each. Never
    raises: the page has begun, and without them the browser reads as it always did."""
    if not request.cookies.get(web_sessions.COOKIE):
        return {}
    try:
        return _answers(path)
    except Exception:  # noqa: BLE001 - logged; the page must still end
        logger.exception("first reads of %s failed; the browser will ask for them", path)
        return {}


def _answers(path: str) -> dict[str, dict[str, Any]]:
    answers: dict[str, dict[str, Any]] = {}
    for read in reads_of(path):
        answer = _answer(read)
        if answer is not None:
            answers[read] = {"status": answer[0], "body": answer[1]}
        if read == SESSION and (answer is None or answer[0] != 200):
            break  # no live session: the screen's own reads would only be refused
    return answers


def element(answers: dict[str, dict[str, Any]]) -> str:
    """The `<script type="application/json">` element holding `answers`, safe inside HTML: every
    <, >, & and ' is escaped in the JSON, so no "</script>" nor "<!--" can close or bend it."""
    return f'<script type="application/json" id="{ELEMENT_ID}">{htmlsafe_json_dumps(answers)}</script>'
