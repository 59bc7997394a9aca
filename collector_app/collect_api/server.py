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

from flask import Blueprint, jsonify, request

from collector_app.collect_api.context import database_unavailable, ingestion, json_body
from collector_app.collect_api.server_batch import (SERVER_BODY_LIMIT, Answer, Batch, ServerBatches,
                                                    bearer_secret, unknown_key)
from collector_app.errors import ApiError
from pipelines.ingest.service import DatabaseDown, utc_now
from pipelines.ingest.writer import WriterUnavailable

bp = Blueprint("collect_server", __name__)

ERASE_BODY_LIMIT = 4096
MAX_SUBJECT_LENGTH = 500


def _flask_answer(answer: Answer):
    response = jsonify(answer.document)
    response.status_code = answer.status
    for name, value in answer.headers:
        response.headers[name] = value
    return response


@bp.post("/collect/server")
def collect_server():
    """The Flask app's answer (served alone); the collector's server answers in its event loop
    (server_asgi.py). The steps and rules are ServerBatches'."""
    batches = ServerBatches(ingestion())
    secret, key_hash = batches.credentials(request.headers.get("Authorization"),
                                           request.headers.get("Idempotency-Key"))
    request.max_content_length = SERVER_BODY_LIMIT  # Werkzeug answers 413 past it
    body = request.get_data()
    batch = batches.begin_cached(secret, key_hash, body, utc_now())
    if batch is not None:
        answer = _stored(batches, batch)
        if answer is not None:
            return _flask_answer(answer)
        # The writer did not confirm the cached key: the request's own check answers, as before.
    batch = batches.begin(secret, key_hash, body, utc_now())
    if isinstance(batch, Answer):
        return _flask_answer(batch)
    return _flask_answer(_stored(batches, batch))


def _stored(batches: ServerBatches, batch: Batch) -> Answer | None:
    """As `AsgiServerBatch._stored`: the answer, or None when the writer did not confirm the key."""
    rows, response, record = batches.rows(batch)
    outcome = "stored"
    if rows or record or batch.key_check:
        try:
            outcome = batches.service.store(rows, record, key_check=batch.key_check)
        except WriterUnavailable:
            raise database_unavailable() from None
    if outcome == "unchecked":
        return None
    return batches.finish(batch, response, outcome)


@bp.post("/collect/server/erase")
def erase():
    secret = bearer_secret(request.headers.get("Authorization"))
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
        raise unknown_key()
    return jsonify({"id": str(request_id), "state": "pending"}), 202
