"""/api/v1/sites and a site's check figures."""
from __future__ import annotations

from flask import Blueprint

from collector_app.admin_api.http import actor, json_body, no_content, respond
from collector_app.database import transaction
from pipelines.admin import site_health, sites

blueprint = Blueprint("sites", __name__)


@blueprint.post("/sites")
def create_site():
    body = json_body()
    with transaction() as conn:
        site = sites.create_site(conn, body, actor=actor())
    return respond(site, 201, {"Location": f"/api/v1/sites/{site['id']}"})


@blueprint.get("/sites")
def list_sites():
    with transaction() as conn:
        return respond({"sites": sites.list_sites(conn)})


@blueprint.get("/sites/<site_id>")
def get_site(site_id: str):
    with transaction() as conn:
        return respond(sites.get_site(conn, site_id))


@blueprint.patch("/sites/<site_id>")
def update_site(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(sites.update_site(conn, site_id, body, actor=actor()))


@blueprint.delete("/sites/<site_id>")
def delete_site(site_id: str):
    with transaction() as conn:
        sites.delete_site(conn, site_id, actor=actor())
    return no_content()


@blueprint.get("/sites/<site_id>/health")
def health(site_id: str):
    with transaction() as conn:
        return respond(site_health.site_health(conn, site_id))
