"""`GET /dashboards/<id>/pdf`: the dashboard as the viewer sees it (filters as in its URL:
`?f.<filter id>=value`), printed on A4 by Chromium with the theme that applies."""
from __future__ import annotations

from flask import Blueprint

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, services
from workbench_app.content import dashboards
from workbench_app.printing.dashboard_pdf import render_dashboard_pdf
from workbench_app.printing.pdf_request import pdf_response, requested_filters, requested_orientation, theme_for

blueprint = Blueprint("printing", __name__)


@blueprint.get("/dashboards/<dashboard_id>/pdf")
def dashboard_pdf(dashboard_id):
    dashboard_id = check.path_id(dashboard_id, "Dashboard")
    orientation = requested_orientation()
    filters = requested_filters()
    with services().transaction() as conn:
        dashboards.get_dashboard(conn, identity(), dashboard_id)
        theme = theme_for(conn, dashboard_id, orientation)
    return pdf_response(render_dashboard_pdf(identity(), dashboard_id, filters, theme), dashboard_id)
