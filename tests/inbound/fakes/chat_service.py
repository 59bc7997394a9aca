"""A faithful fake of the chat messaging service's outbound webhooks (spec 001).

What it does, as the spec says:
- signs each POST: `X-Msg-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"
  keyed by the whole secret, whsec_ prefix included>`; `Content-Type: application/json`,
  `User-Agent: msg-webhook/1`, a new `X-Msg-Delivery-Id` on every call, `X-Msg-Webhook-Id`;
- sends `{"events": [...]}` with 1 to 50 events, oldest first;
- events of one conversation arrive in the order they happened: while one awaits a retry, the
  following ones of that conversation wait too (other conversations go on);
- outcomes: 2xx within 10 s delivered; 5xx, 408, 429, timeout or unreachable retried on the
  schedule 10 s, 30 s, 2 min, 10 min, 1 h, 6 h, 1 day (each +-20 %), a longer Retry-After honoured,
  failed after the 8th retry; any other answer (4xx, redirects included, never followed) failed;
- at least once: `duplicate_every` resends an already delivered event now and then.

Time for the retry schedule is virtual (`advance`), so tests run in milliseconds; the signature
uses the real clock (plus `clock_skew`), since the receiver checks it against its own.
"""
from __future__ import annotations

import datetime as dt
import json
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import requests

from pipelines.inbound.signatures import compute

RETRY_SCHEDULE_SECONDS = (10, 30, 120, 600, 3600, 21600, 86400)
MAX_RETRIES = 8
MAX_BATCH = 50
RESPONSE_TIMEOUT_SECONDS = 10
RETRYABLE = {408, 429}


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_secret() -> str:
    return "whsec_" + uuid.uuid4().hex + uuid.uuid4().hex[:8]


def conversation(conversation_id: str | None = None, *, inbox_id: str | None = None, status: str = "open",
                 assignee_id: str | None = None, handed_off: bool = False, channel: str = "web",
                 contact_id: str | None = None, team_id: str | None = None) -> dict[str, Any]:
    """A conversation object as `GET /api/v1/conversations` gives it (every field of the spec)."""
    return {
        "id": conversation_id or str(uuid.uuid4()),
        "contact": {"id": contact_id or str(uuid.uuid4()), "name": "Ada Lovelace", "email": "ada@example.org",
                    "identified": True},
        "site": "Main site", "siteId": str(uuid.UUID(int=1)), "channel": channel,
        "inboxId": inbox_id or str(uuid.UUID(int=10)), "teamId": team_id, "status": status,
        "assignee": "Grace" if assignee_id else None, "assigneeId": assignee_id, "unread": True,
        "handedOff": handed_off, "preview": "Hello, my order...", "previewAuthor": "visitor",
        "previewAgent": None, "previewFiles": 0, "lastMessageAt": iso(dt.datetime.now(dt.timezone.utc)),
        "priority": "normal", "sentiment": "neutral",
        "tags": [{"label": "billing", "color": "#ff8800", "byAi": True}], "snoozedUntil": None,
    }


def message(kind: str = "visitor", body: str = "Hello, my order has not arrived", *, at: dt.datetime | None = None,
            error: str | None = None) -> dict[str, Any]:
    found = {"id": str(uuid.uuid4()), "at": iso(at or dt.datetime.now(dt.timezone.utc)), "kind": kind, "body": body,
             "attachments": [{"url": "/files/abc?sig=0123456789", "name": "receipt.pdf"}]}
    if error:
        found["delivery"] = {"error": error}
    return found


@dataclass
class Delivery:
    """One event to the webhook (the delivery log's row)."""

    event: dict[str, Any]
    conversation_id: str | None
    state: str = "pending"  # pending, delivered, failed
    attempts: int = 0
    next_attempt_at: float = 0.0
    last_status: int | str | None = None


@dataclass
class Call:
    """One POST made, as a test may inspect it."""

    body: bytes
    headers: dict[str, str]
    status: int | str
    event_ids: list[str]


class FakeChatWebhookSender:
    def __init__(self, url: str, secret: str, *, session: requests.Session | None = None, seed: int = 1,
                 clock_skew: float = 0.0, duplicate_every: int = 0, max_batch: int = MAX_BATCH,
                 post: Callable[..., Any] | None = None):
        self.url = url
        self.secret = secret
        self.webhook_id = str(uuid.uuid4())
        self.session = session or requests.Session()
        self.rng = random.Random(seed)
        self.clock_skew = clock_skew
        self.duplicate_every = duplicate_every
        self.max_batch = max_batch
        self.now = 0.0  # virtual seconds, for the retry schedule only
        self.deliveries: list[Delivery] = []
        self.calls: list[Call] = []
        self._post = post
        self._sent_batches = 0

    # -- events ---------------------------------------------------------------------------

    def emit(self, event_type: str, conv: dict[str, Any] | None = None, msg: dict[str, Any] | None = None,
             *, occurred_at: dt.datetime | None = None, event_id: str | None = None) -> dict[str, Any]:
        """Capture an event (as the service's trigger would) and queue its delivery."""
        event: dict[str, Any] = {"id": event_id or str(uuid.uuid4()), "type": event_type,
                                 "occurredAt": iso(occurred_at or dt.datetime.now(dt.timezone.utc))}
        if event_type == "webhook.ping":
            event["webhook"] = {"id": self.webhook_id, "label": "Analytics"}
        else:
            event["conversation"] = json.loads(json.dumps(conv))
            if msg is not None:
                event["message"] = json.loads(json.dumps(msg))
        self.deliveries.append(Delivery(event, conv["id"] if conv else None, next_attempt_at=self.now))
        return event

    # -- sending --------------------------------------------------------------------------

    def sign(self, body: bytes, timestamp: int | None = None) -> str:
        t = str(int(time.time() + self.clock_skew) if timestamp is None else timestamp)
        return f"t={t},v1={compute(self.secret, t, body)}"

    def headers_for(self, body: bytes) -> dict[str, str]:
        return {"Content-Type": "application/json", "User-Agent": "msg-webhook/1",
                "X-Msg-Signature": self.sign(body), "X-Msg-Delivery-Id": str(uuid.uuid4()),
                "X-Msg-Webhook-Id": self.webhook_id}

    def _due_batch(self) -> list[Delivery]:
        """Due deliveries, oldest first, skipping conversations with an earlier one still waiting."""
        blocked: set[str] = set()
        batch: list[Delivery] = []
        for delivery in self.deliveries:
            if delivery.state != "pending":
                continue
            key = delivery.conversation_id
            if key is not None and key in blocked:
                continue
            if delivery.next_attempt_at > self.now:
                if key is not None:
                    blocked.add(key)
                continue
            batch.append(delivery)
            if len(batch) == self.max_batch:
                break
        return batch

    def post(self, body: bytes, headers: dict[str, str]) -> tuple[int | str, dict[str, str]]:
        """One call: (status or failure reason, response headers). Redirects are not followed."""
        if self._post is not None:
            return self._post(body, headers)
        try:
            response = self.session.post(self.url, data=body, headers=headers, timeout=RESPONSE_TIMEOUT_SECONDS,
                                         allow_redirects=False)
        except requests.Timeout:
            return "no response in 10 seconds", {}
        except requests.ConnectionError:
            return "unreachable", {}
        return response.status_code, dict(response.headers)

    def _retry_delay(self, attempts: int, headers: dict[str, str]) -> float:
        scheduled = RETRY_SCHEDULE_SECONDS[min(attempts, len(RETRY_SCHEDULE_SECONDS)) - 1]
        delay = scheduled * self.rng.uniform(0.8, 1.2)
        retry_after = headers.get("Retry-After")
        if retry_after and retry_after.isdigit():
            delay = max(delay, int(retry_after))
        return delay

    def send_once(self) -> Call | None:
        """Make one POST of what is due, or return None when nothing is."""
        batch = self._due_batch()
        if not batch:
            return None
        events = [d.event for d in batch]
        self._sent_batches += 1
        if self.duplicate_every and self._sent_batches % self.duplicate_every == 0:
            delivered = [d.event for d in self.deliveries if d.state == "delivered"]
            if delivered and len(events) < self.max_batch:
                events.append(self.rng.choice(delivered))  # at least once: an event may come again
        body = json.dumps({"events": events}, separators=(",", ":")).encode()
        headers = self.headers_for(body)
        status, response_headers = self.post(body, headers)
        self.calls.append(Call(body, headers, status, [e["id"] for e in events]))
        for delivery in batch:
            delivery.attempts += 1
            delivery.last_status = status
            if isinstance(status, int) and 200 <= status < 300:
                delivery.state = "delivered"
            elif status in ("no response in 10 seconds", "unreachable") or (
                    isinstance(status, int) and (status >= 500 or status in RETRYABLE)):
                if delivery.attempts > MAX_RETRIES:  # the first attempt plus 8 retries
                    delivery.state = "failed"
                else:
                    delivery.next_attempt_at = self.now + self._retry_delay(delivery.attempts, response_headers)
            else:
                delivery.state = "failed"  # any other answer, redirects included: no retry
        return self.calls[-1]

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def run_until_idle(self, max_calls: int = 1000) -> None:
        """Send until everything is delivered or failed, jumping the virtual clock to each retry."""
        for _ in range(max_calls):
            if self.send_once() is not None:
                continue
            if not any(d.state == "pending" for d in self.deliveries):
                return
            # Nothing due: jump to the next scheduled retry (blocked ones wait behind it).
            self.now = min(d.next_attempt_at for d in self.deliveries
                           if d.state == "pending" and d.next_attempt_at > self.now)
        raise AssertionError("the fake sender did not become idle")

    def states(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for delivery in self.deliveries:
            found[delivery.state] = found.get(delivery.state, 0) + 1
        return found
