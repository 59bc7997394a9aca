"""Settings of the whole workbench (administrators; audited): the default language of new
accounts, and which sign-in methods exist (password sign-in only in this version)."""
from __future__ import annotations

from typing import Any

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.records import audit_log

LOCALES = ("en", "fr", "es")


def default_locale(conn: psycopg.Connection) -> str:
    return conn.execute("select default_locale from instance_settings").fetchone()[0]


def read(conn: psycopg.Connection) -> dict[str, Any]:
    return {"default_locale": default_locale(conn),
            # The API fills these from single sign-on's configuration (api/settings_routes.py).
            "sign_in_methods": {"password": True, "oidc": False}}


def update(conn: psycopg.Connection, actor: Identity, locale: str | None) -> dict[str, Any]:
    if locale is not None:
        conn.execute("update instance_settings set default_locale = %s, updated_at = now(), updated_by = %s",
                     (locale, actor.user_id))
        audit_log.record(conn, actor.user_id, actor.actor, "settings.updated", None, {"default_locale": locale})
    return read(conn)
