"""Admin tokens: bearer secrets of the administration API (`/api/v1`).

Created from the command line (`analytics admin-token create`); the secret (`at_` + 32 random
bytes in base64url) is printed once and only its SHA-256 is stored. Revocation is final.
"""
from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin._records import parse_id
from pipelines.admin.last_used import record_use
from pipelines.admin.errors import InvalidInput, NotFound

SECRET_PREFIX = "at_"
_MAX_SECRET_LENGTH = 100
MAX_NAME_LENGTH = 200

_PUBLIC_COLUMNS = """token_id, name, created_at, last_used_at, revoked_at,
    case when revoked_at is null then 'active' else 'revoked' end as state"""


@dataclass(frozen=True)
class AdminTokenIdentity:
    """The token an administration request was made with."""

    token_id: uuid.UUID
    name: str

    @property
    def actor(self) -> str:
        """How audit entries name this caller."""
        return f"admin-token:{self.token_id}"


def token_hash(secret: str) -> bytes:
    """SHA-256 of a token secret (256 random bits: a slow hash would add nothing)."""
    return hashlib.sha256(secret.encode("utf-8")).digest()


def create_token(conn: psycopg.Connection, *, name: str = "", actor: str = "cli") -> tuple[dict[str, Any], str]:
    """Create an active token. Returns (public record, secret); the secret is never stored."""
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
        raise InvalidInput("name must be a string of at most 200 characters", {"field": "name"})
    secret = SECRET_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(
            f"insert into collect.admin_tokens (name, token_hash) values (%s, %s) returning {_PUBLIC_COLUMNS}",
            (name.strip(), token_hash(secret)),
        ).fetchone()
    audit.record(conn, actor, "admin_token.created", str(record["token_id"]), {"name": record["name"]})
    return record, secret


def list_tokens(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every token, oldest first, without secrets or hashes."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_PUBLIC_COLUMNS} from collect.admin_tokens order by created_at, token_id").fetchall()


def revoke_token(conn: psycopg.Connection, token_id: object, *, actor: str = "cli") -> dict[str, Any]:
    """Revoke a token (idempotent: a second revocation changes and audits nothing)."""
    token = parse_id(token_id, "admin token")
    revoked = conn.execute(
        "update collect.admin_tokens set revoked_at = now() where token_id = %s and revoked_at is null returning 1",
        (token,),
    ).fetchone()
    if revoked is not None:
        audit.record(conn, actor, "admin_token.revoked", str(token))
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(f"select {_PUBLIC_COLUMNS} from collect.admin_tokens where token_id = %s",
                             (token,)).fetchone()
    if record is None:
        raise NotFound("admin token not found", {"token_id": str(token)})
    return record


def authenticate(conn: psycopg.Connection, secret: str) -> AdminTokenIdentity | None:
    """The identity behind a bearer secret, or None when unknown, malformed or revoked.

    Records the last use at most once a minute, without waiting on a row lock held elsewhere.
    """
    if not isinstance(secret, str) or not secret.startswith(SECRET_PREFIX) or len(secret) > _MAX_SECRET_LENGTH:
        return None
    row = conn.execute(
        """select token_id, name, last_used_at is null or last_used_at < now() - interval '1 minute'
             from collect.admin_tokens where token_hash = %s and revoked_at is null""",
        (token_hash(secret),),
    ).fetchone()
    if row is None:
        return None
    token_id, name, stale = row
    if stale:
        record_use(conn, "collect.admin_tokens", "token_id", token_id)
    return AdminTokenIdentity(token_id=token_id, name=name)
