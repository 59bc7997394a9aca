"""The local spool: where acknowledged events wait while the database is down.

Each process appends to its own segment file under `settings.spool_dir`, named so that names sort
in creation order (`<time_ns>-<pid>-<random>.jsonl`), and holds an exclusive `flock` on it while
it may still write. One line per unit of work, JSON, fsynced before the events are acknowledged:

    {"rows": [[...raw.events row...], ...], "idempotency": [key_id, key_hash, request_hash, response] | null,
     "rejections": [[site_id, reason, minute, count], ...] | null,
     "xid": "<transaction id of a commit whose outcome is unknown>" | null}

Rows are already derived: no IP address and no user agent ever reach a segment.

`replay_spool` writes every segment no live process holds, oldest first, each in one transaction
that also records the segment's name in raw.spool_segments: a segment is replayed once even if the
process dies between the commit and the deletion of the file. A line whose `xid` committed after
all (the connection broke during COMMIT) is skipped.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import time
import uuid
from pathlib import Path

import psycopg

_log = logging.getLogger(__name__)
SEGMENT_SUFFIX = ".jsonl"
# Past this size a segment is closed and a new one started: a replay is one transaction per segment.
MAX_SEGMENT_BYTES = 64 * 1024 * 1024


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class SpoolSegment:
    """The open segment of this process. Not thread-safe: one writer thread uses it."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._fd: int | None = None
        self._size = 0

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}{SEGMENT_SUFFIX}"
        fd = os.open(self.directory / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        # The file's directory entry must be durable too, or a crash could lose the whole file.
        _fsync_directory(self.directory)
        self._fd, self._size = fd, 0

    def append(self, entries: list[dict]) -> None:
        """Append the entries and fsync: when this returns, they survive a crash."""
        if self._fd is None or self._size > MAX_SEGMENT_BYTES:
            self.close()
            self._open()
        data = "".join(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
                       for entry in entries).encode()
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)
        self._size += len(data)

    def close(self) -> None:
        """Release the segment: from now on `replay_spool` may take it."""
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None


def pending_segments(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.name.endswith(SEGMENT_SUFFIX))


def _read_entries(fd: int) -> list[dict]:
    with os.fdopen(os.dup(fd), "rb") as handle:
        data = handle.read()
    entries = []
    lines = data.split(b"\n")
    # The last piece is empty after a complete line; anything else is a write torn by a crash,
    # which was never fsynced, hence never acknowledged.
    for line in lines[:-1]:
        if line.strip():
            entries.append(json.loads(line))
    return entries


def replay_directory(conn: psycopg.Connection, directory: Path, write_entries) -> int:
    """Replay the segments of `directory` that no live process holds; returns the rows written.

    `write_entries(conn, entries)` writes a list of entries in the current transaction and returns
    how many rows it wrote.
    """
    total = 0
    for path in pending_segments(directory):
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue  # replayed by another process meanwhile
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live process still writes to it
            if os.fstat(fd).st_nlink == 0:
                continue  # another process replayed and deleted it while we waited
            try:
                total += _replay_segment(conn, path, fd, write_entries)
            except (psycopg.OperationalError, psycopg.InterfaceError):
                raise  # the database went away again: retry later
            except (psycopg.Error, ValueError, KeyError, TypeError) as exc:
                # A segment the database refuses would block every later one: set it aside for an
                # operator, under a name that replay no longer picks up.
                path.rename(path.with_name(path.name + ".failed"))
                _log.error("spool segment %s set aside as .failed (%s)", path.name, type(exc).__name__)
        finally:
            os.close(fd)
    return total


def _replay_segment(conn: psycopg.Connection, path: Path, fd: int, write_entries) -> int:
    entries = _read_entries(fd)
    with conn.transaction():
        first = conn.execute(
            "insert into raw.spool_segments (segment, events) values (%s, %s) on conflict do nothing returning segment",
            (path.name, sum(len(e["rows"]) for e in entries)),
        ).fetchone()
        if first is None:
            written = 0  # committed before, the file survived a crash: only delete it
        else:
            xids = [e["xid"] for e in entries if e.get("xid")]
            committed = set()
            if xids:
                committed = {x for (x,) in conn.execute(
                    "select x::text from unnest(%s::xid8[]) x where pg_xact_status(x) = 'committed'", (xids,))}
            todo = [e for e in entries if e.get("xid") not in committed]
            written = write_entries(conn, todo)
    path.unlink()
    _fsync_directory(path.parent)
    if written:
        _log.info("spool segment replayed: %d events", written)
    return written
