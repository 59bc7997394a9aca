"""A shared dashboard as PDF: the print of a public link or an embed, when the share allows it.

The same print as a person's (`printing.dashboard_pdf`, its bounded queue of browsers), under the
shared view's identity (the link's creator as they are now, or the embed's account with the token's
attributes), with only the filters the link opens and the theme that applies to the dashboard. The
print ticket carries the shared view, so the headless page's card runs are checked as the shared
page's are.
"""
from __future__ import annotations

from workbench_app.errors import WorkbenchError
from workbench_app.printing.dashboard_pdf import render_dashboard_pdf
from workbench_app.printing.pdf_request import theme_for
from workbench_app.services import WorkbenchServices
from workbench_app.sharing import shared_view
from workbench_app.sharing.shared_view import SharedView


def shared_pdf(services: WorkbenchServices, view: SharedView, filters: dict[str, str],
               orientation: str | None) -> bytes:
    """The PDF, or 403 `pdf_not_allowed` when the link or the token does not offer it."""
    if not view.allow_pdf:
        raise WorkbenchError(403, "pdf_not_allowed", "This shared dashboard is not offered as PDF.")
    with services.transaction() as conn:
        shared_view.check_settable(conn, view, filters)
        theme = theme_for(conn, view.dashboard_id, orientation)
    return render_dashboard_pdf(view.identity, view.dashboard_id, filters, theme, shared=view)
