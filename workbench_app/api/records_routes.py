"""Query history (one's own; administrators everyone's) and the audit log (administrators)."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app.api.authentication import identity, require_admin, services
from workbench_app.records import audit_log, query_history
from workbench_app.records.shapes import AuditQuery, HistoryQuery
from workbench_app.request_shapes import validated_query

blueprint = Blueprint("records", __name__)


@blueprint.get("/history")
def history():
    who = identity()
    query = validated_query(HistoryQuery, request.args)
    everyone = query.all == "true" and who.is_admin
    with services().transaction() as conn:
        runs = query_history.list_runs(conn, user_id=None if everyone else who.user_id, origin=query.origin,
                                       limit=query.limit, before_id=query.before)
    return jsonify({"queries": runs})


@blueprint.get("/audit")
def audit():
    require_admin()
    query = validated_query(AuditQuery, request.args)
    with services().transaction() as conn:
        entries = audit_log.list_entries(conn, action_prefix=query.action or None, actor=query.actor or None,
                                         since=query.since, until=query.until, limit=query.limit,
                                         before_id=query.before)
    return jsonify({"entries": entries})
