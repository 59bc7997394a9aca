"""What a delivered report holds for one audience: each card's figures, the A4 PDF and images of
the first cards, computed at sending time under the audience's rights.

An audience is a workbench account (its own rights now: row filters, hidden columns) or, for an
external address or a webhook, the dashboard's public link (what a visitor of that link would see:
its creator's rights, only the filters it opens). Two recipients of one subscription can so
receive different figures, and nobody receives more than they could open themselves.

A dashboard's report is made once for every delivery that would receive the very same one and
reused by the others for a short while (`REUSE_SECONDS`, about one delivery run): printing it is
most of a delivery's cost, and a hundred subscriptions due at one minute often go to a few people.
The reuse key holds everything the report depends on: the workbench's database, the dashboard as
read now (cards, filters, tabs, its change time) and each card's question row, the filter values,
the theme, the audience's whole identity (account, language, administrator or not) and its
effective rights read now (its groups' grants and rules, its attributes, the catalogs), and for a
public link the link itself. It is computed afresh for every delivery, after the access check: a
change of rights, of the dashboard or of a question makes the next delivery print anew, and a
recipient who lost access is refused before any reuse. Two accounts never share a report, even
with equal rights. A delivery run also makes the next subscriptions' reports ahead of their steps
into this same cache (made_ahead.py), under the same keys and the same rule.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Callable, Mapping

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, questions
from workbench_app.errors import WorkbenchError
from workbench_app.printing.dashboard_pdf import CardImage, render_dashboard
from workbench_app.printing.pdf_request import theme_for
from workbench_app.services import WorkbenchServices
from workbench_app.sharing import shared_view
from workbench_app.sharing.shared_view import SharedView
from workbench_app.statements.query_runner import open_session

HISTORY_ORIGIN = "subscription"
# Rows of each card a message shows (the PDF holds more; the workbench all).
ROWS_SHOWN = 10
# Cards shown as images in a message's body (the PDF has every card).
CARD_IMAGES = 3
# How long a made report may serve another delivery with the same key (about one delivery run;
# the cards' own result cache already lets figures be older than this), and how many are kept.
REUSE_SECONDS = 120.0
REUSE_AT_MOST = 16


@dataclass(frozen=True)
class Audience:
    """Whose rights a report is computed under: an account's own, or a public link's."""

    identity: Identity
    shared: SharedView | None = None


@dataclass(frozen=True)
class CardFigures:
    card_id: int | None  # None: a question's own result
    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    row_count: int
    error: str | None = None


@dataclass(frozen=True)
class Report:
    title: str
    target_kind: str
    target_id: int
    cards: tuple[CardFigures, ...]
    pdf: bytes | None = None
    images: tuple[CardImage, ...] = ()


def public_link_audience(services: WorkbenchServices, dashboard_id: int) -> Audience | None:
    """The audience of the dashboard's newest live public link, or None when it has none (then an
    external recipient gets nothing: a public link is what defines what outsiders may see)."""
    with services.transaction() as conn:
        view = shared_view.newest_link_view(conn, dashboard_id)
    return Audience(view.identity, view) if view else None


def dashboard_report(services: WorkbenchServices, audience: Audience, dashboard_id: int, filters: dict[str, str],
                     *, with_pdf: bool) -> Report:
    """The dashboard's figures for `audience`, with `filters` (by filter id or name; a public
    link's audience keeps the defaults of the filters the link does not open)."""
    with services.transaction() as conn:
        dashboard = dashboards.get_dashboard(conn, audience.identity, dashboard_id)
        theme = theme_for(conn, dashboard_id, None) if with_pdf else None
        values = _filter_ids(dashboard, filters, audience.shared)
        key = _reuse_key(services, conn, audience, dashboard, values, theme)
    return reused.get_or_make(key, lambda: _make_dashboard_report(services, audience, dashboard, values, theme))


def _make_dashboard_report(services: WorkbenchServices, audience: Audience, dashboard: dict[str, Any],
                           values: dict[str, str], theme: dict[str, Any] | None) -> Report:
    dashboard_id = dashboard["dashboard_id"]
    tabs = {tab["tab_id"]: n for n, tab in enumerate(dashboard["tabs"])}
    cards = sorted((card for card in dashboard["cards"] if card["kind"] == "question"),
                   key=lambda card: (card["tab_id"] is not None, tabs.get(card["tab_id"], 0), card["row"], card["col"]))
    figures = []
    for card in cards:
        try:
            if audience.shared is not None:
                result = shared_view.run_card(services, audience.shared, card["card_id"], values)
            else:
                result = dashboards.run_card(services, audience.identity, dashboard_id, card["card_id"], values,
                                             origin=HISTORY_ORIGIN)
            figures.append(_figures(card["card_id"], card["question_name"] or "", result))
        except WorkbenchError as error:
            figures.append(CardFigures(card["card_id"], card["question_name"] or "", (), (), 0, error.message))
    printed = (render_dashboard(audience.identity, dashboard_id, values, theme, shared=audience.shared,
                                card_images=CARD_IMAGES) if theme is not None else None)
    return Report(dashboard["name"], "dashboard", dashboard_id, tuple(figures),
                  printed.pdf if printed else None, printed.card_images if printed else ())


def question_report(services: WorkbenchServices, identity: Identity, question_id: int) -> Report:
    with services.transaction() as conn:
        question = questions.get_question(conn, identity, question_id)
    try:
        figures = _figures(None, question["name"], questions.run_question(services, identity, question_id,
                                                                    origin=HISTORY_ORIGIN))
    except WorkbenchError as error:
        figures = CardFigures(None, question["name"], (), (), 0, error.message)
    return Report(question["name"], "question", question_id, (figures,))


def _figures(card_id: int | None, title: str, result: dict[str, Any]) -> CardFigures:
    return CardFigures(card_id, title, tuple(column["name"] for column in result["columns"]),
                       tuple(tuple(row) for row in result["rows"][:ROWS_SHOWN]),
                       result.get("row_count", len(result["rows"])))


def _filter_ids(dashboard: dict[str, Any], filters: dict[str, str], shared: SharedView | None) -> dict[str, str]:
    """The subscription's filter values by filter id (a filter deleted since is dropped)."""
    ids = {}
    for item in dashboard["filters"]:
        if shared is not None and shared.allowed_filters is not None and item["name"] not in shared.allowed_filters:
            continue
        for key in (str(item["filter_id"]), item["name"]):
            if key in filters:
                ids[str(item["filter_id"])] = filters[key]
    return ids


# --- reuse between deliveries --------------------------------------------------------------------

def _reuse_key(services: WorkbenchServices, conn: psycopg.Connection, audience: Audience, dashboard: dict[str, Any],
               values: dict[str, str], theme: dict[str, Any] | None) -> str:
    """Everything a dashboard's report depends on, read now, as one digest (see the module's doc)."""
    session = open_session(services, audience.identity, conn)
    rights = [audience.identity, session.user, sorted(session.engine.catalogs())]
    if audience.shared is not None:
        rights.append(audience.shared)
    question_ids = sorted({card["question_id"] for card in dashboard["cards"] if card["question_id"] is not None})
    question_rows = conn.execute("select question_id, md5(q::text) from questions q where question_id = any(%s) "
                                 "order by question_id", (question_ids,)).fetchall()
    parts = {"database": [services.settings.database_url, services.settings.workbench_database_name],
             "dashboard": dashboard, "questions": question_rows, "filters": values, "theme": theme,
             "pdf": theme is not None, "rights": rights}
    text = json.dumps(_canonical(parts), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> Any:
    """`value` with a stable order and form: sets sorted, dataclasses and mappings as sorted dicts."""
    if is_dataclass(value) and not isinstance(value, type):
        return {"__type__": type(value).__name__,
                **{item.name: _canonical(getattr(value, item.name)) for item in fields(value)}}
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in sorted(value.items(), key=lambda pair: str(pair[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True,
                                                                                       default=str))
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return f"{type(value).__name__}:{value!r}"


class ReusedReports:
    """Reports by key for `seconds`, at most `size` of them; a key being made is made once (the
    others wait for it). A failure is not kept: the next delivery tries again."""

    def __init__(self, seconds: float = REUSE_SECONDS, size: int = REUSE_AT_MOST):
        self.seconds, self.size = seconds, size
        self._lock = threading.Lock()
        self._made: OrderedDict[str, tuple[float, Report]] = OrderedDict()
        self._making: dict[str, threading.Lock] = {}
        self.hits = self.misses = 0

    def get_or_make(self, key: str, make: Callable[[], Report]) -> Report:
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:  # one maker per key; the others wait, then find it made
            found = self._find(key)
            if found is not None:
                return found
            with self._lock:
                self.misses += 1
            report = make()
            with self._lock:
                self._made[key] = (time.monotonic(), report)
                self._made.move_to_end(key)
                while len(self._made) > self.size:
                    self._made.popitem(last=False)
                self._making.pop(key, None)
            return report

    def _find(self, key: str) -> Report | None:
        with self._lock:
            now = time.monotonic()
            for stale in [k for k, (made_at, _) in self._made.items() if now - made_at > self.seconds]:
                del self._made[stale]
            if key in self._made:
                self.hits += 1
                return self._made[key][1]
            return None

    def clear(self) -> None:
        with self._lock:
            self._made.clear()
            self.hits = self.misses = 0


reused = ReusedReports()
