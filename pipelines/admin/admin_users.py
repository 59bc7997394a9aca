"""Accounts of the collector's administration pages: e-mail, argon2id password, language.

The first one is created from the command line (`analytics admin create-user`). Sign-ins, in the
pages, are checked here and audited (`admin_user.signed_in`, `admin_user.sign_in_failed`) with
the e-mail address only: never the client's address.
"""
from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin.errors import Conflict, InvalidInput, NotFound
from pipelines.admin.validation import storable
from pipelines.web_auth import passwords

LOCALES = ("en", "fr", "es")
_EMAIL = re.compile(r"^[^@\s]{1,200}@[^@\s]{1,200}$")
_PUBLIC = "user_id, email, is_administrator, locale, created_at, last_sign_in_at"


def actor_of(user_id: int) -> str:
    """How audit entries name an account."""
    return f"admin-user:{user_id}"


def _email(value: Any) -> str:
    if not isinstance(value, str) or not storable(value) or not _EMAIL.match(value.strip()):
        raise InvalidInput("email must be an e-mail address", {"field": "email"})
    return value.strip()


def _password(value: Any) -> str:
    if not passwords.acceptable(value):
        raise InvalidInput(f"password must have {passwords.MIN_LENGTH} to {passwords.MAX_LENGTH} characters",
                           {"field": "password"})
    return value


def _locale(value: Any) -> str | None:
    if value is not None and value not in LOCALES:
        raise InvalidInput("locale must be en, fr or es", {"field": "locale"})
    return value


def create_user(conn: psycopg.Connection, *, email: str, password: str, is_administrator: bool = True,
                locale: str | None = None, actor: str = "cli") -> dict[str, Any]:
    """Create an account (audited as `admin_user.created`)."""
    email, password, locale = _email(email), _password(password), _locale(locale)
    with conn.cursor(row_factory=dict_row) as cur:
        user = cur.execute(
            f"""insert into collect.admin_users (email, password_hash, is_administrator, locale)
                values (%s, %s, %s, %s) on conflict do nothing returning {_PUBLIC}""",
            (email, passwords.hash_password(password), is_administrator, locale)).fetchone()
    if user is None:
        raise Conflict("an account with this e-mail address exists already", {"field": "email"})
    audit.record(conn, actor, "admin_user.created", str(user["user_id"]),
                 {"email": email, "is_administrator": is_administrator})
    return user


def get_user(conn: psycopg.Connection, user_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        user = cur.execute(f"select {_PUBLIC} from collect.admin_users where user_id = %s", (user_id,)).fetchone()
    if user is None:
        raise NotFound("account not found", {"user_id": user_id})
    return user


def sign_in(conn: psycopg.Connection, email: str, password: str) -> dict[str, Any] | None:
    """The account when the password matches, else None; both outcomes are audited."""
    email = email.strip()[:320] if isinstance(email, str) else ""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"select {_PUBLIC}, password_hash from collect.admin_users where lower(email) = lower(%s)",
                          (email,)).fetchone() if storable(email) else None
    if not isinstance(password, str) or not passwords.verify_password(row and row["password_hash"], password[:passwords.MAX_LENGTH]):
        audit.record(conn, "anonymous", "admin_user.sign_in_failed", str(row["user_id"]) if row else None,
                     {"email": email[:200]} if storable(email) else {})
        return None
    if passwords.needs_rehash(row["password_hash"]):
        conn.execute("update collect.admin_users set password_hash = %s where user_id = %s",
                     (passwords.hash_password(password), row["user_id"]))
    conn.execute("update collect.admin_users set last_sign_in_at = now() where user_id = %s", (row["user_id"],))
    audit.record(conn, actor_of(row["user_id"]), "admin_user.signed_in", str(row["user_id"]), {"email": row["email"]})
    del row["password_hash"]
    return row


def set_locale(conn: psycopg.Connection, user_id: int, locale: str | None) -> dict[str, Any]:
    """The account's language (None: follow the browser's)."""
    conn.execute("update collect.admin_users set locale = %s where user_id = %s", (_locale(locale), user_id))
    return get_user(conn, user_id)
