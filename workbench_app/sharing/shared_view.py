"""Who runs a shared dashboard, which dashboard, and which filters a caller may set.

`resolve` is the one check behind every call of a public link or a signed embed (the page, the
dashboard, each card run, each CSV, each one-of filter's values; a PDF of a shared dashboard reuses it): a public link runs
under its creator's rights as they are now, with the filters chosen at creation; an embed token
runs as its secret's account, in the secret's group, with the token's attributes, on the one
dashboard it names, with every filter of that dashboard. Whether the view may be printed as PDF
comes from the link (chosen at creation) or the token (its `download_pdf` permission).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import psycopg
from flask import Response

from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards
from workbench_app.errors import invalid, not_found
from workbench_app.services import WorkbenchServices
from workbench_app.sharing import embed_tokens, public_links
from workbench_app.statements import csv_export

HISTORY_ORIGIN = "embed"


@dataclass(frozen=True)
class SharedView:
    kind: str  # "public_link" or "embed"
    identity: Identity  # whose rights the statements run under
    dashboard_id: int
    allowed_filters: frozenset[str] | None  # filter names a caller may set; None: every filter
    frame_origins: tuple[str, ...] = ()  # host pages that may frame it (embeds)
    link_id: int | None = None
    embed_user: str | None = None  # the token's user.id (the host's own person)
    allow_pdf: bool = False  # the link's choice, or the token's download_pdf permission


def resolve(conn: psycopg.Connection, settings: Settings, *, link_secret: str | None = None,
            embed_token: str | None = None) -> SharedView:
    """The shared view of a public link's secret or an embed token; 404 for a link that is unknown
    or revoked, 401 for a token that is not valid now."""
    if link_secret is not None:
        link = public_links.find_link(conn, link_secret)
        if link is None:
            raise not_found("Link")
        return link_view(link)
    claims = embed_tokens.verify(conn, settings, embed_token)
    account = Identity(claims.account_id, claims.account_email, False, attributes=claims.attributes)
    return SharedView("embed", account, claims.dashboard_id, None, claims.allowed_origins, embed_user=claims.user_id,
                      allow_pdf=embed_tokens.DOWNLOAD_PDF in claims.permissions)


def newest_link_view(conn: psycopg.Connection, dashboard_id: int) -> SharedView | None:
    """The view of the dashboard's newest live public link, or None when it has none."""
    link = public_links.newest_live_link(conn, dashboard_id)
    return link_view(link) if link else None


def link_view(link: dict[str, Any]) -> SharedView:
    """The view of a live public link (its row as `public_links.find_link` reads it)."""
    creator = Identity(link["user_id"], link["email"], link["is_admin"], locale=link["locale"])
    return SharedView("public_link", creator, link["dashboard_id"], frozenset(link["allowed_filters"]),
                      link_id=link["link_id"], allow_pdf=link["allow_pdf"])


def shared_dashboard(conn: psycopg.Connection, view: SharedView) -> dict[str, Any]:
    """The dashboard as the view's identity sees it, each filter marked `settable` or not."""
    dashboard = dashboards.get_dashboard(conn, view.identity, view.dashboard_id)
    for item in dashboard["filters"]:
        item["settable"] = view.allowed_filters is None or item["name"] in view.allowed_filters
    dashboard["share"] = {"kind": view.kind, "allowed_origins": list(view.frame_origins), "allow_pdf": view.allow_pdf}
    return dashboard


def check_settable(conn: psycopg.Connection, view: SharedView, filter_values: dict[str, Any]) -> None:
    """Refuse values for filters the link did not open, naming the filter."""
    if view.allowed_filters is None or not filter_values:
        return
    names = {str(item["filter_id"]): item["name"]
             for item in dashboards.get_dashboard(conn, view.identity, view.dashboard_id)["filters"]}
    for key in filter_values:
        name = names.get(key, key)
        if name not in view.allowed_filters:
            raise invalid(f"The filter {name} may not be set on this shared dashboard.", field=f"filters.{name}")


def run_card(services: WorkbenchServices, view: SharedView, card_id: int, filter_values: dict[str, Any],
             row_limit: int | None = None) -> dict[str, Any]:
    """One card of the shared dashboard (a card of another dashboard is not found)."""
    with services.transaction() as conn:
        check_settable(conn, view, filter_values)
    # Filters the link did not open keep their defaults.
    return dashboards.run_card(services, view.identity, view.dashboard_id, card_id, filter_values,
                               origin=HISTORY_ORIGIN, row_limit=row_limit)


def filter_values(services: WorkbenchServices, view: SharedView, filter_id: int, search: str | None) -> dict[str, Any]:
    """A one-of filter's values under the view's identity (its row filters apply), for a filter the
    view may set: a public link lists the values of the filters it opens only."""
    with services.transaction() as conn:
        check_settable(conn, view, {str(filter_id): None})
    return dashboards.filter_values_list(services, view.identity, view.dashboard_id, filter_id, search,
                                         origin=HISTORY_ORIGIN)


def card_csv(services: WorkbenchServices, view: SharedView, card_id: int, filter_values: dict[str, Any]) -> Response:
    """One card's result as CSV, bounded by the export row limit, with the same checks as a run."""
    bound = services.settings.workbench_export_row_limit
    result = run_card(services, view, card_id, filter_values, row_limit=bound)
    rows = SimpleNamespace(columns=[column["name"] for column in result["columns"]], rows=result["rows"],
                           truncated=result["truncated"])
    return csv_export.response(rows, f"card_{card_id}")
