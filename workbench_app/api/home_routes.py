"""`/api/v1/home` and the pins: the home page's one read, and what administrators pin for everyone."""
from __future__ import annotations

import logging

from flask import Blueprint, Response, g, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, require_admin, services
from workbench_app.home import next_steps, pins, recent_items, site_reports

log = logging.getLogger(__name__)
blueprint = Blueprint("home", __name__)
# The item routes whose successful answer means "opened" (GET) or "changed" (PUT, PATCH).
_ITEM_ROUTES = {
    ("/api/v1/dashboards/<dashboard_id>", "GET"): ("dashboard", "dashboard_id"),
    ("/api/v1/dashboards/<dashboard_id>", "PUT"): ("dashboard", "dashboard_id"),
    ("/api/v1/questions/<question_id>", "GET"): ("question", "question_id"),
    ("/api/v1/questions/<question_id>", "PATCH"): ("question", "question_id"),
}


@blueprint.get("/home")
def home():
    """What the person opened or changed last, the pins they may read, and an administrator's next steps."""
    who = identity()
    settings = services().settings
    with services().transaction() as conn:
        site_reports.keep_up(settings, conn)
        answer = {
            "recent": recent_items.listing(conn, who) if who.user_id is not None else [],
            "pinned": pins.listing(conn, who),
            "can_pin": who.is_admin,
            "next_steps": next_steps.next_steps(conn, settings) if who.is_admin else None,
            "collector_url": next_steps.collector_address(settings) if who.is_admin else None,
        }
    return jsonify(answer)


def _pinning(who, kind: str, item_id: str, pinned: bool):
    item = check.path_id(item_id, kind.capitalize())
    with services().transaction() as conn:
        (pins.pin if pinned else pins.unpin)(conn, who, kind, item)
    return "", 204


@blueprint.put("/home/pins/dashboards/<dashboard_id>")
def pin_dashboard(dashboard_id):
    who = require_admin()
    return _pinning(who, "dashboard", dashboard_id, True)


@blueprint.delete("/home/pins/dashboards/<dashboard_id>")
def unpin_dashboard(dashboard_id):
    who = require_admin()
    return _pinning(who, "dashboard", dashboard_id, False)


@blueprint.put("/home/pins/questions/<question_id>")
def pin_question(question_id):
    who = require_admin()
    return _pinning(who, "question", question_id, True)


@blueprint.delete("/home/pins/questions/<question_id>")
def unpin_question(question_id):
    who = require_admin()
    return _pinning(who, "question", question_id, False)


def remember_visit(response: Response) -> Response:
    """After-request hook of /api/v1: record the item a person's successful request opened or changed."""
    rule = request.url_rule
    target = _ITEM_ROUTES.get((rule.rule if rule is not None else "", request.method))
    if target is None or not 200 <= response.status_code < 300:
        return response
    who = getattr(g, "identity", None)
    # The web application's session only: a program's token, a print ticket or a shared link is not
    # a person opening something.
    if who is None or who.user_id is None or getattr(g, "web_session", None) is None \
            or getattr(g, "print_ticket", None) is not None:
        return response
    try:
        with services().transaction() as conn:
            recent_items.record(conn, who.user_id, target[0], int((request.view_args or {})[target[1]]))
    except Exception:  # noqa: BLE001 - the answer is ready: a lost "recent" line must not spoil it
        log.exception("could not record a recent item")
    return response
