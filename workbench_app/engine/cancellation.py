"""A running statement's off switch, which a request other than the one running it may pull.

The person who clicks "Cancel" sends a second HTTP request, which may reach another worker process;
that worker relays the cancellation (see :mod:`workbench_app.running_statements`) to the one that
holds the statement, which calls :meth:`Cancellation.cancel`. The engine hands the DuckDB cursor's
``interrupt`` to :meth:`Cancellation.on_cancel` while the statement executes: DuckDB stops at its
next check, and the engine answers ``query_cancelled`` instead of a timeout.
"""
from __future__ import annotations

import threading
from typing import Callable


class Cancellation:
    """Set once, from any thread; the interrupt registered at that moment (if any) runs at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._interrupt: Callable[[], None] | None = None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            interrupt = self._interrupt
        if interrupt is not None:
            interrupt()

    def on_cancel(self, interrupt: Callable[[], None] | None) -> None:
        """Register what stops the current phase (None when it has ended); runs now if already cancelled."""
        with self._lock:
            self._interrupt = interrupt
            cancelled = self._cancelled
        if cancelled and interrupt is not None:
            interrupt()
