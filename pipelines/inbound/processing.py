"""Processing of inbox deliveries into raw tables, after the sender was answered.

- Deduplication on the event `id` (primary key of raw.chat_events / raw.db_events): a retried
  delivery, a duplicate inside one batch, or two processors racing on the same event insert it once.
- Order: the current state of a conversation (raw.chat_conversations) or a row (raw.db_rows) moves
  only to an event newer than its high-water mark (occurred_at, inbox sequence, position in the
  batch). A late or duplicate event is kept in history but never rolls the state back; so
  deliveries may be processed concurrently, and out of order, without harm.
- `conversation.transferred` moves the conversation to the inbox its event names (the state takes
  the event's `inboxId`, unless a newer event already set it); `webhook.ping` is recorded only.
- Personal texts of chat events (contact name and e-mail, message bodies, previews, attachment
  links, which open without a token) are not kept.

Locks are always taken in the same order (event ids sorted, then state keys sorted) so concurrent
processors cannot deadlock on each other.
"""
from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import psycopg
from psycopg.types.json import Jsonb

_log = logging.getLogger(__name__)

BATCH_DELIVERIES = 20
MAX_ATTEMPTS = 5
QUARANTINE_DAYS = 7

_has_nul: contextvars.ContextVar[bool] = contextvars.ContextVar("inbound_body_has_nul", default=True)
_CHAT_CONVERSATION_DROPPED = ("preview", "previewAgent")
_CHAT_CONTACT_KEPT = ("id", "identified")


@dataclass
class ProcessingReport:
    deliveries: int = 0
    events: int = 0
    inserted: int = 0
    duplicates: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, other: "ProcessingReport") -> None:
        self.deliveries += other.deliveries
        self.events += other.events
        self.inserted += other.inserted
        self.duplicates += other.duplicates
        self.failed += other.failed
        self.errors += other.errors


def parse_time(value: Any) -> dt.datetime | None:
    """An ISO 8601 time with a zone (naive times are taken as UTC), or None."""
    if not isinstance(value, str) or not 0 < len(value) <= 64:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.strip().replace("z", "Z"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    return parsed


def _text(value: Any, limit: int = 500) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return None
    return str(value).replace("\x00", "")[:limit]


def _clean(value: Any) -> Any:
    """jsonb refuses NUL characters: drop them wherever they are (a no-op for the usual body,
    which holds no escaped NUL, checked once per delivery by `_has_nul`)."""
    if not _has_nul.get():
        return value
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


# -- chat ---------------------------------------------------------------------------------------

def _minimal_conversation(conversation: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in conversation.items() if k not in _CHAT_CONVERSATION_DROPPED}
    contact = conversation.get("contact")
    if isinstance(contact, dict):
        kept["contact"] = {k: contact[k] for k in _CHAT_CONTACT_KEPT if k in contact}
    return _clean(kept)


def _minimal_message(message: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in message.items() if k not in ("body", "attachments")}
    body = message.get("body")
    kept["bodyLength"] = len(body) if isinstance(body, str) else None
    attachments = message.get("attachments")
    kept["attachmentCount"] = len(attachments) if isinstance(attachments, list) else 0
    return _clean(kept)


def _chat_row(event: dict[str, Any], source_id: uuid.UUID, site_id: uuid.UUID | None, inbox_seq: int,
              received_at: dt.datetime) -> dict[str, Any]:
    conversation = event.get("conversation") if isinstance(event.get("conversation"), dict) else None
    message = event.get("message") if isinstance(event.get("message"), dict) else None
    webhook = event.get("webhook") if isinstance(event.get("webhook"), dict) else None
    contact = (conversation or {}).get("contact") if isinstance((conversation or {}).get("contact"), dict) else {}
    delivery = (message or {}).get("delivery") if isinstance((message or {}).get("delivery"), dict) else {}
    error = delivery.get("error")
    if isinstance(error, dict):
        error = error.get("code") or error.get("reason")
    body = (message or {}).get("body")
    attachments = (message or {}).get("attachments")
    occurred = parse_time(event.get("occurredAt")) or received_at
    message_at = parse_time((message or {}).get("at"))
    return {
        "event_id": event["id"],
        "event_type": _text(event.get("type"), 100),
        "occurred_at": occurred.isoformat(),
        "source_id": str(source_id),
        "site_id": str(site_id) if site_id else None,
        "inbox_seq": inbox_seq,
        "conversation_id": _text((conversation or {}).get("id"), 200),
        "inbox_id": _text((conversation or {}).get("inboxId"), 200),
        "team_id": _text((conversation or {}).get("teamId"), 200),
        "status": _text((conversation or {}).get("status"), 100),
        "assignee_id": _text((conversation or {}).get("assigneeId"), 200),
        "handed_off": (conversation or {}).get("handedOff") if isinstance((conversation or {}).get("handedOff"), bool) else None,
        "channel": _text((conversation or {}).get("channel"), 100),
        "contact_id": _text(contact.get("id"), 200),
        "contact_identified": contact.get("identified") if isinstance(contact.get("identified"), bool) else None,
        "message_id": _text((message or {}).get("id"), 200),
        "message_kind": _text((message or {}).get("kind"), 100),
        "message_at": message_at.isoformat() if message_at else None,
        "message_length": len(body) if isinstance(body, str) else None,
        "attachment_count": len(attachments) if isinstance(attachments, list) else None,
        "delivery_error": _text(error, 200),
        "webhook_id": _text((webhook or {}).get("id"), 200),
        "conversation": _minimal_conversation(conversation) if conversation else None,
        "message": _minimal_message(message) if message else None,
    }


_CHAT_COLUMNS = ("event_id text, event_type text, occurred_at timestamptz, source_id uuid, site_id uuid, "
                 "inbox_seq bigint, conversation_id text, inbox_id text, team_id text, status text, "
                 "assignee_id text, handed_off boolean, channel text, contact_id text, contact_identified boolean, "
                 "message_id text, message_kind text, message_at timestamptz, message_length integer, "
                 "attachment_count integer, delivery_error text, webhook_id text, conversation jsonb, message jsonb")
_CHAT_NAMES = [c.split()[0] for c in _CHAT_COLUMNS.split(", ")]


def _order(row: dict[str, Any]) -> tuple:
    """The high-water-mark order of an event: time, then inbox sequence, then place in its batch."""
    return parse_time(row["occurred_at"]), row["inbox_seq"] or 0, row["position"]


def _newest(rows: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], Any]) -> dict[Any, dict[str, Any]]:
    """The newest row (in `_order`) for each `key(row)`."""
    newest: dict[Any, dict[str, Any]] = {}
    for row in rows:
        current = newest.get(key(row))
        if current is None or _order(row) > _order(current):
            newest[key(row)] = row
    return newest


def _unique_sorted(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """First occurrence of each event id, sorted by id (the lock order)."""
    seen: dict[str, dict[str, Any]] = {}
    for row in rows:
        seen.setdefault(row["event_id"], row)
    return [seen[key] for key in sorted(seen)]


def apply_chat_events(conn: psycopg.Connection, rows: list[dict[str, Any]]) -> int:
    """Insert chat event rows (each with `position`), then move conversation states. Returns how
    many events were new."""
    unique = _unique_sorted(rows)
    if not unique:
        return 0
    names = ", ".join(_CHAT_NAMES)
    inserted = {r[0] for r in conn.execute(
        f"""insert into raw.chat_events ({names})
            select {names} from jsonb_to_recordset(%s) as r({_CHAT_COLUMNS})
            on conflict (event_id) do nothing returning event_id""",
        (Jsonb([{k: row[k] for k in _CHAT_NAMES} for row in unique]),)).fetchall()}
    # The newest new event of each conversation moves its state.
    newest = _newest((row for row in unique if row["event_id"] in inserted and row["conversation_id"]
                      and row["conversation"] is not None), lambda row: row["conversation_id"])
    if not newest:
        return len(inserted)
    oldest: dict[str, str] = {}
    for row in unique:
        if row["event_id"] in inserted and row["conversation_id"] in newest:
            current = oldest.get(row["conversation_id"])
            if current is None or parse_time(row["occurred_at"]) < parse_time(current):
                oldest[row["conversation_id"]] = row["occurred_at"]
    states = []
    for conversation_id in sorted(newest):  # the lock order
        row = newest[conversation_id]
        conversation = row["conversation"]
        states.append({
            **{k: row[k] for k in ("conversation_id", "source_id", "site_id", "inbox_id", "team_id", "status",
                                   "assignee_id", "handed_off", "channel", "contact_id", "occurred_at",
                                   "inbox_seq", "position", "event_id", "event_type")},
            "priority": _text(conversation.get("priority"), 100),
            "sentiment": _text(conversation.get("sentiment"), 100),
            "tags": conversation.get("tags") if isinstance(conversation.get("tags"), list) else None,
            "first_seen_at": oldest[conversation_id],
        })
    conn.execute(
        """insert into raw.chat_conversations as c
               (conversation_id, source_id, site_id, inbox_id, team_id, status, assignee_id, handed_off,
                channel, contact_id, priority, sentiment, tags, first_seen_at, state_at, state_seq,
                state_position, state_event_id, state_event_type)
           select conversation_id, source_id, site_id, inbox_id, team_id, status, assignee_id, handed_off,
                  channel, contact_id, priority, sentiment, tags, first_seen_at, occurred_at, inbox_seq,
                  position, event_id, event_type
             from jsonb_to_recordset(%s) as r(conversation_id text, source_id uuid, site_id uuid, inbox_id text,
                  team_id text, status text, assignee_id text, handed_off boolean, channel text, contact_id text,
                  priority text, sentiment text, tags jsonb, first_seen_at timestamptz, occurred_at timestamptz,
                  inbox_seq bigint, position integer, event_id text, event_type text)
            order by conversation_id
           on conflict (conversation_id) do update set
               source_id = excluded.source_id, site_id = excluded.site_id, inbox_id = excluded.inbox_id,
               team_id = excluded.team_id, status = excluded.status, assignee_id = excluded.assignee_id,
               handed_off = excluded.handed_off, channel = excluded.channel, contact_id = excluded.contact_id,
               priority = excluded.priority, sentiment = excluded.sentiment, tags = excluded.tags,
               first_seen_at = least(c.first_seen_at, excluded.first_seen_at),
               state_at = excluded.state_at, state_seq = excluded.state_seq,
               state_position = excluded.state_position, state_event_id = excluded.state_event_id,
               state_event_type = excluded.state_event_type, updated_at = now()
           where (c.state_at, c.state_seq, c.state_position)
                 < (excluded.state_at, excluded.state_seq, excluded.state_position)""",
        (Jsonb(states),))
    # An older event still tells when the conversation was first seen (the update above skips it).
    conn.execute(
        """update raw.chat_conversations as c set first_seen_at = r.first_seen_at
             from jsonb_to_recordset(%s) as r(conversation_id text, first_seen_at timestamptz)
            where c.conversation_id = r.conversation_id and c.first_seen_at > r.first_seen_at""",
        (Jsonb([{"conversation_id": k, "first_seen_at": oldest[k]} for k in sorted(oldest)]),))
    return len(inserted)


# -- database service ---------------------------------------------------------------------------

_DB_COLUMNS = ("event_id text, via text, event_type text, occurred_at timestamptz, source_id uuid, site_id uuid, "
               "inbox_seq bigint, delivery_id text, tenant text, base text, table_name text, record_id text, "
               "actor_kind text, before jsonb, after jsonb, changed text[]")
_DB_NAMES = [c.split()[0] for c in _DB_COLUMNS.split(", ")]


def db_row_from_event(event: dict[str, Any], source_id: uuid.UUID, site_id: uuid.UUID | None, inbox_seq: int,
                      position: int, received_at: dt.datetime, delivery_id: str | None) -> dict[str, Any] | None:
    """A raw.db_events row from a webhook event, or None when it lacks what identifies a row."""
    required = [_text(event.get(k), 200) for k in ("tenant", "base", "table", "record_id")]
    if not all(required):
        return None
    actor = event.get("actor") if isinstance(event.get("actor"), dict) else {}
    changed = event.get("changed")
    return {
        "event_id": event["id"], "via": "webhook", "event_type": _text(event.get("type"), 100),
        "occurred_at": (parse_time(event.get("occurred_at")) or received_at).isoformat(),
        "source_id": str(source_id), "site_id": str(site_id) if site_id else None, "inbox_seq": inbox_seq,
        "delivery_id": delivery_id, "tenant": required[0], "base": required[1], "table_name": required[2],
        "record_id": required[3], "actor_kind": _text(actor.get("kind"), 100),
        "before": _clean(event.get("before")) if isinstance(event.get("before"), dict) else None,
        "after": _clean(event.get("after")) if isinstance(event.get("after"), dict) else None,
        "changed": [_text(c, 200) for c in changed if isinstance(c, str)] if isinstance(changed, list) else None,
        "position": position,
    }


def apply_db_events(conn: psycopg.Connection, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Insert database event rows, then move row states. Returns the rows that were new."""
    unique = _unique_sorted(rows)
    if not unique:
        return []
    names = ", ".join(_DB_NAMES)
    inserted = {r[0] for r in conn.execute(
        f"""insert into raw.db_events ({names})
            select {names} from jsonb_to_recordset(%s) as r({_DB_COLUMNS})
            on conflict (event_id) do nothing returning event_id""",
        (Jsonb([{k: row[k] for k in _DB_NAMES} for row in unique]),)).fetchall()}
    newest = _newest((row for row in unique if row["event_id"] in inserted),
                     lambda row: (row["tenant"], row["base"], row["table_name"], row["record_id"]))
    for key in sorted(newest):
        row = newest[key]
        deleted = row["event_type"] == "record.deleted"
        conn.execute(
            """insert into raw.db_rows as r (tenant, base, table_name, record_id, source_id, site_id, row_data,
                                             deleted, state_at, state_seq, state_position, state_event_id)
               values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
               on conflict (tenant, base, table_name, record_id) do update set
                   source_id = excluded.source_id, site_id = excluded.site_id, row_data = excluded.row_data,
                   deleted = excluded.deleted, state_at = excluded.state_at, state_seq = excluded.state_seq,
                   state_position = excluded.state_position, state_event_id = excluded.state_event_id,
                   updated_at = now()
               where (r.state_at, r.state_seq, r.state_position)
                     < (excluded.state_at, excluded.state_seq, excluded.state_position)""",
            (*key, row["source_id"], row["site_id"],
             None if deleted else Jsonb(row["after"] if row["after"] is not None else row["before"]),
             deleted, row["occurred_at"], row["inbox_seq"], row["position"], row["event_id"]),
        )
    return [row for row in unique if row["event_id"] in inserted]


# -- the inbox ----------------------------------------------------------------------------------

def _rows_of_delivery(kind: str, inbox_id: int, source_id: uuid.UUID, site_id: uuid.UUID | None,
                      received_at: dt.datetime, delivery_id: str | None, body: bytes) -> list[dict[str, Any]]:
    body = bytes(body)
    events = json.loads(body.decode("utf-8"))["events"]
    # JSON can only carry a NUL escaped: without that sequence, no value needs cleaning.
    _has_nul.set(b"\\u0000" in body)
    rows = []
    for position, event in enumerate(events):
        if kind == "chat_webhook":
            row = _chat_row(event, source_id, site_id, inbox_id, received_at)
        else:
            row = db_row_from_event(event, source_id, site_id, inbox_id, position, received_at, delivery_id)
            if row is None:
                continue
        row["position"] = position
        rows.append(row)
    return rows


def _claim(conn: psycopg.Connection, limit: int, skip: list[int]) -> list[tuple]:
    return conn.execute(
        """select i.inbox_id, i.source_kind, i.source_id, s.site_id, i.received_at, i.delivery_id, i.body
             from raw.inbound_inbox i
             left join collect.inbound_sources s on s.source_id = i.source_id
            where i.processed_at is null and i.attempts < %s and i.inbox_id <> all(%s)
            order by i.inbox_id limit %s
            for update of i skip locked""",
        (MAX_ATTEMPTS, skip, limit),
    ).fetchall()


def _apply(conn: psycopg.Connection, claimed: list[tuple], report: ProcessingReport) -> None:
    chat_rows: list[dict[str, Any]] = []
    db_rows: list[dict[str, Any]] = []
    for inbox_id, kind, source_id, site_id, received_at, delivery_id, body in claimed:
        rows = _rows_of_delivery(kind, inbox_id, source_id, site_id, received_at, delivery_id, body)
        (chat_rows if kind == "chat_webhook" else db_rows).extend(rows)
        report.events += len(rows)
    new = apply_chat_events(conn, chat_rows) + len(apply_db_events(conn, db_rows))
    report.inserted += new
    report.duplicates += len(chat_rows) + len(db_rows) - new
    conn.execute("""update raw.inbound_inbox set processed_at = clock_timestamp(), body = null,
                           attempts = attempts + 1, last_error = null
                     where inbox_id = any(%s)""", ([c[0] for c in claimed],))
    report.deliveries += len(claimed)


def process_pending(conn: psycopg.Connection, *, batch: int = BATCH_DELIVERIES, max_batches: int | None = None,
                    ) -> ProcessingReport:
    """Process waiting deliveries until none is left (or `max_batches`). Safe to run in several
    processes at once. `conn` must not be in autocommit mode; each batch commits on its own."""
    report = ProcessingReport()
    failed: list[int] = []  # retried by a later run, not again by this one
    done = 0
    while max_batches is None or done < max_batches:
        done += 1
        with conn.transaction():
            claimed = _claim(conn, batch, failed)
            if not claimed:
                break
            try:
                with conn.transaction():
                    _apply(conn, claimed, report)
                continue
            except (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure):
                # The outer transaction is still usable: its savepoint was rolled back.
                time.sleep(0.05)
                continue
            except Exception:  # noqa: BLE001 - one bad delivery must not stop the others
                pass
            # Something in the batch fails: take the deliveries one by one, to mark only the bad ones.
            for item in claimed:
                single = ProcessingReport()
                try:
                    with conn.transaction():
                        _apply(conn, [item], single)
                    report.add(single)
                except Exception as exc:  # noqa: BLE001
                    message = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:500]
                    _log.warning("inbound delivery %s failed: %s", item[0], message)
                    conn.execute("""update raw.inbound_inbox set attempts = attempts + 1, last_error = %s
                                     where inbox_id = %s""", (message, item[0]))
                    report.failed += 1
                    failed.append(item[0])
                    report.errors.append(message)
    return report


def purge_quarantine(conn: psycopg.Connection, days: int = QUARANTINE_DAYS) -> int:
    """Delete refused payloads older than `days` and processed inbox records older than 30 days."""
    deleted = conn.execute("delete from raw.inbound_quarantine where received_at < now() - make_interval(days => %s)",
                           (days,)).rowcount
    conn.execute("""delete from raw.inbound_inbox
                     where processed_at is not null and processed_at < now() - interval '30 days'""")
    return deleted
