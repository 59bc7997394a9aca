"""Reports made ahead of their delivery: while one subscription is sent, the next ones' are printed.

A delivery run sends its subscriptions one after another (one Dagster step each), and a report's
print is most of a delivery's time, mostly waiting on Chromium. `MadeAhead` is given the run's plan
and, in a few threads of its own, makes the reports of the subscriptions whose turn comes next
(`sending.prepare`), at most `AHEAD` subscriptions beyond the step being run, so that two prints go
at once (the printers' two browsers) and the step finds its report made.

Nothing is claimed or sent here, and no report is handed to anyone: a report made ahead only waits
in the reuse cache (`report_content.reused`) under the key of everything it depends on, read when it
was made. The delivery reads its own key at sending time, after that recipient's access check: the
same key takes the report made ahead, a change of rights, dashboard or question between the two
makes it print anew, and a recipient who lost access is refused before any reuse. A report that
could not be made ahead (a crash of its print) is not kept: its delivery makes it again and, if that
fails too, fails with its own status; the other deliveries go on.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from datetime import datetime
from typing import Callable

from flask import Flask

log = logging.getLogger(__name__)

# Subscriptions made ahead of the step being run, at most: each holds its reports (a PDF and a few
# images) until its step sends them, so the memory stays flat whatever the run's size.
AHEAD = 2
# Threads making them: two prints at once, as many as the printers' browsers (BROWSERS_AT_ONCE).
WORKERS = 2

Planned = tuple[str, int, datetime]  # (kind: subscription or alert, its id, due time)


class MadeAhead:
    """Makes ahead the reports of `plan`'s subscriptions, in its order, while their steps are run."""

    def __init__(self, app: Flask, plan: list[Planned], prepare: Callable[[int, datetime], None], *,
                 workers: int | None = None, ahead: int | None = None):
        self._app = app
        self._prepare = prepare
        self._ahead = AHEAD if ahead is None else ahead
        workers = WORKERS if workers is None else workers
        # Alerts print nothing (a question's figures): only subscriptions are worth making ahead.
        self._waiting = deque(item for item in plan if item[0] == "subscription")
        self._outstanding: set[Planned] = set()  # taken ahead, their step not yet started
        self._started: set[tuple[str, int]] = set()
        self._closed = False
        self._changed = threading.Condition()
        self._threads = [threading.Thread(target=self._work, name="report-ahead", daemon=True)
                         for _ in range(workers if self._ahead > 0 else 0)]
        for thread in self._threads:
            thread.start()

    def step_started(self, kind: str, item_id: int) -> None:
        """The step of (kind, item_id) runs now: it makes its reports itself if they are not made, and
        frees its place ahead for the next one."""
        with self._changed:
            self._started.add((kind, item_id))
            self._outstanding = {item for item in self._outstanding if item[:2] != (kind, item_id)}
            self._changed.notify_all()

    def close(self) -> None:
        """Stop taking more and wait for the prints under way (a print is bounded by its timeouts)."""
        with self._changed:
            self._closed = True
            self._waiting.clear()
            self._changed.notify_all()
        for thread in self._threads:
            thread.join()

    def _next(self) -> Planned | None:
        with self._changed:
            while True:
                while self._waiting and self._waiting[0][:2] in self._started:
                    self._waiting.popleft()  # its step came first: it makes its own
                if self._closed or not self._waiting:
                    return None
                if len(self._outstanding) < self._ahead:
                    item = self._waiting.popleft()
                    self._outstanding.add(item)
                    return item
                self._changed.wait()

    def _work(self) -> None:
        while (item := self._next()) is not None:
            _, item_id, due_at = item
            try:
                with self._app.app_context():
                    self._prepare(item_id, due_at)
            except Exception:  # noqa: BLE001 - its delivery makes it again and records how that ends
                log.warning("making subscription %s's report ahead failed; its delivery will make it", item_id,
                            exc_info=True)
