"""What a delivered report holds for one audience: each card's figures, the A4 PDF and images of
the first cards, computed at sending time under the audience's rights.

An audience is a workbench account (its own rights now: row filters, hidden columns) or, for an
external address or a webhook, the dashboard's public link (what a visitor of that link would see:
its creator's rights, only the filters it opens). Two recipients of one subscription can so
receive different figures, and nobody receives more than they could open themselves.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, questions
from workbench_app.errors import WorkbenchError
from workbench_app.printing.dashboard_pdf import CardImage, render_dashboard
from workbench_app.printing.pdf_request import theme_for
from workbench_app.services import WorkbenchServices
from workbench_app.sharing import shared_view
from workbench_app.sharing.shared_view import SharedView

HISTORY_ORIGIN = "subscription"
# Rows of each card a message shows (the PDF holds more; the workbench all).
ROWS_SHOWN = 10
# Cards shown as images in a message's body (the PDF has every card).
CARD_IMAGES = 3


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
                                card_images=CARD_IMAGES) if with_pdf else None)
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
