"""The statements running in this worker, by person and statement id, and the cancellations that reach them.

A screen names each statement it runs (`statement_id`); its "Cancel" button is a second HTTP request,
which may reach another worker process than the one running the statement. That request publishes the
cancellation with PostgreSQL's NOTIFY on the workbench database; every worker listens (one thread per
process) and stops the statement if it runs there. No new server, and no shared memory between workers.

The key is the person *and* the id: a person can only cancel their own statements, whatever id they
send. A cancellation that arrives before its statement has started (the two requests race) is kept a
short while, so the statement stops as soon as it begins.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

import psycopg

from workbench_app.engine import Cancellation

log = logging.getLogger(__name__)

CHANNEL = "workbench_cancel"
EARLY_CANCEL_SECONDS = 120.0
MAX_EARLY_CANCELS = 10_000
# A statement waits at most this long for its worker's listener to be connected, so that a cancel
# sent right after the statement started is never published before anyone listens.
LISTENER_READY_SECONDS = 2.0

Key = tuple[int, str]


class RunningStatements:
    """One per worker process (per app): the registry and its listener thread."""

    def __init__(self, database_url: Callable[[], str]):
        self._database_url = database_url
        self._lock = threading.Lock()
        self._running: dict[Key, Cancellation] = {}
        self._early: dict[Key, float] = {}
        self._listener: threading.Thread | None = None
        self._listener_pid: int | None = None
        self._listening = threading.Event()
        self._stopping = threading.Event()

    @contextmanager
    def running(self, user_id: int, statement_id: str) -> Iterator[Cancellation]:
        """Register a statement for the time it runs; the cancellation to hand to the engine."""
        self.start()
        key = (user_id, statement_id)
        cancellation = Cancellation()
        with self._lock:
            cancelled_early = self._early.pop(key, 0.0) > time.monotonic()
            self._running[key] = cancellation
        if cancelled_early:
            cancellation.cancel()
        try:
            yield cancellation
        finally:
            with self._lock:
                if self._running.get(key) is cancellation:
                    del self._running[key]

    def cancel_here(self, user_id: int, statement_id: str) -> bool:
        """Stop the statement if it runs in this worker (True), else remember the request for a while."""
        key = (user_id, statement_id)
        now = time.monotonic()
        with self._lock:
            cancellation = self._running.get(key)
            if cancellation is None:
                self._remember_early(key, now)
        if cancellation is not None:
            cancellation.cancel()
        return cancellation is not None

    def _remember_early(self, key: Key, now: float) -> None:
        if len(self._early) >= MAX_EARLY_CANCELS:
            self._early = {k: deadline for k, deadline in self._early.items() if deadline > now}
            while len(self._early) >= MAX_EARLY_CANCELS:  # still full of live ones: forget the oldest
                del self._early[next(iter(self._early))]
        self._early[key] = now + EARLY_CANCEL_SECONDS

    @staticmethod
    def publish_cancel(conn: psycopg.Connection, user_id: int, statement_id: str) -> None:
        """Ask every worker to stop this person's statement (sent when `conn`'s transaction commits)."""
        payload = json.dumps({"user_id": user_id, "statement_id": statement_id})
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))

    # --- the listener ---------------------------------------------------------------------

    def start(self) -> None:
        """Listen in this process; the first call waits (briefly) until the listener is connected.

        Called before every API request of the worker (cheap after the first), so that a worker listens
        before it can run anything: a cancellation sent while no one listened would be lost.
        """
        pid = os.getpid()
        if self._listener_pid == pid:
            return
        with self._lock:
            # After a fork the parent's thread does not exist in the child: each process starts its own.
            started_here = self._listener_pid != pid
            if started_here:
                self._listener_pid = pid
                self._listening.clear()
                self._listener = threading.Thread(target=self._listen, name="workbench-cancel-listener",
                                                  daemon=True)
                self._listener.start()
        if started_here:
            self._listening.wait(LISTENER_READY_SECONDS)

    def _listen(self) -> None:
        backoff = 0.5
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self._database_url(), autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    backoff = 0.5
                    while not self._stopping.is_set():
                        for notification in conn.notifies(timeout=1.0):
                            self._on_notification(notification.payload)
            except Exception:  # the database restarts, a network blip: listen again, never die
                self._listening.clear()
                if self._stopping.is_set():
                    return
                log.warning("the cancellation listener lost its connection; reconnecting", exc_info=True)
                self._stopping.wait(backoff)
                backoff = min(backoff * 2, 30.0)

    def _on_notification(self, payload: str) -> None:
        try:
            message = json.loads(payload)
            user_id, statement_id = int(message["user_id"]), str(message["statement_id"])
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed cancellation notice")
            return
        self.cancel_here(user_id, statement_id)

    def close(self) -> None:
        self._stopping.set()
