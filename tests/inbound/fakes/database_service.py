"""A faithful fake of the database service's table webhooks and change stream (spec 002).

- Tables of rows with `id`, `_created_at`, `_updated_at` (UTC, milliseconds). Every write, direct
  SQL included in the real service, produces an event `record.created|updated|deleted` with
  `id`, `occurred_at`, `tenant`, `base`, `table`, `record_id`, `actor`, `before`, `after`, `changed`.
- Webhook deliveries: `{"events": [...]}`, `X-Db-Signature: t=<t>,v1=<hex>` (same construction as
  the chat service: its signed string is not shown) and `X-Db-Delivery-Id`, ordered per row,
  at least once.
- A real HTTP server on 127.0.0.1 (threaded):
  `GET /api/v1/<tenant>/events?base=&table=` with `Authorization: Bearer <token>` answers
  `text/event-stream` and sends `records` signals carrying row ids only (`id:` numbered, replayed
  after `Last-Event-ID`), with `: keepalive` comments; a revoked token's stream is closed within
  `revoke_close_seconds` (the spec: 20 s) and new requests with it get 401.
  The REST read (default path `/api/v1/<tenant>/<base>/tables/<table>/records`) takes
  `filter=_updated_at gt "<ts>"`, `sort=_updated_at`, `limit`, `offset`, and answers `{"records": [...]}`.
- `commit_late` writes a row whose `_updated_at` is behind rows already visible (a transaction
  that started earlier and committed later); `drop_streams` cuts every open stream.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import requests

from pipelines.inbound.signatures import compute

_FILTER = re.compile(r'^_updated_at gt "([^"]+)"$')


def iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse(value: str) -> dt.datetime:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


class FakeDatabaseService:
    def __init__(self, tenant: str = "acme", base: str = "crm", *, revoke_close_seconds: float = 0.5,
                 keepalive_seconds: float = 0.2, webhook_secret: str | None = None):
        self.tenant, self.base = tenant, base
        self.tables: dict[str, dict[str, dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.signals: list[tuple[int, str, str]] = []  # (id, table, data)
        self.tokens: dict[str, bool] = {}  # token -> active
        self.revoke_close_seconds = revoke_close_seconds
        self.keepalive_seconds = keepalive_seconds
        self.webhook_secret = webhook_secret or "dbwh_" + uuid.uuid4().hex
        self.lock = threading.Condition()
        self.stream_requests: list[dict[str, str | None]] = []
        self.read_requests: list[dict[str, str]] = []
        self._generation = 0  # bumped by drop_streams
        self._clock_offset = dt.timedelta(0)
        self.server: ThreadingHTTPServer | None = None
        self.fail_reads = 0  # answer 503 to this many REST reads

    # -- tokens -------------------------------------------------------------------------------

    def issue_token(self) -> str:
        token = "it_" + uuid.uuid4().hex
        self.tokens[token] = True
        return token

    def revoke(self, token: str) -> None:
        with self.lock:
            self.tokens[token] = False
            self.lock.notify_all()

    def token_ok(self, header: str | None) -> str | None:
        if not header or not header.startswith("Bearer "):
            return None
        token = header[len("Bearer "):]
        return token if self.tokens.get(token) else None

    # -- writes ---------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        moment = dt.datetime.now(dt.timezone.utc) + self._clock_offset
        return moment.replace(microsecond=moment.microsecond // 1000 * 1000)

    def _event(self, kind: str, table: str, record_id: str, before, after, at: dt.datetime) -> dict[str, Any]:
        changed = sorted(k for k in set(before or {}) | set(after or {})
                         if (before or {}).get(k) != (after or {}).get(k) and not k.startswith("_"))
        event = {"id": str(uuid.uuid4()), "type": kind, "occurred_at": iso(at), "tenant": self.tenant,
                 "base": self.base, "table": table, "record_id": record_id, "actor": {"kind": "user", "id": "u1"},
                 "before": before, "after": after, "changed": changed}
        self.events.append(event)
        return event

    def _signal(self, table: str, **ids: list[str]) -> None:
        number = len(self.signals) + 1
        self.signals.append((number, table, json.dumps({"table": table, **ids})))
        self.lock.notify_all()

    def write(self, table: str, record_id: str | None = None, *, at: dt.datetime | None = None,
              signal: bool = True, **values: Any) -> dict[str, Any]:
        """Create or update a row (an update merges `values`)."""
        with self.lock:
            rows = self.tables.setdefault(table, {})
            record_id = record_id or str(uuid.uuid4())
            moment = at or self.now()
            before = rows.get(record_id)
            after = {**(before or {"id": record_id, "_created_at": iso(moment)}), **values, "_updated_at": iso(moment)}
            rows[record_id] = after
            kind = "record.updated" if before else "record.created"
            self._event(kind, table, record_id, json.loads(json.dumps(before)) if before else None,
                        json.loads(json.dumps(after)), moment)
            if signal:
                self._signal(table, **{"updated" if before else "created": [record_id]})
            return after

    def commit_late(self, table: str, record_id: str | None = None, *, behind_seconds: float, **values: Any):
        """A write whose `_updated_at` is `behind_seconds` older than now, made visible now."""
        return self.write(table, record_id, at=self.now() - dt.timedelta(seconds=behind_seconds), **values)

    def delete(self, table: str, record_id: str) -> None:
        with self.lock:
            before = self.tables[table].pop(record_id)
            self._event("record.deleted", table, record_id, before, None, self.now())
            self._signal(table, deleted=[record_id])

    def drop_streams(self) -> None:
        """Cut every open stream (a network failure or a service restart)."""
        with self.lock:
            self._generation += 1
            self.lock.notify_all()

    # -- webhooks -------------------------------------------------------------------------------

    def webhook_body(self, events: list[dict[str, Any]]) -> bytes:
        return json.dumps({"events": events}, separators=(",", ":")).encode()

    def webhook_headers(self, body: bytes, *, secret: str | None = None, timestamp: int | None = None,
                        delivery_id: str | None = None) -> dict[str, str]:
        t = str(int(time.time()) if timestamp is None else timestamp)
        return {"Content-Type": "application/json",
                "X-Db-Signature": f"t={t},v1={compute(secret or self.webhook_secret, t, body)}",
                "X-Db-Delivery-Id": delivery_id or str(uuid.uuid4())}

    def deliver(self, url: str, events: list[dict[str, Any]] | None = None, *, session=None,
                delivery_id: str | None = None) -> requests.Response:
        """POST events (default: every event so far, ordered per row as they happened)."""
        body = self.webhook_body(self.events if events is None else events)
        return (session or requests).post(url, data=body, headers=self.webhook_headers(body, delivery_id=delivery_id),
                                          timeout=10, allow_redirects=False)

    # -- HTTP -----------------------------------------------------------------------------------

    def start(self) -> str:
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def _json(self, status: int, document: Any) -> None:
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                segments = [unquote(s) for s in parts.path.split("/") if s]
                token = service.token_ok(self.headers.get("Authorization"))
                if segments[:2] == ["api", "v1"] and len(segments) == 4 and segments[3] == "events":
                    service.stream_requests.append({"table": query.get("table"),
                                                    "last_event_id": self.headers.get("Last-Event-ID")})
                    if token is None:
                        return self._json(401, {"error": "invalid token"})
                    return self._stream(token, query.get("table"), self.headers.get("Last-Event-ID"))
                if segments[:2] == ["api", "v1"] and len(segments) == 7 and segments[4] == "tables" \
                        and segments[6] == "records":
                    service.read_requests.append(query)
                    if token is None:
                        return self._json(401, {"error": "invalid token"})
                    if service.fail_reads > 0:
                        service.fail_reads -= 1
                        return self._json(503, {"error": "try later"})
                    return self._read(segments[5], query)
                self._json(404, {"error": "not found"})

            def _read(self, table: str, query: dict[str, str]) -> None:
                with service.lock:
                    rows = [dict(r) for r in service.tables.get(table, {}).values()]
                if "filter" in query:
                    match = _FILTER.match(query["filter"])
                    if not match:
                        return self._json(400, {"error": "bad filter"})
                    since = parse(match.group(1))
                    rows = [r for r in rows if parse(r["_updated_at"]) > since]
                rows.sort(key=lambda r: (r["_updated_at"], r["id"]))
                offset = int(query.get("offset", 0))
                limit = int(query.get("limit", 100))
                self._json(200, {"records": rows[offset:offset + limit]})

            def _stream(self, token: str, table: str | None, last_event_id: str | None) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                sent = int(last_event_id) if last_event_id and last_event_id.isdigit() else None
                with service.lock:
                    if sent is None:
                        sent = len(service.signals)  # a new stream starts with what comes next
                    generation = service._generation
                revoked_at = None
                try:
                    while True:
                        with service.lock:
                            pending = [s for s in service.signals[sent:] if s[1] == table]
                            sent = len(service.signals)
                            if not pending:
                                service.lock.wait(service.keepalive_seconds)
                            dropped = service._generation != generation
                            active = service.tokens.get(token, False)
                        if dropped:
                            return
                        if not active:
                            revoked_at = revoked_at or time.monotonic()
                            if time.monotonic() - revoked_at >= service.revoke_close_seconds:
                                return
                        for number, _, data in pending:
                            self.wfile.write(f"id: {number}\nevent: records\ndata: {data}\n\n".encode())
                        if not pending:
                            self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        if self.server is not None:
            self.drop_streams()
            self.server.shutdown()
            self.server.server_close()
