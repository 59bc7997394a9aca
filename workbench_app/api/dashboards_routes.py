"""Dashboards: the object model (tabs, cards, filters linked to card fields) and card runs."""
from __future__ import annotations

from flask import Blueprint, g, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, origin, require_admin, services
from workbench_app.content import dashboards, result_cache
from workbench_app.home import site_reports
from workbench_app.content.shapes import CardRun, DashboardChange, NewDashboard, ValuesQuery
from workbench_app.request_shapes import validated, validated_query
from workbench_app.sharing import shared_view

blueprint = Blueprint("dashboards", __name__)


@blueprint.get("/dashboards")
def list_dashboards():
    with services().transaction() as conn:
        site_reports.keep_up(services().settings, conn)
        return jsonify({"dashboards": dashboards.list_dashboards(conn, identity())})


@blueprint.post("/dashboards")
def create_dashboard():
    fields = validated(NewDashboard, json_body()).given()
    with services().transaction() as conn:
        return jsonify(dashboards.create_dashboard(conn, identity(), fields)), 201


@blueprint.get("/dashboard-cache")
def cache_counts():
    """Administrators: each dashboard's cache hits, misses, hit ratio and fresh entries."""
    require_admin()
    with services().transaction() as conn:
        return jsonify({"dashboards": result_cache.cache_counts(conn)})


def _shared_print():
    """The shared view a print ticket was issued for (a public link's or an embed's print), or None."""
    ticket = getattr(g, "print_ticket", None)
    return ticket.shared if ticket is not None else None


@blueprint.get("/dashboards/<dashboard_id>")
def get_dashboard(dashboard_id):
    dashboard_id = check.path_id(dashboard_id, "Dashboard")
    with services().transaction() as conn:
        if (shared := _shared_print()) is not None:
            # As the shared page sees it: each filter marked settable, so the print sets only those.
            return jsonify(shared_view.shared_dashboard(conn, shared))
        return jsonify(dashboards.get_dashboard(conn, identity(), dashboard_id))


@blueprint.put("/dashboards/<dashboard_id>")
def update_dashboard(dashboard_id):
    """Change a dashboard; `tabs`, `cards` and `filters`, when given, replace the layout whole."""
    fields = validated(DashboardChange, json_body()).given()
    with services().transaction() as conn:
        return jsonify(dashboards.update_dashboard(conn, identity(), check.path_id(dashboard_id, "Dashboard"), fields))


@blueprint.delete("/dashboards/<dashboard_id>")
def delete_dashboard(dashboard_id):
    with services().transaction() as conn:
        dashboards.delete_dashboard(conn, identity(), check.path_id(dashboard_id, "Dashboard"))
    return "", 204


@blueprint.post("/dashboards/<dashboard_id>/cards/<card_id>/run")
def run_card(dashboard_id, card_id):
    """Run a card with filter values keyed by filter id or name: `{"filters": {"country": "FR"}}`."""
    body = json_body(optional=True)
    dashboard_id, card_id = check.path_id(dashboard_id, "Dashboard"), check.path_id(card_id, "Card")
    run = validated(CardRun, body)
    filters, row_limit = run.filters, run.row_limit
    if (shared := _shared_print()) is not None:
        # The print of a public link or an embed: the shared page's own checks, not the session's.
        return jsonify(shared_view.run_card(services(), shared, card_id, filters, row_limit=row_limit))
    return jsonify(dashboards.run_card(services(), identity(), dashboard_id, card_id, filters,
                                       origin=origin(), row_limit=row_limit))


@blueprint.get("/dashboards/<dashboard_id>/filters/<filter_id>/values")
def filter_values(dashboard_id, filter_id):
    """A one-of filter's values (at most 200, `?search=` narrows), read under the viewer's rights."""
    return jsonify(dashboards.filter_values_list(
        services(), identity(), check.path_id(dashboard_id, "Dashboard"), check.path_id(filter_id, "Filter"),
        validated_query(ValuesQuery, request.args).search, origin=origin()))
