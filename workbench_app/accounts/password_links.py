"""One-time links to set a password: an administrator invites a person or resets their password.

The link carries a random token in its fragment (`/set-password#<token>`), so it never reaches a
server log; the database keeps only the token's SHA-256, an expiry and the purpose. A person has
at most one link: a new one replaces the old, and setting the password deletes it. A link of a
deactivated account opens nothing.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

import psycopg

from workbench_app.accounts import users
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError
from workbench_app.records import audit_log

VALID_FOR = dt.timedelta(days=3)
TOKEN_BYTES = 32
PURPOSES = ("invite", "reset")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def issue(conn: psycopg.Connection, actor: Identity, user_id: int, purpose: str,
          valid_for: dt.timedelta = VALID_FOR) -> dict[str, Any]:
    """A new link for `user_id` (audited, without the token); the token is in this answer only."""
    users.refuse_embedding_account(conn, user_id)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires_at = conn.execute(
        """insert into password_links (user_id, token_hash, purpose, expires_at, created_by)
           values (%s, %s, %s, now() + %s, %s)
           on conflict (user_id) do update set token_hash = excluded.token_hash, purpose = excluded.purpose,
               expires_at = excluded.expires_at, created_by = excluded.created_by, created_at = now()
           returning expires_at""",
        (user_id, _digest(token), purpose, valid_for, actor.user_id)).fetchone()[0]
    audit_log.record(conn, actor.user_id, actor.actor, f"user.password_link_{purpose}", str(user_id),
                     {"expires_at": expires_at.isoformat()})
    return {"path": f"/set-password#{token}", "token": token, "purpose": purpose, "expires_at": expires_at}


def invalid_link() -> WorkbenchError:
    return WorkbenchError(403, "password_link_invalid",
                          "This link is wrong, was used already or has expired: ask an administrator for a new one.")


def check(conn: psycopg.Connection, token: Any, lock: bool = False) -> dict[str, Any]:
    """The link's person and purpose; 403 unless the token is a current link of an active account."""
    if not isinstance(token, str) or not token or len(token) > 200:
        raise invalid_link()
    row = conn.execute(
        "select l.user_id, u.email, l.purpose from password_links l join users u using (user_id) "
        "where l.token_hash = %s and l.expires_at > now() and u.is_active" + (" for update of l" if lock else ""),
        (_digest(token),)).fetchone()
    if row is None:
        raise invalid_link()
    return {"user_id": row[0], "email": row[1], "purpose": row[2]}


def set_password(conn: psycopg.Connection, token: Any, password: str) -> int:
    """Set the link's person's password, spend the link (audited); the person's user id."""
    link = check(conn, token, lock=True)
    users.set_password(conn, link["user_id"], password)
    conn.execute("delete from password_links where user_id = %s", (link["user_id"],))
    audit_log.record(conn, link["user_id"], link["email"], "user.password_set_by_link", str(link["user_id"]),
                     {"purpose": link["purpose"]})
    return link["user_id"]
