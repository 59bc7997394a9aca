"""Browser sessions of the workbench's web application (pipelines.web_auth underneath).

A session acts as its person with their current rights, like a token: a deactivated account's
session is refused at its next request.
"""
from __future__ import annotations

import datetime as dt

import psycopg

from pipelines.settings import Settings
from pipelines.web_auth.sessions import SessionStore, WebSession
from workbench_app.accounts.identity import Identity

COOKIE = "wb_session"
CSRF_HEADER = "X-CSRF-Token"


def session_store(settings: Settings) -> SessionStore:
    return SessionStore("web_sessions", idle=dt.timedelta(seconds=settings.session_idle_seconds),
                        absolute=dt.timedelta(seconds=settings.session_max_seconds))


def identify(conn: psycopg.Connection, store: SessionStore, secret: str | None) -> tuple[Identity, WebSession] | None:
    """The person and session behind a cookie's secret; None when unknown, expired or deactivated."""
    session = store.find(conn, secret)
    if session is None:
        return None
    row = conn.execute("select email, is_admin, locale from users where user_id = %s and is_active",
                       (session.user_id,)).fetchone()
    if row is None:
        store.close(conn, secret)
        return None
    email, is_admin, locale = row
    return Identity(session.user_id, email, is_admin, locale=locale), session
