"""Unsubscribe links: each message carries its recipient's own, which works without signing in and
for that recipient only.

The link holds the recipient's id and an HMAC of it under a key derived from the server secret
(nothing stored, nothing to expire): a link cannot be made for another recipient without the
secret, and a recipient removed from a subscription has nothing left to unsubscribe.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines.key_derivation import derive_key
from pipelines.settings import Settings
from workbench_app.records import audit_log

PURPOSE = "workbench-unsubscribe-link"
PATH = "/unsubscribe"


def token(settings: Settings, recipient_id: int) -> str:
    digest = hmac.new(derive_key(settings.server_secret(), PURPOSE), str(recipient_id).encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()[:24]).decode()


def link(settings: Settings, recipient_id: int) -> str:
    return f"{settings.workbench_address}{PATH}/{recipient_id}/{token(settings, recipient_id)}"


def recipient(conn: psycopg.Connection, settings: Settings, recipient_id: int, given: str) -> dict[str, Any] | None:
    """The recipient this link was made for (with what it receives and its language), or None when
    the token is not theirs or they were removed."""
    if not hmac.compare_digest(token(settings, recipient_id), given):
        return None
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """select r.recipient_id, r.subscription_id, r.alert_id, r.unsubscribed_at,
                      coalesce(u.email, r.email) as email, u.locale,
                      coalesce(s.name, a.name) as name
                 from delivery_recipients r
                 left join users u using (user_id)
                 left join subscriptions s using (subscription_id)
                 left join alerts a using (alert_id)
                where r.recipient_id = %s""", (recipient_id,)).fetchone()


def unsubscribe(conn: psycopg.Connection, found: dict[str, Any]) -> None:
    """Stop sending to this recipient (again: nothing changes, nothing fails)."""
    changed = conn.execute("""update delivery_recipients set unsubscribed_at = now()
                               where recipient_id = %s and unsubscribed_at is null returning 1""",
                           (found["recipient_id"],)).fetchone()
    if changed:
        target = (f"subscription:{found['subscription_id']}" if found["subscription_id"] is not None
                  else f"alert:{found['alert_id']}")
        audit_log.record(conn, None, found["email"], "subscription.unsubscribed", target,
                         {"recipient_id": found["recipient_id"]})
