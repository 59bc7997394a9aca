"""/api/v1/inbound-sources: configure inbound sources (admin bearer token).

Secrets and tokens are accepted in requests and never returned. Routes:
POST/GET /inbound-sources, GET/PATCH/DELETE /inbound-sources/<id>,
POST /inbound-sources/<id>/secrets, DELETE /inbound-sources/<id>/secrets/<secret id>,
GET /inbound-sources/<id>/figures, GET /inbound-sources/<id>/quarantine.
"""
from __future__ import annotations

from flask import Blueprint, Response

from collector_app.admin_api import require_admin_token
from collector_app.admin_api.http import actor, json_body, no_content, respond
from collector_app.database import transaction
from collector_app.inbound_api.receivers import sealing_key
from pipelines.inbound import sources

blueprint = Blueprint("inbound_sources", __name__, url_prefix="/api/v1")
# The same bearer admin tokens, body limit and audit identity as the rest of /api/v1.
blueprint.before_request(require_admin_token)


def _respond(value, status: int = 200) -> Response:
    return respond(value, status, {"Cache-Control": "no-store"})


@blueprint.post("/inbound-sources")
def create_source():
    body = json_body()
    with transaction() as conn:
        record = sources.create_source(conn, sealing_key(), body, actor=actor())
    response = _respond(record, 201)
    response.headers["Location"] = f"/api/v1/inbound-sources/{record['id']}"
    return response


@blueprint.get("/inbound-sources")
def list_sources():
    with transaction() as conn:
        return _respond({"inbound_sources": sources.list_sources(conn)})


@blueprint.get("/inbound-sources/<source_id>")
def get_source(source_id: str):
    with transaction() as conn:
        return _respond(sources.get_source(conn, source_id))


@blueprint.patch("/inbound-sources/<source_id>")
def update_source(source_id: str):
    body = json_body()
    with transaction() as conn:
        return _respond(sources.update_source(conn, sealing_key(), source_id, body, actor=actor()))


@blueprint.delete("/inbound-sources/<source_id>")
def delete_source(source_id: str):
    with transaction() as conn:
        sources.delete_source(conn, source_id, actor=actor())
    return no_content()


@blueprint.post("/inbound-sources/<source_id>/secrets")
def add_secret(source_id: str):
    body = json_body()
    with transaction() as conn:
        return _respond(sources.add_secret(conn, sealing_key(), source_id, body, actor=actor()), 201)


@blueprint.delete("/inbound-sources/<source_id>/secrets/<secret_id>")
def retire_secret(source_id: str, secret_id: str):
    with transaction() as conn:
        return _respond(sources.retire_secret(conn, source_id, secret_id, actor=actor()))


@blueprint.get("/inbound-sources/<source_id>/figures")
def figures(source_id: str):
    with transaction() as conn:
        return _respond(sources.source_figures(conn, source_id))


@blueprint.get("/inbound-sources/<source_id>/quarantine")
def quarantine(source_id: str):
    with transaction() as conn:
        return _respond({"quarantined": sources.quarantined_payloads(conn, source_id)})
