"""`GET /dashboards/<id>/pdf`: the dashboard as the viewer sees it (filters as in its URL:
`?f.<filter id>=value`), printed on A4 by Chromium with the theme that applies."""
from __future__ import annotations

import copy

from flask import Blueprint, Response, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, services
from workbench_app.content import dashboards
from workbench_app.errors import invalid
from workbench_app.printing.dashboard_pdf import render_dashboard_pdf
from workbench_app.themes.resolution import effective_theme
from workbench_app.themes.settings import ORIENTATIONS

blueprint = Blueprint("printing", __name__)
FILTER_PREFIX = "f."


@blueprint.get("/dashboards/<dashboard_id>/pdf")
def dashboard_pdf(dashboard_id):
    dashboard_id = check.path_id(dashboard_id, "Dashboard")
    orientation = check.single_query_value(request.args, "orientation")
    if orientation is not None and orientation not in ORIENTATIONS:
        raise invalid("orientation must be portrait or landscape.", field="orientation")
    filters = {}
    for name in request.args:
        if name.startswith(FILTER_PREFIX):
            filters[name[len(FILTER_PREFIX):]] = check.single_query_value(request.args, name)
    with services().transaction() as conn:
        dashboards.get_dashboard(conn, identity(), dashboard_id)
        theme = effective_theme(conn, dashboard_id=dashboard_id)
    if orientation is not None:
        theme = copy.deepcopy(theme)
        theme["settings"]["pdf"]["orientation"] = orientation
    pdf = render_dashboard_pdf(identity(), dashboard_id, filters, theme)
    return Response(pdf, mimetype="application/pdf", headers={
        "Content-Disposition": f'attachment; filename="dashboard-{dashboard_id}.pdf"', "Cache-Control": "no-store"})
