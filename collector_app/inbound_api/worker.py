"""The background processing of the inbox in each collector process.

A receiver answers as soon as the delivery is committed and wakes this thread, which processes
what waits (`pipelines.inbound.processing.process_pending`). Several processes may run one each:
deliveries are claimed with SKIP LOCKED. The thread starts with the first delivery a process
receives, never at import, so gunicorn workers each start their own after the fork.
"""
from __future__ import annotations

import logging
import threading

import psycopg
from flask import Flask

from pipelines.database.connection import connect, server_url
from pipelines.inbound.processing import process_pending

_log = logging.getLogger(__name__)
_KEY = "inbound_worker"
_lock = threading.Lock()
IDLE_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 30.0


class InboxWorker(threading.Thread):
    def __init__(self, url: str):
        super().__init__(name="inbound-inbox-worker", daemon=True)
        self.url = url
        self.pending = threading.Event()
        self.stopping = threading.Event()

    def wake(self) -> None:
        self.pending.set()

    def stop(self) -> None:
        self.stopping.set()
        self.pending.set()

    def run(self) -> None:
        conn: psycopg.Connection | None = None
        backoff = 0.5
        while not self.stopping.is_set():
            # Wake on a new delivery, or now and then for what an earlier failure left behind.
            self.pending.wait(IDLE_SECONDS)
            self.pending.clear()
            if self.stopping.is_set():
                break
            try:
                if conn is None or conn.closed:
                    conn = connect(self.url)
                process_pending(conn)
                backoff = 0.5
            except Exception as exc:  # noqa: BLE001 - the thread must outlive any failure
                _log.warning("inbound processing paused: %s", type(exc).__name__)
                if conn is not None:
                    conn.close()
                    conn = None
                self.stopping.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)
                self.pending.set()
        if conn is not None:
            conn.close()


def wake(app: Flask) -> None:
    """Start the process's worker if needed and tell it a delivery waits."""
    if not app.config.get("INBOUND_PROCESS_IN_BACKGROUND", True):
        return
    worker = app.extensions.get(_KEY)
    if worker is None or not worker.is_alive():
        with _lock:
            worker = app.extensions.get(_KEY)
            if worker is None or not worker.is_alive():
                worker = InboxWorker(server_url(app.config["ANALYTICS_SETTINGS"]))
                worker.start()
                app.extensions[_KEY] = worker
    worker.wake()


def stop(app: Flask) -> None:
    """Stop the worker of this app (tests, shutdown)."""
    worker = app.extensions.pop(_KEY, None)
    if worker is not None:
        worker.stop()
        worker.join(timeout=10)
