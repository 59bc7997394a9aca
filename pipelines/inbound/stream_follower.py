"""The follower of the database service's change stream, and its polling fallback.

One follower per followed table. With a stream, it opens
`GET {base_url}/api/v1/<tenant>/events?base=<base>&table=<table>` (bearer integration token,
`text/event-stream`), and on each `records` signal reads the rows back through the REST API with
`filter=_updated_at gt "<cursor>"`. Signals carry identifiers only, never values; their exact shape
is not given by the spec, so the follower uses them as a wake-up call (plus the `deleted`
identifiers when present: a deleted row cannot be read back). Without a stream it polls on its
period with the same read.

Reads overlap the cursor by `overlap_seconds` and every change gets an id derived from
(table, row id, `_updated_at`), so rows sharing a timestamp, or committed late with a timestamp
just behind the cursor, are ingested once. Pages advance by keyset (`_updated_at` of the last row
of a page, inclusive), with an offset only inside a page-full of one timestamp.

Disconnections are retried with jittered exponential backoff and `Last-Event-ID`. A 401 or 403
(a revoked token: the service closes its stream within 20 seconds) stops the follower: the
error shows in its check figures (raw.db_follow_state, `analytics follow --check`, the source's
`/figures`) until an operator replaces the token.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import json
import logging
import random
import socket
import ssl
import threading
import time
from typing import Any, Callable, Iterable
from urllib.parse import urlencode, urlsplit

import psycopg
import requests

from pipelines.database.connection import DatabaseUnavailable, connect
from pipelines.inbound.processing import apply_db_events, parse_time
from pipelines.inbound.sources import FollowerConfig

_log = logging.getLogger(__name__)

SIGNAL_EVENT = "records"
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 60.0
# The service sends nothing between signals on a quiet table, except what keeps a connection
# alive; a connection silent for this long is presumed dead and reopened.
READ_TIMEOUT_SECONDS = 90.0
HTTP_TIMEOUT_SECONDS = 30.0
MAX_SIGNAL_BYTES = 1024 * 1024
ONE_MILLISECOND = dt.timedelta(milliseconds=1)


class TokenRefused(RuntimeError):
    """The service answered 401 or 403: the token is revoked or lacks the right."""

    def __init__(self, status: int, where: str):
        super().__init__(f"integration token refused (HTTP {status}) by the {where}; "
                         "replace the token to resume this follower")
        self.status = status


class TransientError(RuntimeError):
    """Anything worth retrying: a connection lost, a 5xx, an unexpected answer."""


def _iso(value: dt.datetime) -> str:
    """UTC with milliseconds, as the service writes its times."""
    return value.astimezone(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def change_id(config: FollowerConfig, record_id: str, version: str) -> str:
    """The event id of one version of one row: the same row read twice gives the same id."""
    digest = hashlib.sha256("\x00".join((config.tenant, config.base, config.table, record_id, version)).encode())
    return "stream:" + digest.hexdigest()[:40]


def _record_id(row: dict[str, Any]) -> str | None:
    for name in ("id", "_id", "record_id"):
        value = row.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def signal_deleted_ids(data: str) -> list[str]:
    """Identifiers of deleted rows in a `records` signal, if it names any. Accepted shapes:
    `{"deleted": [...]}`, `{"changes": [{"op"|"type": "deleted"|"record.deleted", "id"|"record_id": ...}]}`."""
    try:
        payload = json.loads(data)
    except ValueError:
        return []
    found: list[str] = []
    if isinstance(payload, dict):
        for name in ("deleted", "deleted_ids"):
            values = payload.get(name)
            if isinstance(values, list):
                found += [str(v) for v in values if isinstance(v, (str, int)) and not isinstance(v, bool)]
        changes = payload.get("changes") or payload.get("records")
        if isinstance(changes, list):
            for change in changes:
                if isinstance(change, dict) and str(change.get("op") or change.get("type") or "").endswith("deleted"):
                    value = change.get("id", change.get("record_id"))
                    if isinstance(value, (str, int)) and not isinstance(value, bool):
                        found.append(str(value))
    return found


def _table_fields(config: FollowerConfig) -> dict[str, Any]:
    """The fields of a raw.db_events row that a follower's changes share: its source and table."""
    return {"source_id": str(config.source_id), "site_id": str(config.site_id) if config.site_id else None,
            "inbox_seq": 0, "delivery_id": None, "tenant": config.tenant, "base": config.base,
            "table_name": config.table, "actor_kind": None}


def apply_read_rows(conn: psycopg.Connection, config: FollowerConfig, rows: Iterable[dict[str, Any]],
                    via: str) -> int:
    """Record the rows read back as changes against the stored state. Returns the new changes."""
    by_id: dict[str, tuple[dict[str, Any], dt.datetime]] = {}
    for row in rows:
        record_id = _record_id(row) if isinstance(row, dict) else None
        updated = parse_time(row.get("_updated_at")) if record_id else None
        if record_id is None or updated is None:
            continue
        if record_id not in by_id or updated > by_id[record_id][1]:
            by_id[record_id] = (row, updated)
    if not by_id:
        return 0
    stored = {record_id: (data, deleted, state_at) for record_id, data, deleted, state_at in conn.execute(
        """select record_id, row_data, deleted, state_at from raw.db_rows
            where tenant = %s and base = %s and table_name = %s and record_id = any(%s)""",
        (config.tenant, config.base, config.table, list(by_id))).fetchall()}
    events = []
    for position, (record_id, (row, updated)) in enumerate(sorted(by_id.items())):
        before, deleted, state_at = stored.get(record_id, (None, False, None))
        if state_at is not None and state_at > updated:
            continue  # an older version than the one already applied (a stale replica, a late read)
        if deleted:
            before = None
        after = json.loads(json.dumps(row).replace("\\u0000", ""))
        changed = sorted(k for k in set(after) | set(before or {}) if (before or {}).get(k) != after.get(k)) \
            if before is not None else sorted(after)
        events.append({
            **_table_fields(config), "event_id": change_id(config, record_id, updated.isoformat()), "via": via,
            "event_type": "record.updated" if before is not None else "record.created",
            "occurred_at": updated.isoformat(), "record_id": record_id, "before": before, "after": after,
            "changed": changed, "position": position,
        })
    return len(apply_db_events(conn, events))


def apply_deletions(conn: psycopg.Connection, config: FollowerConfig, record_ids: Iterable[str], via: str) -> int:
    """Record deletions named by a signal, for rows known and not yet deleted."""
    ids = sorted(set(record_ids))
    if not ids:
        return 0
    stored = conn.execute(
        """select record_id, row_data, state_event_id from raw.db_rows
            where tenant = %s and base = %s and table_name = %s and record_id = any(%s) and not deleted""",
        (config.tenant, config.base, config.table, ids)).fetchall()
    now = dt.datetime.now(dt.timezone.utc)
    events = [{
        **_table_fields(config), "event_id": change_id(config, record_id, "deleted-after:" + state_event_id),
        "via": via, "event_type": "record.deleted", "occurred_at": now.isoformat(), "record_id": record_id,
        "before": data, "after": None, "changed": sorted(data or {}), "position": position,
    } for position, (record_id, data, state_event_id) in enumerate(stored)]
    return len(apply_db_events(conn, events))


class TableFollower:
    """Follows one table of one stream source. `run()` blocks until `stop()` or a refused token."""

    def __init__(self, config: FollowerConfig, database_url: str, *, backoff_base: float = BACKOFF_BASE_SECONDS,
                 backoff_cap: float = BACKOFF_CAP_SECONDS, read_timeout: float = READ_TIMEOUT_SECONDS,
                 rng: random.Random | None = None, session: requests.Session | None = None):
        self.config = config
        self.database_url = database_url
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.read_timeout = read_timeout
        self.rng = rng or random.Random()
        self.session = session or requests.Session()
        self.stopping = threading.Event()
        self.stopped_reason: str | None = None
        self._conn: psycopg.Connection | None = None
        self._stream: http.client.HTTPConnection | None = None
        self._lock = threading.Lock()
        self.cursor: dt.datetime | None = None
        self.last_event_id: str | None = None
        self.connections = 0

    # -- state in the database --------------------------------------------------------------

    def _db(self) -> psycopg.Connection:
        if self._conn is None or self._conn.closed:
            self._conn = connect(self.database_url)
        return self._conn

    def _load_state(self) -> str:
        conn = self._db()
        with conn.transaction():
            conn.execute("""insert into raw.db_follow_state (source_id, table_name) values (%s, %s)
                            on conflict do nothing""", (self.config.source_id, self.config.table))
            state, cursor, last_event_id = conn.execute(
                "select state, cursor_at, last_event_id from raw.db_follow_state where source_id = %s and table_name = %s",
                (self.config.source_id, self.config.table)).fetchone()
        self.cursor, self.last_event_id = cursor, last_event_id
        return state

    def _note(self, **fields: Any) -> None:
        assignments = ", ".join(f"{name} = %s" for name in fields)
        conn = self._db()
        with conn.transaction():
            conn.execute(f"update raw.db_follow_state set {assignments}, updated_at = now() "
                         "where source_id = %s and table_name = %s",
                         (*fields.values(), self.config.source_id, self.config.table))

    def _note_error(self, message: str) -> None:
        try:
            self._note(last_error=message[:500], last_error_at=dt.datetime.now(dt.timezone.utc))
        except (DatabaseUnavailable, psycopg.Error):
            self._drop_db()

    def _drop_db(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None

    # -- reading rows back ------------------------------------------------------------------

    def _read_page(self, since: dt.datetime | None, offset: int) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"sort": "_updated_at", "limit": self.config.page_size}
        if since is not None:
            params["filter"] = f'_updated_at gt "{_iso(since)}"'
        if offset:
            params["offset"] = offset
        try:
            response = self.session.get(self.config.read_url, params=params, allow_redirects=False,
                                        headers={"Authorization": f"Bearer {self.config.token}",
                                                 "Accept": "application/json"},
                                        timeout=(5, HTTP_TIMEOUT_SECONDS))
        except requests.RequestException as exc:
            raise TransientError(f"REST read failed: {type(exc).__name__}") from None
        if response.status_code in (401, 403):
            raise TokenRefused(response.status_code, "REST read")
        if response.status_code != 200:
            raise TransientError(f"REST read answered HTTP {response.status_code}")
        try:
            document = response.json()
        except ValueError:
            raise TransientError("REST read answered something that is not JSON") from None
        rows = document if isinstance(document, list) else next(
            (document[k] for k in ("records", "rows", "items", "data") if isinstance(document, dict)
             and isinstance(document.get(k), list)), None)
        if rows is None:
            raise TransientError("REST read answered JSON without a list of rows")
        return [row for row in rows if isinstance(row, dict)]

    def catch_up(self, deleted: Iterable[str] = (), via: str | None = None) -> int:
        """Read back every row changed since the cursor (minus the overlap) and record the changes.
        Returns how many changes were new."""
        via = via or ("stream" if self.config.use_stream else "poll")
        with self._lock:
            overlap = dt.timedelta(seconds=self.config.overlap_seconds)
            since = self.cursor - overlap if self.cursor is not None else None
            offset, new, read = 0, 0, 0
            newest = self.cursor
            while not self.stopping.is_set():
                rows = self._read_page(since, offset)
                read += len(rows)
                if rows and not any(_record_id(r) and parse_time(r.get("_updated_at")) for r in rows):
                    # Nothing here can be followed: say so in the figures rather than ingest nothing quietly.
                    raise TransientError("the REST read answered rows without an id and an _updated_at; "
                                         "check the source's read_path")
                conn = self._db()
                with conn.transaction():
                    new += apply_read_rows(conn, self.config, rows, via)
                    stamps = [t for t in (parse_time(r.get("_updated_at")) for r in rows) if t is not None]
                    if stamps and (newest is None or max(stamps) > newest):
                        newest = max(stamps)
                    conn.execute("""update raw.db_follow_state set cursor_at = %s, rows_read = rows_read + %s,
                                           changes_recorded = changes_recorded + %s, last_read_at = now(),
                                           updated_at = now()
                                     where source_id = %s and table_name = %s""",
                                 (newest, len(rows), 0, self.config.source_id, self.config.table))
                if len(rows) < self.config.page_size:
                    break
                last = max(stamps) if stamps else None
                if last is not None and (since is None or last - ONE_MILLISECOND > since):
                    since, offset = last - ONE_MILLISECOND, 0  # the next page starts at the last timestamp, included
                else:
                    offset += len(rows)  # a page full of one timestamp
            deleted = list(deleted)
            conn = self._db()
            with conn.transaction():
                if deleted:
                    new += apply_deletions(conn, self.config, deleted, via)
                conn.execute("""update raw.db_follow_state set changes_recorded = changes_recorded + %s,
                                       last_event_id = coalesce(%s, last_event_id), updated_at = now()
                                 where source_id = %s and table_name = %s""",
                             (new, self.last_event_id, self.config.source_id, self.config.table))
            self.cursor = newest
            return new

    # -- the stream -------------------------------------------------------------------------

    def _open_stream(self) -> http.client.HTTPResponse:
        parts = urlsplit(self.config.stream_url)
        if parts.scheme == "https":
            conn = http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=self.read_timeout,
                                               context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=self.read_timeout)
        headers = {"Authorization": f"Bearer {self.config.token}", "Accept": "text/event-stream",
                   "Cache-Control": "no-cache"}
        if self.last_event_id:
            headers["Last-Event-ID"] = self.last_event_id
        query = urlencode({"base": self.config.base, "table": self.config.table})
        with self._lock:
            self._stream = conn
        try:
            conn.request("GET", f"{parts.path}?{query}", headers=headers)
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise TransientError(f"stream connection failed: {type(exc).__name__}") from None
        if response.status in (401, 403):
            conn.close()
            raise TokenRefused(response.status, "stream")
        content_type = response.getheader("Content-Type", "")
        if response.status != 200 or not content_type.startswith("text/event-stream"):
            conn.close()
            raise TransientError(f"stream answered HTTP {response.status} ({content_type or 'no content type'})")
        return response

    def _follow_stream(self) -> bool:
        """Read signals until the stream ends. Returns True when at least one signal arrived."""
        response = self._open_stream()
        self.connections += 1
        self._note(connections=self.connections, last_error=None)
        # Changes made while disconnected: read them now, not at the next signal.
        self.catch_up()
        event, data, event_id, got_signal = "message", [], None, False
        last_poll = time.monotonic()
        try:
            while not self.stopping.is_set():
                try:
                    raw = response.readline(MAX_SIGNAL_BYTES)
                except (OSError, http.client.HTTPException, ValueError) as exc:
                    raise TransientError(f"stream lost: {type(exc).__name__}") from None
                if not raw:
                    return got_signal  # closed by the service
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if line == "":
                    if event == SIGNAL_EVENT:
                        if event_id is not None:
                            self.last_event_id = event_id
                        self._note(last_signal_at=dt.datetime.now(dt.timezone.utc))
                        self.catch_up(signal_deleted_ids("\n".join(data)), via="stream")
                        got_signal = True
                        last_poll = time.monotonic()
                    event, data = "message", []
                elif line.startswith(":"):
                    pass  # a comment: the service keeping the connection alive
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "event":
                        event = value
                    elif name == "data":
                        data.append(value)
                    elif name == "id" and "\x00" not in value:
                        event_id = value
                if self.config.poll_seconds and time.monotonic() - last_poll >= self.config.poll_seconds:
                    self.catch_up()
                    last_poll = time.monotonic()
        finally:
            with self._lock:
                stream, self._stream = self._stream, None
            if stream is not None:
                stream.close()
        return got_signal

    # -- running ----------------------------------------------------------------------------

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform between half and all of the capped exponential delay."""
        ceiling = min(self.backoff_cap, self.backoff_base * (2 ** attempt))
        return self.rng.uniform(ceiling / 2, ceiling)

    def stop(self) -> None:
        """Ask `run()` to end; an open stream is shut so that a blocked read returns at once."""
        self.stopping.set()
        with self._lock:
            stream = self._stream
        if stream is not None and stream.sock is not None:
            try:
                stream.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def run(self) -> None:
        attempt = 0
        try:
            while not self.stopping.is_set():
                try:
                    if self._load_state() == "stopped":
                        self.stopped_reason = "stopped earlier: the token was refused"
                        return
                    if self.config.use_stream:
                        if self._follow_stream():
                            attempt = 0
                    else:
                        self.catch_up(via="poll")
                        attempt = 0
                        self.stopping.wait(self.config.poll_seconds or 60)
                        continue
                except TokenRefused as exc:
                    _log.error("follower %s: %s", self.config.name, exc)
                    self.stopped_reason = str(exc)
                    try:
                        self._note(state="stopped", last_error=str(exc), last_error_at=dt.datetime.now(dt.timezone.utc))
                    except (DatabaseUnavailable, psycopg.Error):
                        pass
                    return
                except TransientError as exc:
                    if self.stopping.is_set():
                        return
                    _log.warning("follower %s: %s", self.config.name, exc)
                    self._note_error(str(exc))
                except (DatabaseUnavailable, psycopg.OperationalError) as exc:
                    _log.warning("follower %s: database unavailable (%s)", self.config.name, type(exc).__name__)
                    self._drop_db()
                except Exception as exc:  # noqa: BLE001 - shown in the figures and retried, never a dead thread
                    if self.stopping.is_set():
                        return
                    _log.exception("follower %s failed", self.config.name)
                    self._drop_db()
                    self._note_error(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                self.stopping.wait(self.backoff(attempt))
                attempt += 1
        finally:
            self._drop_db()


class FollowerGroup:
    """Every configured follower, one thread each; reloads the configuration now and then so that
    added, changed, paused or removed sources take effect without a restart."""

    def __init__(self, load_configs: Callable[[], list[FollowerConfig]], database_url: str,
                 reload_seconds: float = 30.0, **follower_options: Any):
        self.load_configs = load_configs
        self.database_url = database_url
        self.reload_seconds = reload_seconds
        self.follower_options = follower_options
        self.running: dict[FollowerConfig, tuple[TableFollower, threading.Thread]] = {}
        self.stopping = threading.Event()

    def reconcile(self) -> None:
        wanted = set(self.load_configs())
        for config in list(self.running):
            follower, thread = self.running[config]
            if config not in wanted or not thread.is_alive():
                follower.stop()
                thread.join(timeout=10)
                del self.running[config]
        for config in wanted - set(self.running):
            follower = TableFollower(config, self.database_url, **self.follower_options)
            thread = threading.Thread(target=follower.run, name=f"follower-{config.name}", daemon=True)
            thread.start()
            self.running[config] = (follower, thread)

    def run(self, on_tick: Callable[[], None] | None = None) -> None:
        while not self.stopping.is_set():
            try:
                self.reconcile()
                if on_tick is not None:
                    on_tick()
            except Exception as exc:  # noqa: BLE001 - one bad configuration must not stop every follower
                _log.warning("followers: configuration not reloaded (%s)", type(exc).__name__)
            self.stopping.wait(self.reload_seconds)
        for follower, thread in self.running.values():
            follower.stop()
        for follower, thread in self.running.values():
            thread.join(timeout=10)

    def stop(self) -> None:
        self.stopping.set()
