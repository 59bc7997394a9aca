"""What a form that created something shows once, after its redirect: post, redirect, get.

A form that creates (a server key, an import, a version of the channel rules) answers with a
redirect, so a reload repeats the GET, never the POST. What the page after it must show once (a
server key's secret above all) travels in a cookie of these pages, sealed with AES-256-GCM under a
key derived from the server secret and bound to the signed-in session and to the page it is for:
the database never holds a key's secret, another session or page cannot open the value, and the
page that shows it deletes the cookie, so a reload shows it no more.
"""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, g, request

from pipelines.key_derivation import derive_key
from pipelines.sealing import UnsealError, seal, unseal

COOKIE = "collector_admin_once"
_PURPOSE = "collector-admin-one-time-value"
# Long enough to follow the redirect on a slow connection, short enough to forget an abandoned one.
_MAX_AGE_SECONDS = 300


def _key() -> bytes:
    return derive_key(current_app.config["ANALYTICS_SETTINGS"].server_secret(), _PURPOSE)


def _bound_to(page: str) -> str:
    return f"session:{g.admin_session.session_id}|page:{page}"


def keep(response, page: str, value: Any):
    """Attach `value` to the redirect `response`, for the next GET of `page` (a path) to show once."""
    sealed = seal(_key(), json.dumps(value), _bound_to(page))
    response.set_cookie(COOKIE, sealed, max_age=_MAX_AGE_SECONDS, httponly=True, samesite="Lax",
                        secure=request.is_secure, path="/admin")
    return response


def take(page: str) -> Any | None:
    """The value kept for this page and session, or None; the cookie goes with this answer."""
    sealed = request.cookies.get(COOKIE)
    if not sealed or g.get("admin_session") is None:
        return None
    g.forget_one_time_value = True
    try:
        return json.loads(unseal(_key(), sealed, _bound_to(page)))
    except (UnsealError, ValueError):
        return None  # another page's, another session's, or altered: nothing to show


def forget_after_reading(response):
    """Delete the cookie from the answer of the page that read it (an after-request hook)."""
    if g.get("forget_one_time_value"):
        response.delete_cookie(COOKIE, path="/admin", httponly=True, samesite="Lax", secure=request.is_secure)
    return response
