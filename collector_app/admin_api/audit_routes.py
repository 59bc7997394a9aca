"""/api/v1/audit: the audit log, newest first, paginated backwards."""
from __future__ import annotations

from flask import Blueprint

from collector_app.admin_api.http import datetime_arg, int_arg, respond, text_arg
from collector_app.database import transaction
from pipelines.admin import audit_log

blueprint = Blueprint("audit", __name__)


@blueprint.get("/audit")
def list_audit():
    action = text_arg("action", max_length=100)
    since = datetime_arg("since")
    before = int_arg("before", default=0, minimum=1, maximum=2**62) or None
    limit = int_arg("limit", default=100, minimum=1, maximum=audit_log.MAX_LIMIT)
    with transaction() as conn:
        return respond(audit_log.list_entries(conn, action=action, since=since, before_id=before, limit=limit))
