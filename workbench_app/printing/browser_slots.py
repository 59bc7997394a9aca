"""At most a few headless browsers per worker at once; a few more prints wait in line, the rest
are refused at once (429) rather than piling up browsers or threads."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from workbench_app.errors import WorkbenchError

BROWSERS_AT_ONCE = 2
WAITING_AT_MOST = 6
WAIT_SECONDS = 30.0


class BrowserSlots:
    def __init__(self, at_once: int = BROWSERS_AT_ONCE, waiting: int = WAITING_AT_MOST,
                 wait_seconds: float = WAIT_SECONDS):
        self._slots = threading.BoundedSemaphore(at_once)
        self._lock = threading.Lock()
        self._queued = 0
        self._capacity = at_once + waiting
        self._wait_seconds = wait_seconds

    @contextmanager
    def slot(self) -> Iterator[None]:
        with self._lock:
            if self._queued >= self._capacity:
                raise WorkbenchError(429, "print_queue_full",
                                     "Too many PDFs are being printed: try again in a few seconds.",
                                     {"retry_after": 5})
            self._queued += 1
        try:
            if not self._slots.acquire(timeout=self._wait_seconds):
                raise WorkbenchError(503, "print_busy", "The PDF printer is busy: try again in a minute.")
            try:
                yield
            finally:
                self._slots.release()
        finally:
            with self._lock:
                self._queued -= 1


slots = BrowserSlots()
