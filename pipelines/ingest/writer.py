"""Writing events: `COPY` into raw.events, with group commit and the spool behind it.

`store_events` writes rows in one transaction, for any caller (demo data, imports). The collector
goes through a `BatchWriter`: one thread per process takes the work that requests hand it (from
threads with `submit`, from the event loop with `submit_async`), writes everything waiting in one
transaction (one COPY, one commit, one WAL flush for many requests), then wakes each request.
When the database is down, the same group is appended to the spool and fsynced instead; either
way a request is answered only once its events are durable.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import psycopg
from psycopg import pq
from psycopg.copy import Copy
from psycopg.generators import execute
from psycopg.types.json import Jsonb

from pipelines.admin.privacy_requests import subject_key
from pipelines.admin.server_keys import group_key_check_statement
from pipelines.database.connection import DatabaseUnavailable, connect
from pipelines.ingest.erased import drop_erased
from pipelines.ingest.rows import COLUMNS, as_rows
from pipelines.ingest.spool import SpoolSegment, pending_segments, replay_directory

try:  # psycopg's own row formatter (C with psycopg[binary]); see write_rows
    from psycopg._copy_base import TextFormatter, format_row_text
except ImportError:  # another layout of psycopg's internals: Copy.write_row, row by row
    TextFormatter = format_row_text = None

_log = logging.getLogger(__name__)

COPY_STATEMENT = f"copy raw.events ({', '.join(COLUMNS)}) from stdin"
MAX_GROUP_ROWS = 20_000
IDEMPOTENCY_RETENTION = "24 hours"


@dataclass(frozen=True)
class IdempotencyRecord:
    """The answer to a request sent with an `Idempotency-Key`, stored with its events."""

    key_id: str
    key_hash: str  # hex SHA-256 of the Idempotency-Key header: the key itself is never stored
    request_hash: str  # hex SHA-256 of the request body
    response: dict

    def as_list(self) -> list:
        return [self.key_id, self.key_hash, self.request_hash, self.response]


@dataclass(frozen=True)
class KeyCheck:
    """A server batch's key, as the collector has it cached, still to be checked and its events
    counted against its minute: in the group's query string, with its rows (`commit_units`)."""

    secret_hash: bytes
    key_id: str
    site_id: str
    accept_user_id: bool
    events: int


# The COPY data handed to psycopg at a time (its own buffer is 32 kB: a group writes in fewer calls).
_COPY_CHUNK = 1 << 20


_COPY_NULL = "\\N"
# What COPY's text format reads specially: the delimiter, the row's end, a carriage return, the
# escape character; and NUL, which no text value may hold.
_COPY_SPECIAL = b"\t\n\r\\\0"


def copy_text(rows: list[tuple]) -> bytes | None:
    """Rows of text (or None) in COPY's text format (UTF-8), formatted by compiled string methods
    over the whole group instead of field by field; None when a row needs more than that, for
    psycopg's formatter to escape: a value holding a tab, a newline, a carriage return, a backslash
    or a NUL, a value that is not text, a row that is not one of COLUMNS.

    Each row is joined with tabs (None written as \\N), the rows with newlines. One count proves
    that no value held a special character: the special bytes of the whole are exactly the tabs
    and newlines the joins wrote and the backslashes of the NULLs."""
    columns = len(COLUMNS)
    expected, lines = columns * len(rows), []
    try:
        for row in rows:
            if len(row) != columns:
                return None
            nulls = row.count(None)  # one pass over the values (`None in row`, then the count, took two)
            if nulls:
                expected += nulls
                row = [_COPY_NULL if value is None else value for value in row]
            lines.append("\t".join(row))
    except TypeError:  # a value that is not text
        return None
    lines.append("")
    try:
        data = "\n".join(lines).encode()
    except UnicodeEncodeError:  # a lone surrogate: psycopg's formatter refuses it in its own words
        return None
    # UTF-8 writes these bytes only for these characters: counting bytes counts characters.
    if len(data) - len(data.translate(None, _COPY_SPECIAL)) != expected:
        return None
    return data


def write_rows(copy: Copy, rows: Iterable[tuple]) -> None:
    """Rows (tuples of text or None in COLUMNS order) into an open COPY.

    A group whose values hold no character COPY would read specially (nearly all: the collector's
    values are checked text, its JSON escapes control characters) is written as `copy_text` formats
    it, in one piece. Otherwise each row is formatted and escaped by psycopg's C row formatter
    called directly: `Copy.write_row` wraps it in two Python calls per row, a tenth of the
    formatting's cost (psycopg internals, as in `commit_units`: checked on 3.3; without them, or for
    another formatter, rows go through `write_row`)."""
    formatter = getattr(copy, "formatter", None)
    if TextFormatter is None or type(formatter) is not TextFormatter:
        for row in rows:
            copy.write_row(row)
        return
    rows = rows if isinstance(rows, list) else list(rows)
    text = copy_text(rows) if formatter.transformer.encoding == "utf-8" else None
    if text is not None:
        for start in range(0, len(text), _COPY_CHUNK):
            copy.write(text[start:start + _COPY_CHUNK] if len(text) > _COPY_CHUNK else text)
        return
    transformer, buffer = formatter.transformer, bytearray()
    for row in rows:
        format_row_text(row, transformer, buffer)
        if len(buffer) > _COPY_CHUNK:
            copy.write(buffer)
            buffer = bytearray()
    if buffer:
        copy.write(buffer)


def copy_rows(conn: psycopg.Connection, rows: list[tuple]) -> None:
    """COPY rows (tuples of text or None in COLUMNS order) in the connection's transaction."""
    if not rows:
        return
    with conn.cursor().copy(COPY_STATEMENT) as copy:
        write_rows(copy, rows)


_CLAIM_KEYS = """insert into raw.idempotency_keys (key_id, key_hash, request_hash, response)
                 select * from unnest(%s::uuid[], %s::text[], %s::text[], %s::jsonb[])
                 on conflict do nothing returning key_id::text, key_hash"""
_COUNT_REJECTIONS = """insert into collect.rejections as r (site_id, reason, minute, count)
                       select * from unnest(%s::uuid[], %s::text[], %s::timestamptz[], %s::bigint[])
                       on conflict (site_id, reason, minute) do update set count = r.count + excluded.count"""


def _claim_params(records: list[IdempotencyRecord]) -> tuple:
    return ([r.key_id for r in records], [r.key_hash for r in records], [r.request_hash for r in records],
            [Jsonb(r.response) for r in records])


def _rejection_params(counts: dict[tuple[str, str, str], int]) -> tuple:
    sites, reasons, minutes, numbers = zip(*((*key, n) for key, n in counts.items()))
    return list(sites), list(reasons), list(minutes), list(numbers)


Unit = tuple  # (rows, IdempotencyRecord | None, rejections: list of [site_id, reason, minute, count])


@dataclass
class _Plan:
    """What a list of units writes: the first unit of each idempotency key (claimed in the database),
    the units already known to be duplicates (a later unit of the same key), summed rejection counts."""

    duplicate: list[bool]
    first_of_key: dict[tuple[str, str], int]
    counts: dict[tuple[str, str, str], int]

    @classmethod
    def of(cls, units: list[Unit]) -> "_Plan":
        plan = cls([False] * len(units), {}, {})
        for index, (_, record, rejections) in enumerate(units):
            for site_id, reason, minute, n in rejections or ():
                plan.counts[(site_id, reason, minute)] = plan.counts.get((site_id, reason, minute), 0) + n
            if record is not None:
                pair = (record.key_id, record.key_hash)
                if pair in plan.first_of_key:
                    plan.duplicate[index] = True
                else:
                    plan.first_of_key[pair] = index
        return plan

    def claimed(self, new: set[tuple[str, str]]) -> None:
        """Mark the units whose key the database already held (`new`: the pairs it stored now)."""
        for pair, index in self.first_of_key.items():
            if pair not in new:
                self.duplicate[index] = True

    def rows(self, units: list[Unit], checked: list[bool] | None = None) -> list[tuple]:
        """The rows to write: none of a duplicate, nor of a unit whose key was not confirmed."""
        if checked is None:
            return [row for (rows, _, _), dup in zip(units, self.duplicate) if not dup for row in rows]
        return [row for (rows, _, _), dup, ok in zip(units, self.duplicate, checked) if ok and not dup
                for row in rows]


def write_units(conn: psycopg.Connection, units: list[Unit]) -> list[bool]:
    """Write units of work (rows, idempotency record, rejection counts) in the current transaction.

    Returns, per unit, True when it was a duplicate: its idempotency key was already stored (by an
    earlier request, or by an earlier unit of this call), so its rows were not written again.
    Rejection counts of every unit are summed into collect.rejections in the same transaction.
    """
    plan = _Plan.of(units)
    if plan.first_of_key:
        records = [units[i][1] for i in plan.first_of_key.values()]
        plan.claimed({tuple(r) for r in conn.execute(_CLAIM_KEYS, _claim_params(records)).fetchall()})
    if plan.counts:
        conn.execute(_COUNT_REJECTIONS, _rejection_params(plan.counts))
    copy_rows(conn, plan.rows(units))
    return plan.duplicate


def _key_check_params(checks: list[KeyCheck | None]) -> tuple[tuple, list[bool]]:
    """The group key check's parameters, one row a key with the events of all its batches, and the
    units whose key cannot be checked with the others (another identity cached under the same
    secret: not expected, answered by their own check)."""
    keys: dict[bytes, list] = {}
    apart = [False] * len(checks)
    for index, check in enumerate(checks):
        if check is None:
            continue
        found = keys.get(check.secret_hash)
        if found is None:
            keys[check.secret_hash] = [check, check.events]
        elif (found[0].key_id, found[0].site_id, found[0].accept_user_id) != (
                check.key_id, check.site_id, check.accept_user_id):
            apart[index] = True
        else:
            found[1] += check.events
    rows = [(c.secret_hash, c.key_id, c.site_id, c.accept_user_id, n) for c, n in keys.values()]
    return tuple(list(column) for column in zip(*rows)), apart


def commit_units(conn: psycopg.Connection, units: list[Unit], on_xid: Callable[[str], None],
                 checks: list[KeyCheck | None] | None = None,
                 on_checked: Callable[[list[bool]], None] | None = None) -> list[bool]:
    """Write and commit units as `write_units` does, in two round trips; `conn` in autocommit, idle.

    One simple query carries the transaction id, the idempotency claims, the rejection counts and
    the start of the COPY; the second round trip is the COPY data and its end. PostgreSQL runs the
    statements of one query string as one implicit transaction, committed when the COPY ends: no
    BEGIN or COMMIT of their own. The explicit BEGIN / statements / COPY / COMMIT cost four round
    trips, each a wait and a wake-up of the writer: a third of a beacon's CPU at small groups.

    `on_xid` receives the transaction id before the COPY ends, hence before the commit can happen,
    so a connection lost during the commit leaves a spool line whose outcome replay can look up.

    `checks` (one per unit, or None): the server keys of batches whose key is checked and counted
    here (`server_keys.group_key_check_statement`), at the head of the same query string, in a
    transaction of its own that the string's `commit` ends: a key's count is kept whatever becomes
    of the rows (as the request's own check kept it), and the count's row is not held locked
    while the COPY runs (a group of another worker with the same key would wait for it). A unit
    whose key is not confirmed writes nothing; `on_checked` receives, before the COPY data is
    sent, per unit whether it was confirmed (True for a unit without a check).
    """
    plan = _Plan.of(units)
    records = [units[i][1] for i in plan.first_of_key.values()]
    statements = []
    checked = [True] * len(units)
    key_params = None
    if checks is not None and any(check is not None for check in checks):
        key_params, apart = _key_check_params(checks)
        checked = [check is None for check in checks]
    if records or plan.counts or key_params:
        # Client-side binding (psycopg quotes every value): a simple query takes no parameters.
        mogrify = psycopg.ClientCursor(conn).mogrify
        if key_params:
            statements += [mogrify(group_key_check_statement(), key_params), "commit"]
        statements.append("select pg_current_xact_id()::text")
        if records:
            statements.append(mogrify(_CLAIM_KEYS, _claim_params(records)))
        if plan.counts:
            statements.append(mogrify(_COUNT_REJECTIONS, _rejection_params(plan.counts)))
    else:
        statements.append("select pg_current_xact_id()::text")
    statements.append(COPY_STATEMENT)
    first = 2 if key_params else 0  # the results of the events' transaction start here
    pgconn = conn.pgconn
    pgconn.send_query("; ".join(statements).encode(conn.info.encoding))
    results = conn.wait(execute(pgconn))  # flushes the query, then reads up to the COPY's start
    for result in results:
        if result.status == pq.ExecStatus.FATAL_ERROR:  # the string stopped there, its transaction undone
            raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)
    if results[-1].status != pq.ExecStatus.COPY_IN:
        raise psycopg.InterfaceError("the group's query string did not reach its COPY")
    on_xid(results[first].get_value(0, 0).decode())
    if records:
        claimed = results[first + 1]
        plan.claimed({(claimed.get_value(i, 0).decode(), claimed.get_value(i, 1).decode())
                      for i in range(claimed.ntuples)})
    if key_params:
        confirmed = results[0]
        keys = {confirmed.get_value(i, 0).decode() for i in range(confirmed.ntuples)}
        checked = [check is None or (not alone and check.key_id in keys)
                   for check, alone in zip(checks, apart)]
    if on_checked is not None:
        on_checked(checked)
    # The cursor has no result of its own: Copy takes the connection as being in COPY IN, as it is.
    with Copy(conn.cursor()) as copy:
        write_rows(copy, plan.rows(units, checked))
    return plan.duplicate


def store_events(conn_or_url: psycopg.Connection | str, rows: Iterable[tuple | Mapping[str, Any]]) -> int:
    """Write derived rows into raw.events in one transaction; returns how many.

    Rows are tuples in `rows.COLUMNS` order (as `derive_row` makes them) or mappings of column
    names (`rows.row_from_mapping`). With a URL, a connection is opened and committed here. With a
    connection, the rows are committed on return, unless the caller has a transaction open: then
    they join it (as a savepoint) and commit or roll back with it.
    """
    rows = as_rows(rows)
    if isinstance(conn_or_url, str):
        with connect(conn_or_url) as conn:
            with conn.transaction():
                copy_rows(conn, rows)
    else:
        with conn_or_url.transaction():
            copy_rows(conn_or_url, rows)
    return len(rows)


def _spool_writer(subject_key: bytes):
    """The `write_entries` of spool replay: entries as units, less the rows of people erased since
    they were spooled (pipelines/ingest/erased.py)."""

    def write_entries(conn: psycopg.Connection, entries: list[dict]) -> int:
        kept = drop_erased(conn, [[tuple(row) for row in entry["rows"]] for entry in entries], subject_key)
        units = [(rows, IdempotencyRecord(*entry["idempotency"]) if entry.get("idempotency") else None,
                  entry.get("rejections")) for rows, entry in zip(kept, entries)]
        duplicate = write_units(conn, units)
        return sum(len(rows) for (rows, _, _), dup in zip(units, duplicate) if not dup)

    return write_entries


def replay_spool(settings, conn: psycopg.Connection | None = None) -> int:
    """Write the spooled events of every process that no longer holds its segment, oldest first.

    Returns the number of events written. Safe to run from several processes at once and at any
    time (maintenance schedule, worker start); a segment is replayed exactly once.
    """
    from pipelines.database.connection import server_url

    directory = Path(settings.spool_dir)
    if not pending_segments(directory):
        return 0
    write_entries = _spool_writer(subject_key(settings))
    if conn is not None:
        return replay_directory(conn, directory, write_entries)
    with connect(server_url(settings)) as own:
        return replay_directory(own, directory, write_entries)


def expire_idempotency_keys(conn: psycopg.Connection) -> int:
    """Forget idempotency keys older than a day (a retry comes within minutes, not days)."""
    return conn.execute(
        f"delete from raw.idempotency_keys where created_at < now() - interval '{IDEMPOTENCY_RETENTION}'"
    ).rowcount


@dataclass(eq=False)
class Job:
    """Work of a thread that waits on `done`."""

    rows: list[tuple]
    idempotency: IdempotencyRecord | None = None
    rejections: list[list] | None = None
    key_check: KeyCheck | None = None
    outcome: str | None = None  # stored | spooled | duplicate | unchecked | failed
    done: threading.Event = field(default_factory=threading.Event)

    def finish(self, outcome: str) -> None:
        self.outcome = outcome
        self.done.set()

    @property
    def finished(self) -> bool:
        return self.outcome is not None


class AsyncJob:
    """Work of a coroutine that awaits `future`. The writer only records the outcome; the futures
    of a whole group are resolved in one call into their event loop (`_wake_async`), since each
    `call_soon_threadsafe` writes to the loop's self-pipe and wakes it."""

    __slots__ = ("rows", "idempotency", "rejections", "key_check", "outcome", "future")

    def __init__(self, rows: list[tuple], idempotency: IdempotencyRecord | None, rejections: list[list] | None,
                 future: asyncio.Future, key_check: KeyCheck | None = None):
        self.rows, self.idempotency, self.rejections, self.future = rows, idempotency, rejections, future
        self.key_check = key_check
        self.outcome: str | None = None

    def finish(self, outcome: str) -> None:
        self.outcome = outcome

    @property
    def finished(self) -> bool:
        return self.outcome is not None


class _Deadlines:
    """The deadline of every future a loop's coroutines await from the writer, checked once a
    second: a writer stuck past `SECONDS` (a hung disk) fails them with WriterUnavailable, as
    `submit`'s timeout does. A timer per request (asyncio.wait_for) cost more than the deque."""

    SECONDS = 30.0
    # Weak keys, and no reference from a _Deadlines to its loop (its next check, scheduled in the
    # loop, finds the loop running): a loop that ends takes its deadlines with it.
    _by_loop: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Deadlines]" = weakref.WeakKeyDictionary()

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._pending: collections.deque = collections.deque()
        loop.call_later(1.0, self._check)

    @classmethod
    def of_running_loop(cls) -> "_Deadlines":
        loop = asyncio.get_running_loop()
        found = cls._by_loop.get(loop)
        if found is None:
            found = cls._by_loop[loop] = cls(loop)
        return found

    def watch(self, future: asyncio.Future) -> None:
        # A weak reference: a future holds its loop, which must stay free to go (see _by_loop).
        self._pending.append((time.monotonic() + self.SECONDS, weakref.ref(future)))

    def _check(self) -> None:
        now, pending = time.monotonic(), self._pending
        # In submission order: the oldest first, so the check stops at the first one still in time.
        while pending:
            deadline, watched = pending[0]
            future = watched()
            waiting = future is not None and not future.done()
            if waiting and deadline > now:
                break
            pending.popleft()
            if waiting:
                future.set_exception(WriterUnavailable("the events could not be written in time"))
        asyncio.get_running_loop().call_later(1.0, self._check)


def _resolve(jobs: list[AsyncJob]) -> None:
    """In the event loop: hand each waiting coroutine its job's outcome."""
    for job in jobs:
        if not job.future.done():  # cancelled: the client went away or the wait timed out
            job.future.set_result(job.outcome)


def _wake_async(group: list) -> None:
    """Resolve the futures of the group's AsyncJobs, one call per event loop."""
    by_loop: dict = {}
    for job in group:
        if type(job) is AsyncJob:
            by_loop.setdefault(job.future.get_loop(), []).append(job)
    for loop, jobs in by_loop.items():
        try:
            loop.call_soon_threadsafe(_resolve, jobs)
        except RuntimeError:  # the loop closed (worker shutting down): nobody waits any more
            pass


class WriterUnavailable(RuntimeError):
    """The events could be neither committed nor spooled: they are not acknowledged."""


class BatchWriter:
    """One writer thread per process, group-committing what the request threads submit."""

    IDLE_SECONDS = 5.0
    GATHER_SECONDS = 0.001
    GATHER_BELOW = 64  # jobs queued: fewer, and the writer waits GATHER_SECONDS before taking them
    RETRY_SECONDS = 1.0
    MAINTENANCE_SECONDS = 600.0

    def __init__(self, url: Callable[[], str] | str, spool_dir: Path, subject_key: Callable[[], bytes]):
        self._url = url if callable(url) else (lambda: url)
        # The key of erasure requests' subject hashes, read when a replay needs it.
        self._subject_key = subject_key
        self.spool_dir = Path(spool_dir)
        self._queue: queue.SimpleQueue[Job | None] = queue.SimpleQueue()
        self._conn: psycopg.Connection | None = None
        self._segment = SpoolSegment(self.spool_dir)
        self._down_since: float | None = None
        self._last_attempt = 0.0
        self._last_maintenance = 0.0
        self._thread: threading.Thread | None = None
        self._running = False  # set by the writer thread itself while it runs
        self._start_lock = threading.Lock()
        self.groups_committed = 0

    def start(self) -> None:
        """Start the thread (idempotent); its first act is replaying the spool."""
        if self._running:
            return  # every submit passes here: no lock (Thread.is_alive takes one) on the way
        with self._start_lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="event-writer", daemon=True)
                self._thread.start()

    def submit(self, rows: list[tuple], idempotency: IdempotencyRecord | None = None,
               rejections: list[list] | None = None, timeout: float = 30.0,
               key_check: KeyCheck | None = None) -> str:
        """Hand rows (and counts of refused events, `[site_id, reason, minute, count]`) over and
        wait until they are committed or spooled.

        Returns `stored`, `spooled` or `duplicate` (the idempotency key was already used; nothing
        was written). Raises WriterUnavailable when neither happened in time. With a `key_check`,
        the rows are written only in a group whose query confirmed the key (and counted its events):
        otherwise nothing is written and the outcome is `unchecked` (the key was refused or changed,
        its minute is full, or the group went to the spool or failed): the caller checks the key
        on its own and submits again.
        """
        self.start()
        job = Job(rows, idempotency, rejections, key_check)
        self._queue.put(job)
        if not job.done.wait(timeout) or job.outcome == "failed":
            raise WriterUnavailable("the events could not be written")
        return job.outcome

    async def submit_async(self, rows: list[tuple], idempotency: IdempotencyRecord | None = None,
                           rejections: list[list] | None = None, key_check: KeyCheck | None = None) -> str:
        """`submit` for a coroutine: the event loop serves other requests while the group commits.
        The wait is bounded as `submit`'s is, by the loop's `_Deadlines` rather than a timer each."""
        self.start()
        future = asyncio.get_running_loop().create_future()
        _Deadlines.of_running_loop().watch(future)
        self._queue.put(AsyncJob(rows, idempotency, rejections, future, key_check))
        outcome = await future
        if outcome == "failed":
            raise WriterUnavailable("the events could not be written")
        return outcome

    @property
    def database_down(self) -> bool:
        return self._down_since is not None

    # The writer thread -------------------------------------------------------------------------

    def _run(self) -> None:
        self._running = True
        try:
            self._loop()
        finally:
            self._running = False

    def _loop(self) -> None:
        self._try_replay()
        while True:
            try:
                first = self._queue.get(timeout=self.IDLE_SECONDS)
            except queue.Empty:
                self._idle()
                continue
            if first is None:
                break
            if self._queue.qsize() < self.GATHER_BELOW:
                # A small group waits a millisecond for more: the requests already read but not yet
                # run (greenlets scheduled by the loop) queue their events meanwhile. Beacons went
                # from 5.7 to 9 events per commit, PostgreSQL's CPU per beacon from 72 to 54 us; a
                # millisecond more of latency is small beside the commit's own.
                time.sleep(self.GATHER_SECONDS)
            group, count, stopping = [first], len(first.rows), False
            while count < MAX_GROUP_ROWS:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                group.append(job)
                count += len(job.rows)
            try:
                self._write(group)
            except Exception:  # never let the thread die: the requests would wait forever
                _log.exception("event writer failed on a group")
                for job in group:
                    if not job.finished:
                        job.finish("failed")
            _wake_async(group)
            if stopping:
                break
        self._segment.close()
        self._drop_connection()

    def stop(self, timeout: float = 10.0) -> None:
        """Finish what was submitted, then end the thread and release the spool segment."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._queue.put(None)
            thread.join(timeout)

    def _connection(self) -> psycopg.Connection:
        # Autocommit, with explicit BEGIN and COMMIT: the BEGIN travels with the first statement.
        # A statement timeout turns a hung server into a failure, hence into the spool.
        if self._conn is None or self._conn.closed:
            self._conn = connect(self._url(), autocommit=True, connect_timeout=2,
                                 options="-c statement_timeout=20s")
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
        self._conn = None

    def _write(self, group: list[Job]) -> None:
        if self._down_since is not None and time.monotonic() - self._last_attempt < self.RETRY_SECONDS:
            self._spool(self._unchecked(group, None))
            return
        self._last_attempt = time.monotonic()
        xid, checked = None, None

        def note_xid(value: str) -> None:
            nonlocal xid
            xid = value

        def note_checked(value: list[bool]) -> None:
            nonlocal checked
            checked = value

        try:
            conn = self._connection()
            if self._down_since is not None or self._segment.is_open:
                self._recover(conn)
            # The transaction id tells, after a connection lost during the commit, whether it committed.
            duplicate = commit_units(conn, [(job.rows, job.idempotency, job.rejections) for job in group], note_xid,
                                     [job.key_check for job in group], note_checked)
        except (DatabaseUnavailable, psycopg.OperationalError, psycopg.InterfaceError):
            self._mark_down()
            # Only rows the query string wrote may wait in the spool for their transaction's outcome.
            self._spool(self._unchecked(group, checked), xid)
            return
        except psycopg.Error as exc:
            # A row the database refuses would sink the whole group: write each job on its own.
            _log.warning("a group write was refused (%s); writing its requests one by one", type(exc).__name__)
            self._rollback()
            self._write_one_by_one(group)
            return
        self.groups_committed += 1
        for job, dup, ok in zip(group, duplicate, checked):
            job.finish("unchecked" if not ok else "duplicate" if dup else "stored")

    @staticmethod
    def _unchecked(group: list, checked: list[bool] | None) -> list:
        """Finish as `unchecked` the jobs whose key the group did not confirm (`checked`: as
        `commit_units` noted it, None when it did not get that far); the others remain."""
        rest = []
        for index, job in enumerate(group):
            if job.key_check is not None and (checked is None or not checked[index]):
                job.finish("unchecked")
            else:
                rest.append(job)
        return rest

    def _write_one_by_one(self, group: list[Job]) -> None:
        for job in self._unchecked(group, None):
            try:
                conn = self._connection()
                conn.execute("begin")
                (dup,) = write_units(conn, [(job.rows, job.idempotency, job.rejections)])
                conn.execute("commit")
                job.finish("duplicate" if dup else "stored")
            except (DatabaseUnavailable, psycopg.OperationalError, psycopg.InterfaceError):
                self._mark_down()
                self._spool([job])
            except psycopg.Error as exc:
                self._rollback()
                _log.error("events refused by the database (%s); request not acknowledged", type(exc).__name__)
                job.finish("failed")

    def _rollback(self) -> None:
        try:
            if self._conn is not None:
                self._conn.execute("rollback")
        except psycopg.Error:
            self._drop_connection()

    def _mark_down(self) -> None:
        self._drop_connection()
        if self._down_since is None:
            self._down_since = time.monotonic()
            _log.warning("database unreachable: events go to the spool until it is back")

    def _spool(self, group: list[Job], xid: str | None = None) -> None:
        if not group:
            return
        entries = [{"rows": job.rows, "idempotency": job.idempotency.as_list() if job.idempotency else None,
                    "rejections": job.rejections, "xid": xid} for job in group]
        try:
            self._segment.append(entries)
        except OSError as exc:
            _log.error("spool append failed (%s): events not acknowledged", type(exc).__name__)
            for job in group:
                job.finish("failed")
            return
        for job in group:
            job.finish("spooled")

    def _recover(self, conn: psycopg.Connection) -> None:
        """The database answers again: replay the spool (ours included) before new events."""
        self._segment.close()
        replayed = replay_directory(conn, self.spool_dir, _spool_writer(self._subject_key()))
        if self._down_since is not None:
            _log.info("database back after %.1f s; %d spooled events replayed",
                      time.monotonic() - self._down_since, replayed)
        self._down_since = None

    def _try_replay(self) -> None:
        if not pending_segments(self.spool_dir):
            return
        try:
            self._recover(self._connection())
        except (DatabaseUnavailable, psycopg.OperationalError, psycopg.InterfaceError):
            self._mark_down()
        except psycopg.Error as exc:
            self._rollback()
            _log.error("spool replay failed (%s)", type(exc).__name__)

    def _idle(self) -> None:
        """No traffic: replay what other processes left behind, expire old idempotency keys."""
        self._try_replay()
        if self._down_since is None and time.monotonic() - self._last_maintenance > self.MAINTENANCE_SECONDS:
            self._last_maintenance = time.monotonic()
            try:
                expire_idempotency_keys(self._connection())
            except psycopg.Error:
                self._rollback()
            except DatabaseUnavailable:
                pass


_writers: dict[tuple, BatchWriter] = {}
_writers_lock = threading.Lock()


def stop_writer(settings) -> None:
    """Stop this process's writer for these settings, if it runs (tests, shutdown)."""
    with _writers_lock:
        writer = _writers.pop((os.getpid(), str(settings.spool_dir)), None)
    if writer is not None:
        writer.stop()


def writer_for(settings, url: Callable[[], str] | str) -> BatchWriter:
    """The process's writer for these settings (a new one after a fork: threads do not survive it)."""
    key = (os.getpid(), str(settings.spool_dir))
    with _writers_lock:
        writer = _writers.get(key)
        if writer is None:
            writer = _writers[key] = BatchWriter(url, settings.spool_dir, lambda: subject_key(settings))
        return writer
