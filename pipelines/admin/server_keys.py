"""Server keys: the bearer secrets of `POST /collect/server`, one site each, send-only.

States (spec): (none) -> active on creation, active -> revoked on revocation, which is final. The secret is
`sk_` + 32 random bytes in base64url (no padding), shown once at creation; only its SHA-256 and
its last four characters (`secret_hint`, to tell keys apart in a list) are stored.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.last_used import record_use
from pipelines.admin.errors import InvalidInput, NotFound

SECRET_PREFIX = "sk_"
# "sk_" + 43 base64url characters; anything much longer is not one of ours (no hashing of junk).
_MAX_SECRET_LENGTH = 100
DEFAULT_RATE_LIMIT_PER_MINUTE = 6000
MAX_RATE_LIMIT_PER_MINUTE = 1_000_000
MAX_NAME_LENGTH = 200

_PUBLIC_COLUMNS = """key_id as id, site_id, name, secret_hint, rate_limit_per_minute, created_at,
    last_used_at, revoked_at, case when revoked_at is null then 'active' else 'revoked' end as state"""


@dataclass(frozen=True)
class ServerKeyIdentity:
    """Who is calling `/collect/server`: the key, its site and what the site allows."""

    key_id: uuid.UUID
    site_id: uuid.UUID
    rate_limit_per_minute: int
    accept_user_id: bool


def secret_hash(secret: str) -> bytes:
    """SHA-256 of a secret, as stored in collect.server_keys.secret_hash.

    A plain hash suffices: the secret carries 256 random bits, so there is nothing to brute-force.
    """
    return hashlib.sha256(secret.encode("utf-8")).digest()


def new_secret() -> str:
    return SECRET_PREFIX + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode("ascii").rstrip("=")


_KEY_OF_SECRET = """select k.key_id, k.site_id, k.rate_limit_per_minute, s.accept_user_id,
                          k.last_used_at is null or k.last_used_at < now() - interval '1 minute' as stale
                     from collect.server_keys k join collect.sites s on s.site_id = k.site_id
                    where k.secret_hash = %(hash)s and k.revoked_at is null"""


def _well_formed(secret: Any) -> bool:
    return isinstance(secret, str) and secret.startswith(SECRET_PREFIX) and len(secret) <= _MAX_SECRET_LENGTH


def authenticate_server_key(conn: psycopg.Connection, secret: str) -> ServerKeyIdentity | None:
    """The identity behind a bearer secret, or None for an unknown, malformed or revoked key.

    Also records the key's last use, at most once a minute: the update is skipped when the stored
    time is recent, and never waits for a row another transaction holds (`skip locked`), so the hot
    ingestion path pays one indexed read almost always. The update belongs to the caller's
    transaction (immediate on an autocommit connection).
    """
    if not _well_formed(secret):
        return None
    row = conn.execute(_KEY_OF_SECRET, {"hash": secret_hash(secret)}).fetchone()
    return None if row is None else _identity(conn, row)


def _identity(conn: psycopg.Connection, row: tuple) -> ServerKeyIdentity:
    """The identity of a row of `_KEY_OF_SECRET`, its use recorded when the stored time is stale."""
    key_id, site_id, rate_limit, accept_user_id, stale = row
    if stale:
        record_use(conn, "collect.server_keys", "key_id", key_id)
    return ServerKeyIdentity(key_id=key_id, site_id=site_id, rate_limit_per_minute=rate_limit,
                             accept_user_id=accept_user_id)


def authenticate_and_count(conn: psycopg.Connection, secret: str,
                           events: int) -> tuple[ServerKeyIdentity | None, bool]:
    """`authenticate_server_key` and the count of `events` against the key's minute
    (`pipelines.ingest.rate_limits`) in one statement: (identity or None, whether the events
    were allowed and counted). One round trip where the two took two, on every server batch
    sent without an Idempotency-Key (a replayed request must not be counted, so those check
    the key first)."""
    from pipelines.ingest.rate_limits import COUNT_IF_ALLOWED

    if not _well_formed(secret):
        return None, False
    row = conn.execute(
        f"""with key as ({_KEY_OF_SECRET}),
                 counted as ({COUNT_IF_ALLOWED.format(
                     source="select key_id, date_trunc('minute', now()), %(events)s from key"
                            " where %(events)s <= rate_limit_per_minute",
                     limit="(select rate_limit_per_minute from key)")})
            select key.*, exists (select from counted) from key""",
        {"hash": secret_hash(secret), "events": events},
    ).fetchone()
    if row is None:
        return None, False
    *key, allowed = row
    return _identity(conn, tuple(key)), allowed


# The server keys of a group of `POST /collect/server` batches, checked and counted in the event
# writer's group query (pipelines/ingest/writer.py) instead of in a statement of their own per batch.
# Each row of the parameters is one key of the group as the collector has it cached (its secret's
# hash, id, site, the site's `accept_user_id`) with the group's events sent with it; a key is returned
# only when it is still active with that same identity and all those events fit in its minute,
# and only then are they counted (COUNT_IF_ALLOWED, as `authenticate_and_count` does for one
# request). A key not returned counts nothing, and its batches are answered as before, by the
# check of their own (`authenticate_and_count`): revoked, changed or over its limit alike. A key's
# last use is recorded as `record_use` does, without waiting on a row another transaction holds.
# The writer commits this statement on its own, before the group's events (a group of another
# worker with the same key would otherwise wait for the count's row until the COPY ends). Keys
# are counted in the order of their ids, so two groups with the same keys never wait in a circle.
@functools.cache
def group_key_check_statement() -> str:
    from pipelines.ingest.rate_limits import COUNT_IF_ALLOWED

    return f"""with wanted (secret_hash, key_id, site_id, accept_user_id, events) as (
                    select * from unnest(%s::bytea[], %s::uuid[], %s::uuid[], %s::boolean[], %s::bigint[])),
                 key as (
                    select k.key_id, k.rate_limit_per_minute, w.events,
                           k.last_used_at is null or k.last_used_at < now() - interval '1 minute' as stale
                      from wanted w
                      join collect.server_keys k on k.secret_hash = w.secret_hash and k.key_id = w.key_id
                                                and k.revoked_at is null and k.site_id = w.site_id
                      join collect.sites s on s.site_id = k.site_id and s.accept_user_id = w.accept_user_id),
                 counted as ({COUNT_IF_ALLOWED.format(
                     source="select key_id, date_trunc('minute', now()), events from key"
                            " where events <= rate_limit_per_minute order by key_id",
                     limit="(select rate_limit_per_minute from key where key.key_id = excluded.key_id)")}),
                 used as (
                    update collect.server_keys set last_used_at = now()
                     where key_id in (select key_id from collect.server_keys
                                       where key_id in (select key_id from key where stale)
                                         and (last_used_at is null or last_used_at < now() - interval '1 minute')
                                         for update skip locked))
            select key_id::text from counted"""


def _validated_name(name: Any) -> str:
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH or not validation.storable(name):
        raise InvalidInput("name must be a string of at most 200 characters, without NUL or lone surrogates",
                           {"field": "name"})
    return name.strip()


def _validated_rate_limit(value: Any) -> int:
    if value is None:
        return DEFAULT_RATE_LIMIT_PER_MINUTE
    value = validation.whole_number(value)
    if value is None or not 1 <= value <= MAX_RATE_LIMIT_PER_MINUTE:
        raise InvalidInput(f"rate_limit_per_minute must be a whole number from 1 to {MAX_RATE_LIMIT_PER_MINUTE}",
                           {"field": "rate_limit_per_minute"})
    return value


def create_server_key(conn: psycopg.Connection, site_id: object, *, actor: str, name: Any = None,
                      rate_limit_per_minute: Any = None) -> dict[str, Any]:
    """Create an active key for the site. Returns its public record plus `secret`, the only time
    the secret exists outside the caller's hands. Audited as `server_key.created`."""
    site = require_site(conn, site_id)
    name = _validated_name(name)
    rate_limit = _validated_rate_limit(rate_limit_per_minute)
    secret = new_secret()
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(
            f"""insert into collect.server_keys (site_id, name, secret_hash, secret_hint, rate_limit_per_minute)
                values (%s, %s, %s, %s, %s) returning {_PUBLIC_COLUMNS}""",
            (site, name, secret_hash(secret), secret[-4:], rate_limit),
        ).fetchone()
    audit.record(conn, actor, "server_key.created", str(record["id"]),
                 {"site_id": str(site), "name": name, "rate_limit_per_minute": rate_limit})
    return {**record, "secret": secret}


def list_server_keys(conn: psycopg.Connection, site_id: object) -> list[dict[str, Any]]:
    """Every key of the site, active and revoked, newest first; never a secret or its hash."""
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            f"select {_PUBLIC_COLUMNS} from collect.server_keys where site_id = %s order by created_at desc, key_id",
            (site,),
        ).fetchall()


def get_server_key(conn: psycopg.Connection, site_id: object, key_id: object) -> dict[str, Any]:
    site = require_site(conn, site_id)
    key = parse_id(key_id, "server key")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(
            f"select {_PUBLIC_COLUMNS} from collect.server_keys where site_id = %s and key_id = %s",
            (site, key),
        ).fetchone()
    if record is None:
        raise NotFound("server key not found", {"key_id": str(key)})
    return record


def update_server_key(conn: psycopg.Connection, site_id: object, key_id: object, body: Any, *,
                      actor: str) -> dict[str, Any]:
    """Rename a key or change its rate limit (`{name?, rate_limit_per_minute?}`); audited as
    `server_key.updated`. The secret and the state do not change here."""
    site = require_site(conn, site_id)
    current = get_server_key(conn, site, key_id)
    body = validation.require_object(body)
    validation.reject_unknown(body, ("name", "rate_limit_per_minute"))
    changes = {}
    if "name" in body:
        changes["name"] = _validated_name(body["name"])
    if "rate_limit_per_minute" in body:
        if body["rate_limit_per_minute"] is None:
            raise InvalidInput("rate_limit_per_minute cannot be null", {"field": "rate_limit_per_minute"})
        changes["rate_limit_per_minute"] = _validated_rate_limit(body["rate_limit_per_minute"])
    if changes:
        conn.execute(
            """update collect.server_keys set name = coalesce(%s, name),
                      rate_limit_per_minute = coalesce(%s, rate_limit_per_minute) where key_id = %s""",
            (changes.get("name"), changes.get("rate_limit_per_minute"), current["id"]),
        )
        audit.record(conn, actor, "server_key.updated", str(current["id"]), {"site_id": str(site), **changes})
    return get_server_key(conn, site, current["id"])


def revoke_server_key(conn: psycopg.Connection, site_id: object, key_id: object, *, actor: str) -> dict[str, Any]:
    """Revoke the key (final). Revoking a revoked key changes nothing and is not audited again."""
    site = require_site(conn, site_id)
    key = parse_id(key_id, "server key")
    revoked = conn.execute(
        """update collect.server_keys set revoked_at = now()
            where site_id = %s and key_id = %s and revoked_at is null returning key_id""",
        (site, key),
    ).fetchone()
    if revoked is not None:
        audit.record(conn, actor, "server_key.revoked", str(key), {"site_id": str(site)})
    return get_server_key(conn, site, key)
