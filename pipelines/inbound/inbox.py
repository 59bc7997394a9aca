"""What a receiver does with a delivery, once the HTTP layer has read its raw bytes.

The order is fixed: size, then signature on the raw bytes, then decoding. A verified delivery is
written to raw.inbound_inbox and committed before the answer; processing happens afterwards
(`pipelines.inbound.processing`). A refused one is counted and its payload quarantined.
"""
from __future__ import annotations

import json
import uuid
from typing import Any, Mapping

import psycopg
from psycopg.types.json import Jsonb

# The largest legitimate delivery is 50 events. A chat event carries a conversation object and
# at most one message (its body is a chat message); a database event carries a whole row twice
# (before and after). 16 MiB admits 50 events of over 300 KiB each, which is more than either
# service sends, and still bounds what one request can make a worker hold in memory.
MAX_DELIVERY_BYTES = 16 * 1024 * 1024
MAX_EVENTS = 50
MAX_EVENT_ID_LENGTH = 200
# A refused payload is kept for inspection up to this size, and at most this many per source and
# hour: an unauthenticated sender must not be able to fill the disk.
QUARANTINE_BODY_BYTES = 64 * 1024
QUARANTINE_PER_HOUR = 200
_KEPT_HEADERS = ("Content-Type", "Content-Length", "User-Agent", "X-Msg-Signature", "X-Msg-Delivery-Id",
                 "X-Msg-Webhook-Id", "X-Db-Signature", "X-Db-Delivery-Id")


class MalformedDelivery(ValueError):
    """A signed delivery whose body is not `{"events": [1 to 50 events with an id]}`."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


def decode_delivery(body: bytes) -> list[dict[str, Any]]:
    """The events of a verified body. Raises MalformedDelivery: the sender then fails it without
    retrying, which is right for a body that will never become valid."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedDelivery("invalid_encoding", "The body is not UTF-8.") from None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        raise MalformedDelivery("invalid_json", "The body is not valid JSON.") from None
    if not isinstance(document, dict) or not isinstance(document.get("events"), list):
        raise MalformedDelivery("invalid_delivery", "The body must be an object with an events list.")
    events = document["events"]
    if not 1 <= len(events) <= MAX_EVENTS:
        raise MalformedDelivery("invalid_delivery", f"events must hold 1 to {MAX_EVENTS} events.",
                                {"events": len(events)})
    for position, event in enumerate(events):
        if not isinstance(event, dict):
            raise MalformedDelivery("invalid_event", "Each event must be an object.", {"position": position})
        event_id = event.get("id")
        if not isinstance(event_id, str) or not 0 < len(event_id) <= MAX_EVENT_ID_LENGTH or "\x00" in event_id:
            raise MalformedDelivery("invalid_event", "Each event needs an id (a string).", {"position": position})
        if not isinstance(event.get("type"), str):
            raise MalformedDelivery("invalid_event", "Each event needs a type (a string).", {"position": position})
    return events


def store_delivery(conn: psycopg.Connection, source_id: uuid.UUID, source_kind: str, delivery_id: str | None,
                   body: bytes, event_count: int) -> int:
    """Write a verified delivery to the inbox (the caller commits before answering 2xx)."""
    return conn.execute(
        """insert into raw.inbound_inbox (source_id, source_kind, delivery_id, body, event_count)
           values (%s, %s, %s, %s, %s) returning inbox_id""",
        (source_id, source_kind, (delivery_id or "")[:200] or None, body, event_count),
    ).fetchone()[0]


def record_refusal(conn: psycopg.Connection, source_id: uuid.UUID, reason: str, headers: Mapping[str, str],
                   body: bytes, *, quarantine: bool = True) -> None:
    """Count a refused delivery and, within bounds, keep its payload for an operator."""
    conn.execute(
        """insert into collect.inbound_refusals (source_id, reason, minute, count)
           values (%s, %s, date_trunc('minute', now()), 1)
           on conflict (source_id, reason, minute) do update set count = collect.inbound_refusals.count + 1""",
        (source_id, reason),
    )
    if not quarantine:
        return
    recent = conn.execute(
        """select count(*) from raw.inbound_quarantine
            where source_id = %s and received_at > now() - interval '1 hour'""", (source_id,)).fetchone()[0]
    if recent >= QUARANTINE_PER_HOUR:
        return
    kept = {name: headers.get(name, "")[:500] for name in _KEPT_HEADERS if headers.get(name) is not None}
    conn.execute(
        """insert into raw.inbound_quarantine (source_id, reason, headers, body, body_bytes, truncated)
           values (%s, %s, %s, %s, %s, %s)""",
        (source_id, reason, Jsonb(kept), body[:QUARANTINE_BODY_BYTES], len(body), len(body) > QUARANTINE_BODY_BYTES),
    )
