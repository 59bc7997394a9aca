"""Where a delivery's time goes, for bench/deliveries.py: the run's functions wrapped with timers.

Each phase sums the wall time spent in it over every thread (the printers' and the steps'), so
phases that overlap (two prints at once, a print beside a step's mail) add up to more than the run.
Installed for a run and removed after; nothing of the application is changed otherwise.
"""
from __future__ import annotations

import functools
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, Callable, Iterator

# (phase, the object holding the function, its attribute name), in the order they are printed.
PHASE_NAMES = ("step (deliver, whole)", "workbench app per step (made and closed)", "reuse key (rights read)",
               "report made (SQL + print)", "SQL of the report's cards", "print (slot wait + print)",
               "  new browser context", "  print page load (goto + data-print-ready)",
               "    its requests answered: the page", "    its requests answered: assets", "    its requests answered: API", "  PNG screenshots",
               "  PDF", "  context close", "SMTP send", "delivery log claims")


class Phases:
    def __init__(self):
        self._lock = threading.Lock()
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self.seconds[name] += seconds
            self.calls[name] += 1

    def timed(self, name: str, function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.add(name, time.perf_counter() - started)
        return wrapper

    def timed_context(self, name: str, function: Callable) -> Callable:
        """A context manager factory whose enter and exit are timed together."""
        phases = self

        @contextmanager
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            manager = function(*args, **kwargs)
            value = manager.__enter__()
            entered = time.perf_counter() - started
            try:
                yield value
            finally:
                started = time.perf_counter()
                manager.__exit__(None, None, None)
                phases.add(name, entered + time.perf_counter() - started)
        return wrapper

    def lines(self, deliveries: int, wall: float) -> list[str]:
        shown = [name for name in PHASE_NAMES if name in self.seconds]
        width = max(len(name) for name in shown) if shown else 0
        return [f"  {name:<{width}}  {self.seconds[name]:7.1f} s in {self.calls[name]:4d} calls, "
                f"{self.seconds[name] / max(1, deliveries):5.2f} s a delivery, {100 * self.seconds[name] / wall:5.1f} % "
                f"of the run" for name in shown]


@contextmanager
def measured(phases: Phases) -> Iterator[Phases]:
    """Wrap the delivery path's functions with `phases`' timers for the duration of the block."""
    from playwright.sync_api._generated import Browser, BrowserContext, Locator, Page

    from orchestration.defs.workbench import deliveries as dagster_deliveries
    from workbench_app.content import dashboards
    from workbench_app.subscriptions import report_content, sending

    def is_print_thread() -> bool:
        return threading.current_thread().name == "pdf-printer"

    run_card = dashboards.run_card

    def run_card_timed(*args, **kwargs):
        if is_print_thread():  # the print page's own reads are part of its load
            return run_card(*args, **kwargs)
        return phases.timed("SQL of the report's cards", run_card)(*args, **kwargs)

    goto, wait_ready = Page.goto, Page.wait_for_selector

    def goto_timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return goto(self, *args, **kwargs)
        finally:
            threading.current_thread().__dict__["_bench_load"] = time.perf_counter() - started

    def ready_timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return wait_ready(self, *args, **kwargs)
        finally:
            loaded = threading.current_thread().__dict__.pop("_bench_load", 0.0)
            phases.add("  print page load (goto + data-print-ready)", loaded + time.perf_counter() - started)

    from flask.testing import FlaskClient
    client_open = FlaskClient.open

    def open_timed(self, path, *args, **kwargs):
        if not is_print_thread():
            return client_open(self, path, *args, **kwargs)
        kind = "assets" if path.startswith("/assets/") else "API" if path.startswith("/api/") else "the page"
        return phases.timed(f"    its requests answered: {kind}", client_open)(self, path, *args, **kwargs)

    patches: list[tuple[Any, str, Any]] = [
        (FlaskClient, "open", open_timed),
        (sending, "deliver", phases.timed("step (deliver, whole)", sending.deliver)),
        (dagster_deliveries, "_workbench", phases.timed_context("workbench app per step (made and closed)",
                                                                dagster_deliveries._workbench)),
        (report_content, "_reuse_key", phases.timed("reuse key (rights read)", report_content._reuse_key)),
        (report_content, "_make_dashboard_report", phases.timed("report made (SQL + print)",
                                                                report_content._make_dashboard_report)),
        (dashboards, "run_card", run_card_timed),
        (report_content, "render_dashboard", phases.timed("print (slot wait + print)", report_content.render_dashboard)),
        (Browser, "new_context", phases.timed("  new browser context", Browser.new_context)),
        (Page, "goto", goto_timed),
        (Page, "wait_for_selector", ready_timed),
        (Locator, "screenshot", phases.timed("  PNG screenshots", Locator.screenshot)),
        (Page, "pdf", phases.timed("  PDF", Page.pdf)),
        (BrowserContext, "close", phases.timed("  context close", BrowserContext.close)),
        (sending, "send_mail", phases.timed("SMTP send", sending.send_mail)),
        (sending.delivery_log, "claim", phases.timed("delivery log claims", sending.delivery_log.claim)),
    ]
    if getattr(dagster_deliveries, "_workbench", None) is None:
        patches = [patch for patch in patches if patch[1] != "_workbench"]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, replacement in patches:
        setattr(owner, name, replacement)
    try:
        yield phases
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
