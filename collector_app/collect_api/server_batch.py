"""The rules of `POST /collect/server`, once, for both servers that answer it.

The collector's server answers the endpoint in the event loop (`server_asgi.py`): a batch of up
to a hundred events is the collector's bulk path, and the hops of a request through a2wsgi's
threads and Flask cost as much CPU as validating its events. The Flask route (`server.py`)
answers it for the Flask app used on its own (tests, `flask run`). Both go through `ServerBatches`
in the same steps:

1. `credentials`: the bearer secret and the Idempotency-Key's hash, from the headers alone (a
   refusal here does not read the body);
2. `begin`: parse the body, count its events, authenticate the key, count the events against its
   limit, and find an earlier answer to the idempotency key: the database is read, so the event
   loop runs this step in a thread; answers a replay directly. A request without an
   Idempotency-Key whose key this process has authenticated before takes `begin_cached` instead
   (CPU only): the key's check and count go with its rows into the writer's group query;
3. `rows`: validate and derive (CPU only: the salt is at hand after `begin`);
4. the writer makes the rows durable (`BatchWriter.submit`, or `submit_async` from the loop). When
   it did not confirm the key of a `begin_cached` batch (outcome `unchecked`: nothing written,
   nothing counted), the request starts again at `begin`, whose check answers as it always has
   (401, 429, or the rows of an identity that changed, or the spool while the database is down);
5. `finish`: the 202, or the stored answer when a concurrent twin of the request won the
   idempotency key (the database is read again, rarely).

Every refusal is an `ApiError`, answered in the structured shape by either server.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime

import msgspec
from werkzeug.exceptions import RequestEntityTooLarge

from collector_app.collect_api.context import database_unavailable, json_document
from collector_app.errors import ApiError
from pipelines.admin.server_keys import ServerKeyIdentity
from pipelines.ingest.event_model import MAX_EVENTS_PER_REQUEST, ServerBatch
from pipelines.ingest.json_bodies import is_utf8
from pipelines.ingest.service import DatabaseDown, Ingestion
from pipelines.ingest.visitors import SaltUnavailable
from pipelines.ingest.writer import IdempotencyRecord, KeyCheck

# 100 events each at every length limit (about 48 kB of ASCII apiece) fit with room to spare.
SERVER_BODY_LIMIT = 8 * 1024 * 1024
_IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,255}")
_BEARER = re.compile(r"Bearer\s+(\S+)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    """A 202 (or a replayed one): status, extra headers and the JSON document."""

    status: int
    document: dict
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Batch:
    """A request past its checks, with its key's identity: its events remain to be validated."""

    identity: ServerKeyIdentity
    events: list
    key_hash: str | None
    request_hash: str
    now: datetime
    escapes: bool = True  # whether the body holds a \u escape (without, no event holds NUL or a surrogate)
    key_check: KeyCheck | None = None  # from begin_cached: the key is checked with the rows, by the writer


def has_unicode_escape(body: bytes) -> bool:
    """Whether the body holds a \\u escape. Most bodies hold no backslash at all, which one memchr
    tells (a tenth of the two-byte search's cost over a batch)."""
    return b"\\" in body and b"\\u" in body


def payload_too_large() -> ApiError:
    """The refusal of a body past SERVER_BODY_LIMIT, as Werkzeug words it for the Flask route."""
    return ApiError(413, "payload_too_large", RequestEntityTooLarge.description)


def unknown_key() -> ApiError:
    return ApiError(401, "unauthorized", "The server key is unknown or revoked.",
                    headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})


def bearer_secret(authorization: str | None) -> str:
    match = _BEARER.fullmatch(authorization or "")
    if not match:
        raise ApiError(401, "unauthorized", "Send the server key as Authorization: Bearer <key>.",
                       headers={"WWW-Authenticate": "Bearer"})
    return match.group(1)


_batch_decoder = msgspec.json.Decoder(ServerBatch)


def batch_events(body: bytes) -> list:
    """The events of a request body, each undecoded (`msgspec.Raw`: checked one by one later), or the
    400 that refuses the body. A body msgspec does not take is read by the standard decoder, and
    `events_of` says what is wrong with it, in the words the API has always used."""
    try:
        events = _batch_decoder.decode(body).events
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        events = None
    if events is not None and is_utf8(body):
        return events
    return events_of(json_document(body))


def events_of(body) -> list:
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


def idempotency_key_hash(key: str | None) -> str | None:
    """SHA-256 of the Idempotency-Key header: the caller may put anything in it, so it is not kept."""
    if key is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(key):
        raise ApiError(400, "invalid_idempotency_key",
                       "Idempotency-Key must be 1 to 255 visible ASCII characters.")
    return hashlib.sha256(key.encode()).hexdigest()


def _replayed(stored: tuple[str, dict], request_hash: str) -> Answer:
    stored_hash, response = stored
    if stored_hash != request_hash:
        raise ApiError(422, "idempotency_key_reused",
                       "This Idempotency-Key was used for a different request body.")
    return Answer(202, response, (("Idempotent-Replayed", "true"),))


class ServerBatches:
    """The endpoint's steps over the process's Ingestion (see the module's docstring)."""

    def __init__(self, service: Ingestion):
        self.service = service

    @staticmethod
    def credentials(authorization: str | None, idempotency_key: str | None) -> tuple[str, str | None]:
        return bearer_secret(authorization), idempotency_key_hash(idempotency_key)

    def begin(self, secret: str, key_hash: str | None, body: bytes, now: datetime) -> Batch | Answer:
        """Reads the database: the key, its rate limit, an earlier answer to the idempotency key."""
        events = batch_events(body)
        request_hash = hashlib.sha256(body).hexdigest() if key_hash else ""
        try:
            started = self.service.begin_server_request(secret, len(events), key_hash, now)
        except DatabaseDown:
            raise database_unavailable() from None
        if started is None:
            raise unknown_key()
        if started.stored is not None:
            return _replayed(started.stored, request_hash)
        if started.retry_after is not None:
            raise ApiError(429, "rate_limited", "This server key is over its events-per-minute limit.",
                           {"limit_per_minute": started.identity.rate_limit_per_minute},
                           headers={"Retry-After": str(int(started.retry_after))})
        return Batch(started.identity, events, key_hash, request_hash, now, has_unicode_escape(body))

    def begin_cached(self, secret: str, key_hash: str | None, body: bytes, now: datetime) -> Batch | None:
        """`begin` without the database, for a request without an Idempotency-Key whose key this
        process has authenticated before (`Ingestion.cached_server_request`); None: take `begin`.
        The body's refusals are `begin`'s, in the same order (they come before the key's)."""
        if key_hash is not None or self.service.cached_key_check(secret, 0, now) is None:
            return None
        events = batch_events(body)
        started = self.service.cached_key_check(secret, len(events), now)
        if started is None:
            return None
        return Batch(started.identity, events, None, "", now, has_unicode_escape(body), started.key_check)

    def rows(self, batch: Batch) -> tuple[list[tuple], dict, IdempotencyRecord | None]:
        """The rows to write, the 202's document, and the idempotency record to store with them."""
        try:
            rows, rejected = self.service.server_rows(batch.identity, batch.events, batch.now, batch.escapes)
        except SaltUnavailable:
            raise database_unavailable() from None
        response = {"accepted": len(rows), "rejected": rejected}
        record = None
        if batch.key_hash:
            record = IdempotencyRecord(str(batch.identity.key_id), batch.key_hash, batch.request_hash, response)
        return rows, response, record

    def finish(self, batch: Batch, response: dict, outcome: str) -> Answer:
        """The answer once the writer is done (`outcome` as `BatchWriter.submit` gives it)."""
        if outcome == "duplicate":  # a concurrent twin of this request won the idempotency key
            try:
                stored = self.service.stored_response(batch.identity.key_id, batch.key_hash)
            except DatabaseDown:
                raise database_unavailable() from None
            if stored is not None:
                return _replayed(stored, batch.request_hash)
        return Answer(202, response)
