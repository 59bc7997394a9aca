"""API tokens: bearer secrets of /api/v1 and the agent tool server.

A token acts as its owner, with exactly the owner's rights as they are at each request (groups,
rules and attributes are read fresh), so a change of rights or a revocation applies at once.
Only the SHA-256 of the secret is stored: the secret has 256 random bits, a slow hash adds nothing.
"""
from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines.admin import admin_tokens
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError, invalid, not_found
from workbench_app.records import audit_log

SECRET_PREFIX = "wbt_"
COLLECTOR_ADMIN_PREFIX = admin_tokens.SECRET_PREFIX
WRONG_KIND = ("This is a collector admin token (at_...); the workbench takes a workbench API token (wbt_...): "
              "POST /api/v1/auth/token, or `analytics workbench create-admin --with-token`.")
_MAX_SECRET_LENGTH = 200
_PUBLIC = """token_id, user_id, name, created_at, last_used_at, revoked_at,
             case when revoked_at is null then 'active' else 'revoked' end as state"""


def secret_hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8")).digest()


def create_token(conn: psycopg.Connection, owner: Identity, name: str = "",
                 actor: Identity | None = None) -> tuple[dict[str, Any], str]:
    """Create a token for `owner`. Returns (record, secret); the secret is shown once, never stored."""
    if len(name) > 200:
        raise invalid("name must be at most 200 characters.", field="name")
    secret = SECRET_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(
            f"insert into api_tokens (user_id, name, secret_hash) values (%s, %s, %s) returning {_PUBLIC}",
            (owner.user_id, name.strip(), secret_hash(secret)),
        ).fetchone()
    actor = actor or owner
    audit_log.record(conn, actor.user_id, actor.actor, "token.created", str(record["token_id"]),
                     {"owner": owner.user_id, "name": record["name"]})
    return record, secret


def list_tokens(conn: psycopg.Connection, user_id: int | None) -> list[dict[str, Any]]:
    """A user's tokens (or everyone's, for administrators), without secrets or hashes."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            f"select {_PUBLIC} from api_tokens where %(user)s::bigint is null or user_id = %(user)s order by token_id",
            {"user": user_id},
        ).fetchall()


def revoke_token(conn: psycopg.Connection, actor: Identity, token_id: int) -> dict[str, Any]:
    """Revoke a token of one's own (administrators: anyone's). Idempotent; audited once."""
    with conn.cursor(row_factory=dict_row) as cur:
        token = cur.execute(f"select {_PUBLIC} from api_tokens where token_id = %s", (token_id,)).fetchone()
        if token is None or (token["user_id"] != actor.user_id and not actor.is_admin):
            raise not_found("Token")
        if token["revoked_at"] is None:
            token = cur.execute(
                f"update api_tokens set revoked_at = now() where token_id = %s returning {_PUBLIC}", (token_id,)
            ).fetchone()
            audit_log.record(conn, actor.user_id, actor.actor, "token.revoked", str(token_id),
                             {"owner": token["user_id"]})
    return token


def authenticate(conn: psycopg.Connection, secret: str) -> Identity:
    """The identity behind a bearer secret; 401 when unknown, revoked, or its owner is deactivated."""
    refused = WorkbenchError(401, "unauthorized", "A valid API token is required (Authorization: Bearer <token>).")
    if secret.startswith(COLLECTOR_ADMIN_PREFIX):
        # The two tokens look alike in examples; say which one this is and which one is expected.
        raise WorkbenchError(401, "unauthorized", WRONG_KIND, {"expected": SECRET_PREFIX, "received": COLLECTOR_ADMIN_PREFIX})
    if not secret.startswith(SECRET_PREFIX) or len(secret) > _MAX_SECRET_LENGTH:
        raise refused
    # "Last used" is a hint for the Tokens screen: its commit need not wait for the disk, and the
    # request it authenticates does not wait for it either.
    conn.execute("set local synchronous_commit = off")
    row = conn.execute(
        """update api_tokens t set last_used_at = now()
           from users u
           where t.secret_hash = %s and t.revoked_at is null and u.user_id = t.user_id and u.is_active
           returning t.token_id, u.user_id, u.email, u.is_admin, u.locale""",
        (secret_hash(secret),),
    ).fetchone()
    if row is None:
        raise refused
    token_id, user_id, email, is_admin, locale = row
    return Identity(user_id, email, is_admin, token_id, locale)
