"""Embedding secrets: the HS256 keys with which a customer's backend signs embed tokens.

An administrator creates one per embedding customer (several at once for rotation), bound to a
group whose rules decide what its tokens read, and names the host origins that may frame the
embed. The secret is shown once and sealed at rest with AES-256-GCM (as source passwords, with a
key derived for this use only and bound to the secret's `kid`). Each secret runs as its own
account (kind `embedding`: not among the People, not changed through the users API), member of the
group only, without a password; revoking it stops its tokens at once.
"""
from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import dict_row

from pipelines.key_derivation import derive_key
from pipelines.sealing import seal, unseal
from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.errors import invalid, not_found
from workbench_app.records import audit_log

_PURPOSE = "workbench-embedding-secrets"
_PUBLIC = ("s.secret_id, s.kid, s.name, s.group_id, g.name as group_name, s.account_id, s.allowed_origins, "
           "s.created_at, s.revoked_at")


def _key(settings: Settings) -> bytes:
    return derive_key(settings.server_secret(), _PURPOSE)


def host_origin(value: str) -> str:
    """`scheme://host[:port]` of an allowed host page, as browsers send it in `event.origin`."""
    parts = urlsplit(value.strip()) if isinstance(value, str) else None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/")
            or parts.query or parts.fragment or parts.username or parts.password or any(c in value for c in " ;,'\"")):
        raise invalid(f"{value} is not an origin such as https://www.example.com.", field="allowed_origins")
    try:
        port = parts.port
    except ValueError:
        raise invalid(f"{value} is not an origin such as https://www.example.com.", field="allowed_origins") from None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}" + (f":{port}" if port else "")


def create_secret(conn: psycopg.Connection, settings: Settings, actor: Identity, name: str, group_id: int,
                  allowed_origins: list[str]) -> tuple[dict[str, Any], str]:
    """(record, secret): the secret is returned this once and never again."""
    if conn.execute("select 1 from groups where group_id = %s", (group_id,)).fetchone() is None:
        raise not_found("Group")
    origins = list(dict.fromkeys(host_origin(item) for item in allowed_origins))
    kid = "emb_" + secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    account_id = conn.execute(
        "insert into users (email, display_name, password_hash, kind) values (%s, %s, null, 'embedding') "
        "returning user_id",
        (f"{kid}@embedding.invalid", f"Embedding: {name}"[:200])).fetchone()[0]
    conn.execute("insert into group_members (group_id, user_id) values (%s, %s)", (group_id, account_id))
    secret_id = conn.execute(
        """insert into embedding_secrets (kid, name, group_id, account_id, sealed_secret, allowed_origins, created_by)
           values (%s, %s, %s, %s, %s, %s, %s) returning secret_id""",
        (kid, name, group_id, account_id, seal(_key(settings), secret, f"embedding-secret:{kid}"), origins,
         actor.user_id)).fetchone()[0]
    audit_log.record(conn, actor.user_id, actor.actor, "share.embedding_secret_created", kid,
                     {"secret_id": secret_id, "group_id": group_id, "allowed_origins": origins})
    return get_secret(conn, secret_id), secret


def get_secret(conn: psycopg.Connection, secret_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        found = cur.execute(f"select {_PUBLIC} from embedding_secrets s join groups g using (group_id) "
                            "where s.secret_id = %s", (secret_id,)).fetchone()
    if found is None:
        raise not_found("Embedding secret")
    return found


def list_secrets(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every secret, revoked ones included, without the secret itself."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_PUBLIC} from embedding_secrets s join groups g using (group_id) "
                           "order by s.secret_id desc").fetchall()


def revoke_secret(conn: psycopg.Connection, actor: Identity, secret_id: int) -> None:
    record = get_secret(conn, secret_id)
    if record["revoked_at"] is None:
        conn.execute("update embedding_secrets set revoked_at = now() where secret_id = %s", (secret_id,))
        conn.execute("update users set is_active = false where user_id = %s", (record["account_id"],))
        audit_log.record(conn, actor.user_id, actor.actor, "share.embedding_secret_revoked", record["kid"],
                         {"secret_id": secret_id})


def active_secret(conn: psycopg.Connection, settings: Settings, kid: str) -> tuple[dict[str, Any], str] | None:
    """(record, signing secret) of a live secret with this kid, or None."""
    with conn.cursor(row_factory=dict_row) as cur:
        found = cur.execute(
            """select s.secret_id, s.kid, s.group_id, s.account_id, s.sealed_secret, s.allowed_origins,
                      u.email as account_email
               from embedding_secrets s join users u on u.user_id = s.account_id
               where s.kid = %s and s.revoked_at is null""", (kid,)).fetchone()
    if found is None:
        return None
    return found, unseal(_key(settings), found.pop("sealed_secret"), f"embedding-secret:{kid}")


def frame_origins(conn: psycopg.Connection, kid: str) -> list[str]:
    """The host origins of a live secret (for `frame-ancestors`, even before its token is checked:
    the host page must be able to show the embed's refusal)."""
    found = conn.execute("select allowed_origins from embedding_secrets where kid = %s and revoked_at is null",
                         (kid,)).fetchone()
    return list(found[0]) if found else []
