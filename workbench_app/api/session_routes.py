"""The web application's session: sign in with a password, read the session, sign out.

Sign-in opens a new server-side session (a new cookie every time: rotation), answers the
person and the session's CSRF token, and is audited like every sign-in. The cookie is
`HttpOnly`, `SameSite=Lax`, and `Secure` when the request came over HTTPS.
"""
from __future__ import annotations

from flask import Blueprint, g, jsonify, make_response, request

from workbench_app.accounts import users, web_sessions
from workbench_app.accounts.shapes import Credentials
from workbench_app.api.authentication import identity, json_body, password_sign_in, services
from workbench_app.api.public_views import public
from workbench_app.errors import WorkbenchError
from workbench_app.request_shapes import validated

blueprint = Blueprint("session", __name__)


def _session_answer(user: dict, csrf_token: str):
    return jsonify({"user": user, "csrf_token": csrf_token})


def require_json() -> None:
    # A JSON body only: a cross-site form cannot send one without a CORS preflight, so no other
    # site can sign a visitor in to an account of its choosing.
    if not request.is_json:
        raise WorkbenchError(415, "unsupported_media_type", "Send the sign-in as application/json.")


def open_session_for(user_id: int):
    """A new session for `user_id`, closing the request's old one (rotation): (cookie secret, session)."""
    workbench = services()
    with workbench.transaction() as conn:
        workbench.session_store.close(conn, request.cookies.get(web_sessions.COOKIE))
        return workbench.session_store.open(conn, user_id)


def set_session_cookie(response, secret: str) -> None:
    response.set_cookie(web_sessions.COOKIE, secret, max_age=int(services().settings.session_max_seconds),
                        path="/", secure=request.is_secure, httponly=True, samesite="Lax")


def open_browser_session(user_id: int):
    """A new session for `user_id` (closing the request's old one): the 201 answer with its cookie."""
    secret, session = open_session_for(user_id)
    with services().transaction() as conn:
        user = users.get_user(conn, user_id)
    response = _session_answer(user, session.csrf_token)
    response.status_code = 201
    set_session_cookie(response, secret)
    return response


@public
@blueprint.post("/session")
def open_session():
    require_json()
    credentials = validated(Credentials, json_body())
    return open_browser_session(password_sign_in(credentials.email, credentials.password).user_id)


@blueprint.get("/session")
def read_session():
    """The signed-in person and the CSRF token the page sends back (401 without a live session)."""
    session = getattr(g, "web_session", None)
    if session is None:
        raise WorkbenchError(401, "session_expired", "Your session has ended: sign in again.")
    with services().transaction() as conn:
        return _session_answer(users.get_user(conn, identity().user_id), session.csrf_token)


@blueprint.delete("/session")
def close_session():
    with services().transaction() as conn:
        services().session_store.close(conn, request.cookies.get(web_sessions.COOKIE))
    response = make_response("", 204)
    response.delete_cookie(web_sessions.COOKIE, path="/", secure=request.is_secure, httponly=True, samesite="Lax")
    return response
