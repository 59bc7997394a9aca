"""Headless browsers kept between prints: a few printer threads, each with its own Playwright and
Chromium, started at the first print and closed after a minute without work.

Starting Playwright's driver and Chromium costs more than printing a small dashboard (about 3 s of
a 5 s print on a loaded machine), and scheduled deliveries print one dashboard after another. Each
print still gets a fresh browser context (no cookie, storage or cache shared between two people's
prints). Playwright's sync objects belong to the thread that made them, so each browser lives in its
own thread, which is also never one where an asyncio loop runs (Playwright's sync API refuses those).
A browser that crashed or was closed is started again by the next print.
"""
from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

log = logging.getLogger(__name__)

IDLE_SECONDS = 60.0


class Printer(threading.Thread):
    def __init__(self, launch_args: list[str]):
        super().__init__(name="pdf-printer", daemon=True)
        self._launch_args = launch_args
        self._tasks: queue.Queue = queue.Queue()
        self._playwright = None
        self._browser = None
        self._executable = None

    def submit(self, chromium: str, work: Callable[[Any], Any]) -> Future:
        """Run `work(browser)` in this printer's thread, with a browser of `chromium` started."""
        done: Future = Future()
        self._tasks.put((chromium, work, done))
        return done

    def run(self) -> None:
        while True:
            try:
                chromium, work, done = self._tasks.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                self._close_browser()
                continue
            if not done.set_running_or_notify_cancel():
                continue
            try:
                done.set_result(work(self._open_browser(chromium)))
            except BaseException as error:  # noqa: BLE001 - handed to the caller, who raises it
                self._close_browser()  # a failed print may have left the browser unusable: start afresh
                done.set_exception(error)

    def _open_browser(self, chromium: str):
        if self._browser is not None and (self._executable != chromium or not self._browser.is_connected()):
            self._close_browser()
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            self._browser = self._playwright.chromium.launch(executable_path=chromium, args=self._launch_args)
            self._executable = chromium
        return self._browser

    def _close_browser(self) -> None:
        browser, playwright, self._browser, self._playwright = self._browser, self._playwright, None, None
        for closing in (browser.close if browser else None, playwright.stop if playwright else None):
            if closing is not None:
                try:
                    closing()
                except Exception:  # noqa: BLE001 - a browser already gone has nothing left to close
                    log.debug("closing a printer's browser failed", exc_info=True)


class Printers:
    """At most `size` printers; a print takes an idle one (the caller's slot bounds how many wait)."""

    def __init__(self, size: int, launch_args: list[str]):
        self._idle: queue.LifoQueue = queue.LifoQueue()
        self._lock = threading.Lock()
        self._made = 0
        self._size = size
        self._launch_args = launch_args

    def print_with(self, chromium: str, work: Callable[[Any], Any]) -> Any:
        printer = self._take()
        try:
            return printer.submit(chromium, work).result()
        finally:
            self._idle.put(printer)

    def _take(self) -> Printer:
        with self._lock:
            if self._idle.empty() and self._made < self._size:
                self._made += 1
                printer = Printer(self._launch_args)
                printer.start()
                return printer
        return self._idle.get()
