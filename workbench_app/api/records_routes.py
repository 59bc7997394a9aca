"""Query history (one's own; administrators everyone's) and the audit log (administrators)."""
from __future__ import annotations

import datetime as dt

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, query_int, require_admin, services
from workbench_app.errors import invalid
from workbench_app.records import audit_log, query_history

blueprint = Blueprint("records", __name__)


def _before():
    raw = check.single_query_value(request.args, "before")
    return check.path_id(raw, "Entry") if raw is not None else None


@blueprint.get("/history")
def history():
    who = identity()
    everyone = check.query_choice(request.args, "all", ("true", "false")) == "true" and who.is_admin
    origin = check.query_choice(request.args, "origin", query_history.ORIGINS)
    with services().transaction() as conn:
        runs = query_history.list_runs(conn, user_id=None if everyone else who.user_id, origin=origin,
                                       limit=query_int("limit", 100), before_id=_before())
    return jsonify({"queries": runs})


def _day(name: str) -> dt.date | None:
    raw = request.args.get(name)
    if raw is None:
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise invalid(f"{name} must be a date (YYYY-MM-DD).", field=name) from None


@blueprint.get("/audit")
def audit():
    require_admin()
    prefix = check.query_text(request.args, "action") or None
    actor = check.query_text(request.args, "actor") or None
    with services().transaction() as conn:
        entries = audit_log.list_entries(conn, action_prefix=prefix, actor=actor, since=_day("since"),
                                         until=_day("until"), limit=query_int("limit", 100), before_id=_before())
    return jsonify({"entries": entries})
