"""`POST /ingest/chat/<source id>` and `POST /ingest/db/<source id>`: signed webhook receivers.

In this order: size (413), source (404), signature on the raw bytes (401, counted and
quarantined), decoding (400), then the delivery is committed to the inbox and answered 202 at once.
A database that does not answer is a 503 with Retry-After (the senders retry). Routes have no
trailing slash and nothing here redirects: both senders count a redirect as a failure.
"""
from __future__ import annotations

import logging
import threading
import time

from flask import Blueprint, current_app, jsonify, request

from collector_app.database import transaction
from collector_app.errors import ApiError
from collector_app.inbound_api import worker
from pipelines.inbound import inbox, signatures, sources
from pipelines.inbound.signatures import SignatureScheme
from pipelines.sealing import UnsealError

_log = logging.getLogger(__name__)
blueprint = Blueprint("inbound_receivers", __name__)
RETRY_AFTER_SECONDS = "30"
_READ_CHUNK = 256 * 1024
_key_lock = threading.Lock()


def sealing_key() -> bytes:
    """The app's key sealing inbound secrets, derived once (the server secret may live in a file)."""
    key = current_app.extensions.get("inbound_sealing_key")
    if key is None:
        with _key_lock:
            key = sources.sealing_key(current_app.config["ANALYTICS_SETTINGS"])
            current_app.extensions["inbound_sealing_key"] = key
    return key


def _too_large() -> ApiError:
    return ApiError(413, "payload_too_large", f"A delivery may not exceed {inbox.MAX_DELIVERY_BYTES} bytes.",
                    {"limit_bytes": inbox.MAX_DELIVERY_BYTES})


def _read_body() -> bytes:
    """The raw body, refused past the limit without reading it all (chunked bodies included)."""
    if request.content_length is not None and request.content_length > inbox.MAX_DELIVERY_BYTES:
        raise _too_large()
    stream = request.stream
    chunks, size = [], 0
    while True:
        chunk = stream.read(_READ_CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > inbox.MAX_DELIVERY_BYTES:
            raise _too_large()
        chunks.append(chunk)
    return b"".join(chunks)


class _Storage:
    """`transaction()` whose 503 tells the sender when to come back."""

    def __enter__(self):
        self._context = transaction()
        try:
            return self._context.__enter__()
        except ApiError as exc:
            raise _with_retry_after(exc) from None

    def __exit__(self, *exc_info):
        try:
            return self._context.__exit__(*exc_info)
        except ApiError as exc:
            raise _with_retry_after(exc) from None


def _with_retry_after(exc: ApiError) -> ApiError:
    if exc.status == 503:
        exc.headers = {**exc.headers, "Retry-After": RETRY_AFTER_SECONDS}
    return exc


def _refuse(source_id, reason: str, body: bytes) -> None:
    """Count and quarantine; a refusal must still be answered when this cannot be written."""
    try:
        with transaction() as conn:
            inbox.record_refusal(conn, source_id, reason, request.headers, body)
    except ApiError:
        pass


def _receive(source_id: str, kind: str, scheme: SignatureScheme):
    body = _read_body()
    # The clock is a setting so that tests can hold it still at the edges of the tolerance.
    received = current_app.config.get("INBOUND_CLOCK", time.time)()
    try:
        with _Storage() as conn:
            source = sources.receiver_source(conn, sealing_key(), source_id, kind)
    except UnsealError:
        # The server secret changed since the source was configured: our fault, not the sender's.
        # A 503 keeps the sender retrying while an operator restores the secret.
        _log.error("inbound source %s: its secrets cannot be opened with the current server secret", source_id)
        raise ApiError(503, "secret_unreadable", "The source's secrets cannot be opened; an operator must act.",
                       headers={"Retry-After": RETRY_AFTER_SECONDS}) from None
    if source is None or not source.active:
        raise ApiError(404, "unknown_source", "No active inbound source has this address.")
    verification = signatures.verify(request.headers.get(scheme.signature_header), body, source.secrets,
                                     now=received)
    if not verification:
        _refuse(source.source_id, f"signature_{verification.reason}", body)
        raise ApiError(401, "invalid_signature", "The signature does not verify.",
                       {"reason": verification.reason})
    try:
        events = inbox.decode_delivery(body)
    except inbox.MalformedDelivery as exc:
        _refuse(source.source_id, exc.code, body)
        raise ApiError(400, exc.code, exc.message, exc.details) from None
    with _Storage() as conn:
        inbox_id = inbox.store_delivery(conn, source.source_id, kind, request.headers.get(scheme.delivery_header),
                                        body, len(events))
    worker.wake(current_app._get_current_object())
    response = jsonify({"received": len(events), "inbox_id": inbox_id})
    response.status_code = 202
    return response


@blueprint.post("/ingest/chat/<source_id>")
def receive_chat(source_id: str):
    return _receive(source_id, "chat_webhook", signatures.CHAT)


@blueprint.post("/ingest/db/<source_id>")
def receive_db(source_id: str):
    return _receive(source_id, "db_webhook", signatures.DATABASE)
