"""Metadata of a site: declared events, zones, goals, classifications, annotations, channel rules."""
from __future__ import annotations

from flask import Blueprint, request

from collector_app.admin_api.http import actor, date_arg, int_arg, json_body, no_content, respond, text_arg
from collector_app.database import transaction
from collector_app.errors import ApiError
from pipelines.admin import annotations, channel_rules, classifications, declared_events, goals, zones

blueprint = Blueprint("metadata", __name__)


# Declared events ---------------------------------------------------------------------------

@blueprint.get("/sites/<site_id>/events")
def list_events(site_id: str):
    with transaction() as conn:
        return respond({"events": declared_events.list_events(conn, site_id)})


@blueprint.post("/sites/<site_id>/events")
def create_event(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(declared_events.create_event(conn, site_id, body, actor=actor()), 201)


@blueprint.get("/sites/<site_id>/events/<name>")
def get_event(site_id: str, name: str):
    with transaction() as conn:
        return respond(declared_events.get_event(conn, site_id, name))


@blueprint.put("/sites/<site_id>/events/<name>")
def replace_event(site_id: str, name: str):
    body = json_body()
    with transaction() as conn:
        return respond(declared_events.replace_event(conn, site_id, name, body, actor=actor()))


@blueprint.delete("/sites/<site_id>/events/<name>")
def delete_event(site_id: str, name: str):
    with transaction() as conn:
        declared_events.delete_event(conn, site_id, name, actor=actor())
    return no_content()


# Zones -------------------------------------------------------------------------------------

@blueprint.get("/sites/<site_id>/zones")
def list_zones(site_id: str):
    with transaction() as conn:
        return respond({"zones": zones.list_zones(conn, site_id)})


@blueprint.post("/sites/<site_id>/zones")
def create_zone(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(zones.create_zone(conn, site_id, body, actor=actor()), 201)


@blueprint.get("/sites/<site_id>/zones/<name>")
def get_zone(site_id: str, name: str):
    with transaction() as conn:
        return respond(zones.get_zone(conn, site_id, name))


@blueprint.put("/sites/<site_id>/zones/<name>")
def replace_zone(site_id: str, name: str):
    body = json_body()
    with transaction() as conn:
        return respond(zones.replace_zone(conn, site_id, name, body, actor=actor()))


@blueprint.delete("/sites/<site_id>/zones/<name>")
def delete_zone(site_id: str, name: str):
    with transaction() as conn:
        zones.delete_zone(conn, site_id, name, actor=actor())
    return no_content()


# Goals -------------------------------------------------------------------------------------

@blueprint.get("/sites/<site_id>/goals")
def list_goals(site_id: str):
    with transaction() as conn:
        return respond({"goals": goals.list_goals(conn, site_id)})


@blueprint.post("/sites/<site_id>/goals")
def create_goal(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(goals.create_goal(conn, site_id, body, actor=actor()), 201)


@blueprint.get("/sites/<site_id>/goals/<goal_id>")
def get_goal(site_id: str, goal_id: str):
    with transaction() as conn:
        return respond(goals.get_goal(conn, site_id, goal_id))


@blueprint.put("/sites/<site_id>/goals/<goal_id>")
def replace_goal(site_id: str, goal_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(goals.replace_goal(conn, site_id, goal_id, body, actor=actor()))


@blueprint.delete("/sites/<site_id>/goals/<goal_id>")
def delete_goal(site_id: str, goal_id: str):
    with transaction() as conn:
        goals.delete_goal(conn, site_id, goal_id, actor=actor())
    return no_content()


# Classifications ---------------------------------------------------------------------------

@blueprint.post("/sites/<site_id>/classifications/import")
def import_classifications(site_id: str):
    if request.mimetype == "multipart/form-data":
        upload = request.files.get("file")
        if upload is None:
            raise ApiError(400, "missing_file", "Send the CSV as the multipart field 'file'.")
        data = upload.read()
    else:
        data = request.get_data(cache=False)
    with transaction() as conn:
        return respond(classifications.import_csv(conn, site_id, data, actor=actor()))


@blueprint.get("/sites/<site_id>/classifications")
def list_classifications(site_id: str):
    dimension, attribute = text_arg("dimension", max_length=63), text_arg("attribute", max_length=63)
    limit = int_arg("limit", default=100, minimum=1, maximum=1000)
    offset = int_arg("offset", default=0, minimum=0, maximum=10_000_000)
    with transaction() as conn:
        return respond(classifications.list_classifications(conn, site_id, dimension=dimension, attribute=attribute,
                                                            limit=limit, offset=offset))


@blueprint.delete("/sites/<site_id>/classifications")
def delete_classifications(site_id: str):
    dimension, attribute = text_arg("dimension", max_length=63), text_arg("attribute", max_length=63)
    with transaction() as conn:
        deleted = classifications.delete_classifications(conn, site_id, dimension=dimension, attribute=attribute,
                                                         actor=actor())
    return respond({"deleted": deleted})


# Annotations -------------------------------------------------------------------------------

@blueprint.get("/sites/<site_id>/annotations")
def list_annotations(site_id: str):
    date_from, date_to = date_arg("from"), date_arg("to")
    with transaction() as conn:
        return respond({"annotations": annotations.list_annotations(conn, site_id, date_from=date_from,
                                                                    date_to=date_to)})


@blueprint.post("/sites/<site_id>/annotations")
def create_annotation(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(annotations.create_annotation(conn, site_id, body, actor=actor()), 201)


@blueprint.get("/sites/<site_id>/annotations/<annotation_id>")
def get_annotation(site_id: str, annotation_id: str):
    with transaction() as conn:
        return respond(annotations.get_annotation(conn, site_id, annotation_id))


@blueprint.put("/sites/<site_id>/annotations/<annotation_id>")
def replace_annotation(site_id: str, annotation_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(annotations.replace_annotation(conn, site_id, annotation_id, body, actor=actor()))


@blueprint.delete("/sites/<site_id>/annotations/<annotation_id>")
def delete_annotation(site_id: str, annotation_id: str):
    with transaction() as conn:
        annotations.delete_annotation(conn, site_id, annotation_id, actor=actor())
    return no_content()


# Channel rules -----------------------------------------------------------------------------

@blueprint.get("/sites/<site_id>/channel-rules")
def get_channel_rules(site_id: str):
    with transaction() as conn:
        return respond(channel_rules.get_rules(conn, site_id))


@blueprint.put("/sites/<site_id>/channel-rules")
def replace_channel_rules(site_id: str):
    body = json_body()
    with transaction() as conn:
        return respond(channel_rules.replace_rules(conn, site_id, body, actor=actor()))


@blueprint.post("/sites/<site_id>/channel-rules/reset")
def reset_channel_rules(site_id: str):
    with transaction() as conn:
        return respond(channel_rules.reset_rules(conn, site_id, actor=actor()))
