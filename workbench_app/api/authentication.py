"""Who a request acts for: a bearer API token's owner, or the person of a browser session.

Programs send `Authorization: Bearer <token>`. The web application sends the session cookie, and
with every state-changing request the session's CSRF token in `X-CSRF-Token`: a request that a
cookie authenticates without it changes nothing. Either way the request acts with the person's
current rights.
"""
from __future__ import annotations

import json
import math
from typing import Any

from flask import current_app, g, request

from pipelines.web_auth.sessions import csrf_matches
from workbench_app.accounts import api_tokens, users, web_sessions
from workbench_app.accounts.identity import Identity
from workbench_app.api.public_views import is_public
from workbench_app.errors import WorkbenchError, forbidden, invalid
from workbench_app.input_checks import body_object, single_query_value, unpaired_surrogate_at
from workbench_app.printing import tickets as print_tickets
from workbench_app.services import WorkbenchServices
from workbench_app.single_sign_on.password_policy import refuse_password_unless_allowed

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
MAX_BODY_BYTES = 1_000_000


def services() -> WorkbenchServices:
    return current_app.extensions["workbench"]


def origin() -> str:
    """The history's origin of this request: `ui` for the web application's session, `api` for a token."""
    return "ui" if getattr(g, "web_session", None) is not None else "api"


def bearer_secret(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, secret = header.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" and secret.strip() else None


def authenticate_bearer(workbench: WorkbenchServices, header: str | None) -> Identity:
    """The identity behind an `Authorization: Bearer` header (API and tool server alike); 401 otherwise."""
    secret = bearer_secret(header)
    if secret is None:
        raise WorkbenchError(401, "unauthorized", "A valid API token is required (Authorization: Bearer <token>).")
    with workbench.transaction() as conn:
        return api_tokens.authenticate(conn, secret)


def authenticate_session(workbench: WorkbenchServices, secret: str) -> Identity:
    """The person of a session cookie; a state-changing request must carry the session's CSRF token."""
    with workbench.transaction() as conn:
        found = web_sessions.identify(conn, workbench.session_store, secret)
    if found is None:
        raise WorkbenchError(401, "session_expired", "Your session has ended: sign in again.")
    who, session = found
    if request.method not in SAFE_METHODS and not csrf_matches(session, request.headers.get(web_sessions.CSRF_HEADER)):
        raise WorkbenchError(403, "csrf_failed", "This request has no valid CSRF token: reload the page and try again.")
    g.web_session = session
    return who


def authenticate_request():
    # The API description, the password sign-ins, the first-run setup, the one-time password links and
    # the shared dashboards' calls carry their own credential, if any (public_views.py).
    if is_public(current_app.view_functions.get(request.endpoint)):
        return None
    header = request.headers.get("Authorization")
    if header and header.startswith(print_tickets.SCHEME + " "):
        # The server's own headless browser printing a PDF (workbench_app/printing/tickets.py).
        g.print_ticket = print_tickets.authenticate(header, request.endpoint, request.view_args)
        g.identity = g.print_ticket.identity
        return None
    cookie = request.cookies.get(web_sessions.COOKIE)
    if header is None and cookie:
        g.identity = authenticate_session(services(), cookie)
    else:
        g.identity = authenticate_bearer(services(), header)
    return None


def identity() -> Identity:
    return g.identity



def require_admin() -> Identity:
    if not g.identity.is_admin:
        raise forbidden("Only administrators may do this.")
    return g.identity


def json_body(optional: bool = False) -> dict[str, Any]:
    """The request's JSON object (a missing or other body is a 422: `input_checks.body_object`).
    `optional`: no body at all is `{}`, for the runs, which change nothing."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY_BYTES:
        raise WorkbenchError(413, "payload_too_large", "The request body is too large.")
    if not raw.strip():
        return {} if optional else body_object(None)
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise invalid("The request body is not valid JSON.") from None
    if (where := unpaired_surrogate_at(body)) is not None:
        raise invalid("The request body holds text that is not valid Unicode (an unpaired surrogate).", field=where)
    return body_object(body)


def query_int(name: str, default: int, minimum: int = 1, maximum: int = 1000) -> int:
    raw = single_query_value(request.args, name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise invalid(f"{name} must be a whole number.", field=name) from None
    if not minimum <= value <= maximum:
        raise invalid(f"{name} must be from {minimum} to {maximum}.", field=name)
    return value


def password_sign_in(email: str, password: str) -> Identity:
    """Check a password sign-in (audited), slowed down after repeated failures per account and address."""
    workbench = services()
    address = request.remote_addr
    wait = workbench.sign_in_throttle.retry_after(email, address)
    if wait > 0:
        raise too_many_attempts(wait)
    refuse_password_unless_allowed(workbench, email)
    with workbench.transaction() as conn:
        who = users.sign_in(conn, email, password)
    if who is None:  # the failed attempt is committed to the audit log above
        wait = workbench.sign_in_throttle.failed(email, address)
        if wait > 0:
            raise too_many_attempts(wait)
        raise WorkbenchError(401, "invalid_credentials", "E-mail address or password is wrong.")
    workbench.sign_in_throttle.succeeded(email, address)
    return who


def too_many_attempts(wait: float) -> WorkbenchError:
    seconds = math.ceil(wait)
    return WorkbenchError(429, "too_many_attempts",
                          f"Too many failed sign-ins: wait {seconds} seconds before trying again.",
                          {"retry_after": seconds})
