"""The first-run setup link: who may create the first administrator of a fresh installation.

`analytics up` issues a random token while no administrator exists and prints it in a link; the
database keeps only its SHA-256 and an expiry (24 hours, renewed by each `analytics up` that finds
no administrator, which also makes the previous link useless). Creating the first administrator
deletes the link in the same transaction, under a row lock, so two concurrent attempts can never
create two administrators. Once an administrator exists the setup is over for good.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from typing import Any

import psycopg

from workbench_app.accounts import users
from workbench_app.errors import WorkbenchError
from workbench_app.records import audit_log

VALID_FOR = dt.timedelta(hours=24)
TOKEN_BYTES = 32


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def administrator_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("select exists (select 1 from users where is_admin)").fetchone()[0]


def issue(conn: psycopg.Connection, valid_for: dt.timedelta = VALID_FOR) -> str | None:
    """A new setup token while no administrator exists (replacing any earlier one); None otherwise."""
    if administrator_exists(conn):
        conn.execute("delete from setup_link")
        return None
    token = secrets.token_urlsafe(TOKEN_BYTES)
    conn.execute(
        """insert into setup_link (token_hash, expires_at) values (%s, now() + %s)
           on conflict (singleton) do update set token_hash = excluded.token_hash,
                                                 expires_at = excluded.expires_at, created_at = now()""",
        (_digest(token), valid_for))
    return token


def done() -> WorkbenchError:
    return WorkbenchError(410, "setup_done", "This installation has an administrator already: sign in instead.")


def invalid_link() -> WorkbenchError:
    return WorkbenchError(403, "setup_link_invalid",
                          "This setup link is wrong or has expired: use the link `analytics up` printed last "
                          "(restarting `analytics up` prints a new one).")


def check(conn: psycopg.Connection, token: Any, lock: bool = False) -> None:
    """Refuse unless the setup is open and `token` is its current, unexpired token."""
    row = conn.execute("select token_hash, expires_at > now() from setup_link" + (" for update" if lock else "")
                       ).fetchone()
    if administrator_exists(conn):
        raise done()
    if (row is None or not isinstance(token, str) or not token
            or not hmac.compare_digest(row[0], _digest(token)) or not row[1]):
        raise invalid_link()


def create_first_administrator(conn: psycopg.Connection, token: Any, *, email: str, password: str,
                               display_name: str, locale: str) -> dict[str, Any]:
    """Create the first administrator (audited) and close the setup for good."""
    check(conn, token, lock=True)
    user = users.create_user(conn, None, email=email, password=password, display_name=display_name,
                             is_admin=True, locale=locale)
    conn.execute("delete from setup_link")
    audit_log.record(conn, user["user_id"], user["email"], "setup.completed", str(user["user_id"]), {})
    return user
