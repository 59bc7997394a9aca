"""/api/v1/sites/{id}/server-keys: create (secret shown once), list, revoke."""
from __future__ import annotations

from flask import Blueprint

from collector_app.admin_api.http import actor, json_body, respond
from collector_app.database import transaction
from pipelines.admin import server_keys
from pipelines.admin.validation import reject_nulls, reject_unknown

blueprint = Blueprint("server_keys", __name__)


@blueprint.post("/sites/<site_id>/server-keys")
def create_key(site_id: str):
    body = json_body()
    reject_unknown(body, ("name", "rate_limit_per_minute"))
    reject_nulls(body)
    with transaction() as conn:
        key = server_keys.create_server_key(conn, site_id, actor=actor(), name=body.get("name"),
                                            rate_limit_per_minute=body.get("rate_limit_per_minute"))
    return respond(key, 201, {"Cache-Control": "no-store"})


@blueprint.get("/sites/<site_id>/server-keys")
def list_keys(site_id: str):
    with transaction() as conn:
        return respond({"server_keys": server_keys.list_server_keys(conn, site_id)})


@blueprint.get("/sites/<site_id>/server-keys/<key_id>")
def get_key(site_id: str, key_id: str):
    with transaction() as conn:
        return respond(server_keys.get_server_key(conn, site_id, key_id))


@blueprint.patch("/sites/<site_id>/server-keys/<key_id>")
def update_key(site_id: str, key_id: str):
    body = json_body()
    reject_nulls(body)
    with transaction() as conn:
        return respond(server_keys.update_server_key(conn, site_id, key_id, body, actor=actor()))


@blueprint.delete("/sites/<site_id>/server-keys/<key_id>")
def revoke_key(site_id: str, key_id: str):
    with transaction() as conn:
        return respond(server_keys.revoke_server_key(conn, site_id, key_id, actor=actor()))
