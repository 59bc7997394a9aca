"""`POST /collect/server` and `POST /collect/server/erase`: backends sending events with a server key.

No origin check and no bot filter here: the key is enough (spec, Authentication 1).

Answers of `/collect/server`:
- 202 `{accepted, rejected: [{index, code, message}]}`: the valid events are durable (committed,
  or fsynced to the spool while the database is down), even when others were refused;
- 400 malformed request (not JSON, not an object, no `events` list, 0 or more than 100 events,
  unknown top-level field, bad `Idempotency-Key`); 401 missing, unknown or revoked key;
- 413 body over `SERVER_BODY_LIMIT`; 422 an `Idempotency-Key` reused with another body;
- 429 with `Retry-After` past the key's events-per-minute limit; 503 database needed and down.
With `Idempotency-Key`, a retry answers the first response (header `Idempotent-Replayed: true`)
and stores nothing again.
"""
from __future__ import annotations

import hashlib
import re

from flask import Blueprint, jsonify, request

from collector_app.collect_api.context import database_unavailable, ingestion, json_body
from collector_app.errors import ApiError
from pipelines.ingest.events import MAX_EVENTS_PER_REQUEST
from pipelines.ingest.service import DatabaseDown, utc_now
from pipelines.ingest.visitors import SaltUnavailable
from pipelines.ingest.writer import IdempotencyRecord, WriterUnavailable

bp = Blueprint("collect_server", __name__)

# 100 events each at every length limit (about 48 kB of ASCII apiece) fit with room to spare.
SERVER_BODY_LIMIT = 8 * 1024 * 1024
ERASE_BODY_LIMIT = 4096
MAX_SUBJECT_LENGTH = 500
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")
_BEARER = re.compile(r"Bearer\s+(\S+)\s*", re.IGNORECASE)


def _bearer_secret() -> str:
    match = _BEARER.fullmatch(request.headers.get("Authorization", ""))
    if not match:
        raise ApiError(401, "unauthorized", "Send the server key as Authorization: Bearer <key>.",
                       headers={"WWW-Authenticate": "Bearer"})
    return match.group(1)


def _unknown_key() -> ApiError:
    return ApiError(401, "unauthorized", "The server key is unknown or revoked.",
                    headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})


def _events_of(body) -> list:
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_request", "The body must be a JSON object with an events list.")
    unknown = sorted(set(body) - {"events"})
    if unknown:
        raise ApiError(400, "invalid_request", "Unknown top-level field(s); only events is accepted.",
                       {"fields": [name[:64] for name in unknown[:5]]})
    events = body.get("events")
    if not isinstance(events, list):
        raise ApiError(400, "invalid_request", "events must be a list of events.")
    if not 1 <= len(events) <= MAX_EVENTS_PER_REQUEST:
        raise ApiError(400, "invalid_request", f"events must hold 1 to {MAX_EVENTS_PER_REQUEST} events.",
                       {"count": len(events)})
    return events


def _idempotency_key_hash() -> str | None:
    """SHA-256 of the Idempotency-Key header: the caller may put anything in it, so it is not kept."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ApiError(400, "invalid_idempotency_key",
                       "Idempotency-Key must be 1 to 255 visible ASCII characters.")
    return hashlib.sha256(key.encode()).hexdigest()


def _replayed(stored: tuple[str, dict], request_hash: str):
    stored_hash, response = stored
    if stored_hash != request_hash:
        raise ApiError(422, "idempotency_key_reused",
                       "This Idempotency-Key was used for a different request body.")
    answer = jsonify(response)
    answer.status_code = 202
    answer.headers["Idempotent-Replayed"] = "true"
    return answer


@bp.post("/collect/server")
def collect_server():
    secret = _bearer_secret()
    key_hash = _idempotency_key_hash()
    events = _events_of(json_body(SERVER_BODY_LIMIT))
    request_hash = hashlib.sha256(request.get_data()).hexdigest() if key_hash else ""
    service = ingestion()
    now = utc_now()
    try:
        started = service.begin_server_request(secret, len(events), key_hash, now)
    except DatabaseDown:
        raise database_unavailable() from None
    if started is None:
        raise _unknown_key()
    if started.stored is not None:
        return _replayed(started.stored, request_hash)
    if started.retry_after is not None:
        raise ApiError(429, "rate_limited", "This server key is over its events-per-minute limit.",
                       {"limit_per_minute": started.identity.rate_limit_per_minute},
                       headers={"Retry-After": str(int(started.retry_after))})
    try:
        rows, rejected = service.server_rows(started.identity, events, now)
    except SaltUnavailable:
        raise database_unavailable() from None
    response = {"accepted": len(rows), "rejected": rejected}
    record = None
    if key_hash:
        record = IdempotencyRecord(str(started.identity.key_id), key_hash, request_hash, response)
    if rows or record:
        try:
            outcome = service.store(rows, record)
        except WriterUnavailable:
            raise database_unavailable() from None
        if outcome == "duplicate":  # a concurrent twin of this request won
            try:
                stored = service.stored_response(started.identity.key_id, key_hash)
            except DatabaseDown:
                raise database_unavailable() from None
            if stored is not None:
                return _replayed(stored, request_hash)
    return jsonify(response), 202


@bp.post("/collect/server/erase")
def erase():
    secret = _bearer_secret()
    body = json_body(ERASE_BODY_LIMIT)
    subjects = [kind for kind in ("user_id", "visitor") if isinstance(body, dict) and kind in body]
    if not isinstance(body, dict) or len(subjects) != 1 or len(body) != 1:
        raise ApiError(400, "invalid_request", "Send exactly one of user_id or visitor, and nothing else.")
    kind = subjects[0]
    value = body[kind]
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_SUBJECT_LENGTH:
        raise ApiError(400, "invalid_request",
                       f"{kind} must be a non-empty string of at most {MAX_SUBJECT_LENGTH} characters.")
    try:
        request_id = ingestion().request_erasure(secret, kind, value)
    except DatabaseDown:
        raise database_unavailable() from None
    if request_id is None:
        raise _unknown_key()
    return jsonify({"id": str(request_id), "state": "pending"}), 202
