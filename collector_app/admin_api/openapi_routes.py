"""GET /api/v1/openapi.json: the OpenAPI 3.1 description of the whole collector (public)."""
from __future__ import annotations

from flask import Blueprint, Response

from collector_app.openapi import openapi_json

blueprint = Blueprint("openapi", __name__)


@blueprint.get("/openapi.json")
def openapi_document():
    return Response(openapi_json(), mimetype="application/json")
