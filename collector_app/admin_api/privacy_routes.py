"""/api/v1/sites/{id}/privacy-requests: export and erasure of one person's data."""
from __future__ import annotations

from flask import Blueprint, current_app, send_file

from collector_app.admin_api.http import actor, json_body, respond, text_arg
from collector_app.database import transaction
from collector_app.errors import ApiError
from pipelines.admin import privacy_requests
from pipelines.admin.errors import InvalidInput
from pipelines.admin.validation import reject_unknown

blueprint = Blueprint("privacy_requests", __name__)


@blueprint.post("/sites/<site_id>/privacy-requests")
def create_request(site_id: str):
    body = json_body()
    reject_unknown(body, ("kind", "user_id", "visitor"))
    subjects = [kind for kind in privacy_requests.SUBJECT_KINDS if kind in body]
    if len(subjects) != 1:
        raise InvalidInput("give exactly one of user_id or visitor", {"field": "user_id"})
    settings = current_app.config["ANALYTICS_SETTINGS"]
    with transaction() as conn:
        request_id = privacy_requests.create_request(
            conn, site_id, body.get("kind"), subjects[0], body[subjects[0]], actor(),
            subject_key=privacy_requests.subject_key(settings))
        record = privacy_requests.get_request(conn, site_id, request_id)
    return respond(record, 202, {"Location": f"/api/v1/sites/{site_id}/privacy-requests/{request_id}"})


@blueprint.get("/sites/<site_id>/privacy-requests")
def list_requests(site_id: str):
    state = text_arg("state", max_length=20)
    if state is not None and state not in privacy_requests.STATES:
        raise ApiError(400, "invalid_parameter", "state must be one of pending, running, done, failed",
                       {"parameter": "state"})
    with transaction() as conn:
        return respond({"privacy_requests": privacy_requests.list_requests(conn, site_id, state=state)})


@blueprint.get("/sites/<site_id>/privacy-requests/<request_id>")
def get_request(site_id: str, request_id: str):
    with transaction() as conn:
        return respond(privacy_requests.get_request(conn, site_id, request_id))


@blueprint.get("/sites/<site_id>/privacy-requests/<request_id>/export")
def download_export(site_id: str, request_id: str):
    with transaction() as conn:
        record = privacy_requests.get_request(conn, site_id, request_id)
    if record["kind"] != "export":
        raise ApiError(409, "not_an_export", "This request is an erasure: it has nothing to download.")
    if record["state"] != "done":
        raise ApiError(409, "export_not_ready", f"The export is {record['state']}; try again once it is done.",
                       {"state": record["state"]})
    path = privacy_requests.export_path(current_app.config["ANALYTICS_SETTINGS"], record["id"])
    if not path.is_file():
        raise ApiError(410, "export_gone", "The export file is no longer available; create a new request.")
    response = send_file(path, mimetype="application/x-ndjson", as_attachment=True,
                         download_name=f"export-{record['id']}.jsonl", max_age=0)
    response.headers["Cache-Control"] = "no-store"
    return response
