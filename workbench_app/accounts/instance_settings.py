"""Settings of the whole workbench (administrators; audited): the default language of new
accounts, which sign-in methods exist (password sign-in only in this version), and sharing:
whether public links may exist, the longest lifetime of an embed token, and how many requests a
minute one public link answers."""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from workbench_app.accounts.identity import Identity
from workbench_app.records import audit_log

LOCALES = ("en", "fr", "es")
# Sharing settings an administrator may change, with their bounds (the migration checks the same).
SHARING_LIMITS = {"embed_max_lifetime_seconds": (60, 604_800), "public_link_requests_per_minute": (1, 100_000)}


def default_locale(conn: psycopg.Connection) -> str:
    return conn.execute("select default_locale from instance_settings").fetchone()[0]


def sharing(conn: psycopg.Connection) -> dict[str, Any]:
    """public_sharing, embed_max_lifetime_seconds, public_link_requests_per_minute (read on every shared
    call), external_recipients (subscriptions outside the accounts)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute("select public_sharing, embed_max_lifetime_seconds, public_link_requests_per_minute, "
                           "external_recipients from sharing_settings").fetchone()


def read(conn: psycopg.Connection) -> dict[str, Any]:
    return {"default_locale": default_locale(conn),
            # The API fills these from single sign-on's configuration (api/settings_routes.py).
            "sign_in_methods": {"password": True, "oidc": False},
            **sharing(conn)}


def update(conn: psycopg.Connection, actor: Identity, locale: str | None,
           sharing_changes: dict[str, Any] | None = None) -> dict[str, Any]:
    if locale is not None:
        conn.execute("update instance_settings set default_locale = %s, updated_at = now(), updated_by = %s",
                     (locale, actor.user_id))
        audit_log.record(conn, actor.user_id, actor.actor, "settings.updated", None, {"default_locale": locale})
    changes = {name: value for name, value in (sharing_changes or {}).items() if value is not None}
    for name, value in changes.items():  # names come from SHARING_LIMITS, public_sharing and external_recipients
        conn.execute(f"update sharing_settings set {name} = %s", (value,))
    if changes:
        audit_log.record(conn, actor.user_id, actor.actor, "settings.updated", None, changes)
    return read(conn)
