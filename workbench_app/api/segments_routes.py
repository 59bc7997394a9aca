"""Saved segments: conditions on visits that questions and dashboards filter by (content/segments.py)."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, services
from workbench_app.content import segments
from workbench_app.content.shapes import NewSegment, SegmentChange, SegmentsQuery
from workbench_app.request_shapes import validated, validated_query

blueprint = Blueprint("segments", __name__)


@blueprint.get("/segments")
def list_segments():
    query = validated_query(SegmentsQuery, request.args)
    with services().transaction() as conn:
        return jsonify({"segments": segments.list_segments(conn, identity(), query.folder_id)})


@blueprint.post("/segments")
def create_segment():
    fields = validated(NewSegment, json_body()).given()
    with services().transaction() as conn:
        return jsonify(segments.create_segment(conn, identity(), fields)), 201


@blueprint.get("/segments/<segment_id>")
def get_segment(segment_id):
    with services().transaction() as conn:
        return jsonify(segments.get_segment(conn, identity(), check.path_id(segment_id, "Segment")))


@blueprint.patch("/segments/<segment_id>")
def update_segment(segment_id):
    fields = validated(SegmentChange, json_body()).given()
    with services().transaction() as conn:
        return jsonify(segments.update_segment(conn, identity(), check.path_id(segment_id, "Segment"), fields))


@blueprint.delete("/segments/<segment_id>")
def delete_segment(segment_id):
    with services().transaction() as conn:
        segments.delete_segment(conn, identity(), check.path_id(segment_id, "Segment"))
    return "", 204
