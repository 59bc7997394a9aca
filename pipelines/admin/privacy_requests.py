"""Data subject requests: export or erasure of one person's data on one site.

A request is recorded `pending`; the maintenance job processes it (`running`, then `done` or
`failed`) and clears `subject_value`, after which only `subject_hash` identifies the person.

`subject_hash` = HMAC-SHA256(key, "<subject_kind>:<subject_value>") with the key
`derive_key(settings.server_secret(), "privacy-subject")` (see `subject_key`): stable, so that two
requests about the same person can be matched, and useless without the server secret.

Export results: the maintenance job writes the person's events as JSON lines to
`export_path(settings, request_id)` = `$ANALYTICS_HOME/exports/<request_id>.jsonl`, then sets the
request `done` with `result = {"export_file": "exports/<request_id>.jsonl", "rows": <n>}`.
The API serves that file; the location is computed from the id, never read from `result`.
"""
from __future__ import annotations

import hashlib
import hmac
import uuid
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.errors import InvalidInput, NotFound
from pipelines.admin.validation import storable
from pipelines.key_derivation import derive_key
from pipelines.settings import Settings

KINDS = ("export", "erasure")
SUBJECT_KINDS = ("user_id", "visitor")
MAX_SUBJECT_LENGTH = 500
STATES = ("pending", "running", "done", "failed")

_PUBLIC_COLUMNS = "request_id as id, site_id, kind, subject_kind, state, requested_by, requested_at, completed_at, result"


def subject_key(settings: Settings) -> bytes:
    """The HMAC key of subject hashes, derived from the server secret for this use only."""
    return derive_key(settings.server_secret(), "privacy-subject")


def subject_hash(key: bytes, subject_kind: str, subject_value: str) -> bytes:
    """Keyed hash identifying a person without keeping their identifier."""
    return hmac.new(key, f"{subject_kind}:{subject_value}".encode("utf-8"), hashlib.sha256).digest()


def export_path(settings: Settings, request_id: object) -> Path:
    """Where the export of a request is (to be) written: `$ANALYTICS_HOME/exports/<id>.jsonl`."""
    return settings.home / "exports" / f"{parse_id(request_id, 'privacy request')}.jsonl"


def create_request(conn: psycopg.Connection, site_id: object, kind: str, subject_kind: str,
                   subject_value: str, requested_by: str, *, subject_key: bytes) -> uuid.UUID:
    """Record a pending request and audit it (`privacy_request.created`); returns its id.

    `requested_by` is the actor (`admin-token:<id>`, `server-key:<id>`). The audit entry names
    the kinds, never the person's identifier.
    """
    site = require_site(conn, site_id)
    if kind not in KINDS:
        raise InvalidInput("kind must be export or erasure", {"field": "kind"})
    if subject_kind not in SUBJECT_KINDS:
        raise InvalidInput("subject must be user_id or visitor", {"field": "subject_kind"})
    if (not isinstance(subject_value, str) or not subject_value.strip() or len(subject_value) > MAX_SUBJECT_LENGTH
            or not storable(subject_value)):
        raise InvalidInput(f"{subject_kind} must be a non-empty string of at most {MAX_SUBJECT_LENGTH} characters",
                           {"field": subject_kind})
    request_id = conn.execute(
        """insert into collect.privacy_requests (site_id, kind, subject_kind, subject_hash, subject_value, requested_by)
           values (%s, %s, %s, %s, %s, %s) returning request_id""",
        (site, kind, subject_kind, subject_hash(subject_key, subject_kind, subject_value), subject_value,
         requested_by),
    ).fetchone()[0]
    audit.record(conn, requested_by, "privacy_request.created", str(request_id),
                 {"site_id": str(site), "kind": kind, "subject_kind": subject_kind})
    return request_id


def list_requests(conn: psycopg.Connection, site_id: object, *, state: str | None = None,
                  limit: int = 100) -> list[dict[str, Any]]:
    """Requests of a site, newest first, without the subject's identifier."""
    site = require_site(conn, site_id)
    if state is not None and state not in STATES:
        raise InvalidInput("state must be one of pending, running, done, failed", {"field": "state"})
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            f"""select {_PUBLIC_COLUMNS} from collect.privacy_requests
                 where site_id = %s and (%s::text is null or state = %s)
                 order by requested_at desc, request_id limit %s""",
            (site, state, state, limit),
        ).fetchall()


def get_request(conn: psycopg.Connection, site_id: object, request_id: object) -> dict[str, Any]:
    """One request of the site, or NotFound."""
    site = require_site(conn, site_id)
    request = parse_id(request_id, "privacy request")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(
            f"select {_PUBLIC_COLUMNS} from collect.privacy_requests where site_id = %s and request_id = %s",
            (site, request),
        ).fetchone()
    if record is None:
        raise NotFound("privacy request not found", {"request_id": str(request)})
    return record
