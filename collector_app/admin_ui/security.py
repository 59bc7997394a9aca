"""Who is asking, and what every /admin answer carries: session, CSRF check, language, headers.

A request is either signed in (a live session of an administrator account) or sent to the sign-in
page; an account without the administrator flag gets 403 on every route. Every POST must carry
the session's CSRF token in the form field `csrf_token`; without it nothing changes (403).
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from collector_app.database import transaction
from pipelines.admin import admin_users
from pipelines.web_auth.sessions import SessionStore, csrf_matches

COOKIE = "collector_admin"
SESSIONS = SessionStore("collect.admin_sessions")
# Pages reachable without a session: the sign-in form, the first-run setup (its link's token is
# the credential), the stylesheets and the script.
PUBLIC_ENDPOINTS = {"admin_ui.sign_in", "admin_ui.setup", "admin_ui.static", "admin_ui.tokens_css"}
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
FORM_LIMIT = 1024 * 1024
UPLOAD_LIMIT = 10 * 1024 * 1024


def choose_locale() -> str | None:
    """The account's language, else the best of the browser's among en, fr and es."""
    user = g.get("admin_user")
    if user is not None and user.get("locale"):
        return user["locale"]
    return request.accept_languages.best_match(admin_users.LOCALES) or "en"


def actor() -> str:
    return admin_users.actor_of(g.admin_user["user_id"])


def _load_session() -> None:
    g.admin_user = g.admin_session = None
    secret = request.cookies.get(COOKIE)
    if not secret:
        return
    with transaction() as conn:
        session = SESSIONS.find(conn, secret)
        if session is not None:
            g.admin_session = session
            g.admin_user = admin_users.get_user(conn, session.user_id)


def _before_request():
    # Bodies are read lazily: the limit must be set before a view reads one.
    request.max_content_length = UPLOAD_LIMIT if request.endpoint == "admin_ui.classifications" else FORM_LIMIT
    _load_session()
    if request.endpoint in PUBLIC_ENDPOINTS:
        return None
    if g.admin_user is None:
        return redirect(url_for("admin_ui.sign_in", next=request.full_path if request.method == "GET" else None))
    if not g.admin_user["is_administrator"]:
        abort(403)
    if request.method == "POST" and not csrf_matches(g.admin_session, request.form.get("csrf_token")):
        abort(403)
    return None


def _after_request(response):
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"
    if response.mimetype == "text/html" or "Cache-Control" not in response.headers:
        response.headers["Cache-Control"] = "no-store"
    return response


def _error_page(exc: HTTPException):
    """Errors of /admin as pages, in the reader's language (the API keeps its JSON errors)."""
    if g.get("admin_user", None) is None and "admin_user" not in g:
        g.admin_user = None
    return render_template("admin/error.html", status=exc.code, error=exc), exc.code


def open_session(conn, user_id: int) -> str:
    """A session for a person who just proved who they are; its cookie's secret. A new one at
    every sign-in: a cookie planted before it opens nothing."""
    SESSIONS.close(conn, request.cookies.get(COOKIE))
    SESSIONS.purge_expired(conn)
    secret, _session = SESSIONS.open(conn, user_id)
    return secret


def set_session_cookie(response, secret: str) -> None:
    response.set_cookie(COOKIE, secret, httponly=True, samesite="Lax", secure=request.is_secure, path="/admin",
                        max_age=int(SESSIONS.absolute.total_seconds()))


def install(ui: Blueprint) -> None:
    ui.before_request(_before_request)
    ui.after_request(_after_request)
    for status in (400, 403, 404, 405, 413):
        ui.register_error_handler(status, _error_page)
