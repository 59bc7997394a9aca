"""The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from pipelines.openapi_fragments import merge_fragment
from workbench_app.accounts import openapi_paths as accounts_openapi
from workbench_app.analyses import openapi_paths as analyses_openapi
from workbench_app.api.public_views import public, public_operations
from workbench_app.assistant import openapi_paths as assistant_openapi
from workbench_app.content import openapi_paths as content_openapi
from workbench_app.home import openapi_paths as home_openapi
from workbench_app.openapi_vocabulary import ERROR as _ERROR, ID as _ID, TEXT_NO_NUL as _STRING
from workbench_app.permissions import openapi_paths as permissions_openapi
from workbench_app.printing import openapi_paths as printing_openapi
from workbench_app.records import openapi_paths as records_openapi
from workbench_app.sharing import openapi_paths as sharing_openapi
from workbench_app.single_sign_on import openapi_paths as sso_openapi
from workbench_app.sources import openapi_paths as sources_openapi
from workbench_app.statements import openapi_paths as statements_openapi
from workbench_app.subscriptions import openapi_paths as subscriptions_openapi
from workbench_app.themes import openapi_paths as themes_openapi

blueprint = Blueprint("openapi", __name__)
# The paths below are relative to it.
SERVER_URL = "/api/v1"

_OBJECT = {"type": "object", "additionalProperties": True}
# gunicorn refuses a request line over its limit before the app sees it, with a page of its own.
_URI_TOO_LONG = {"description": "Request line over 4,094 bytes: refused by the HTTP server before the application "
                                "(an HTML page, not the JSON error)",
                 "content": {"text/html": {"schema": _STRING}}}


def _model_schemas(*models: type[BaseModel], mode: str = "serialization") -> dict[str, Any]:
    """The components of answers (or, `mode="validation"`, of request bodies) declared as models;
    their nested models become components too."""
    _, top = models_json_schema([(model, mode) for model in models], ref_template="#/components/schemas/{model}")
    return {name: _documented(schema) for name, schema in top["$defs"].items()}


def _documented(schema: Any) -> Any:
    """A model's JSON Schema as the document says it: without pydantic's titles (the component's name
    says it), and open to more fields (`extra="forbid"` is for the shapes' test: the print of a shared
    view, for one, answers a dashboard with its `share` too)."""
    if isinstance(schema, list):
        return [_documented(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    # A request field's `default: null` says only that it may be left out: `required` says that already.
    # The names under `properties` are fields, not keywords: a field may be named `title`.
    return {key: ({name: _documented(field) for name, field in value.items()} if key == "properties"
                  else _documented(value)) for key, value in schema.items()
            if key != "title" and not (key == "additionalProperties" and value is False)
            and not (key == "default" and value is None)}


def _operation(summary: str, tag: str, *, ok: int = 200, body: dict | None = None, result: dict | None = None,
               params: tuple[str, ...] = (), query: dict[str, dict] | None = None) -> dict:
    responses: dict[str, Any] = {}
    if ok == 204:
        responses["204"] = {"description": "Done"}
    else:
        responses[str(ok)] = {"description": "Success",
                              "content": {"application/json": {"schema": result or _OBJECT}}}
    for status, meaning in (("400", "Invalid input"), ("401", "Missing, unknown or revoked token"),
                            ("403", "Not allowed"), ("404", "Not found"), ("409", "Conflict"),
                            ("503", "Database or source unavailable")):
        responses[status] = {"description": meaning, "content": {"application/json": {"schema": _ERROR}}}
    operation: dict[str, Any] = {"summary": summary, "tags": [tag], "responses": responses,
                                 "operationId": summary.lower().replace(" ", "_").replace("'", "")}
    parameters = [{"name": name, "in": "path", "required": True, "schema": _ID} for name in params]
    for name, schema in (query or {}).items():
        parameters.append({"name": name, "in": "query", "required": False, "schema": schema})
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = body
        responses["422"] = {"description": "The body is missing or not a JSON object; nothing changed",
                            "content": {"application/json": {"schema": _ERROR}}}
    return operation


def _also(operation: dict[str, Any], *refusals: tuple[str, str]) -> dict[str, Any]:
    """An operation with refusals of its own beside the common ones."""
    for status, meaning in refusals:
        operation["responses"][status] = {"description": meaning,
                                          "content": {"application/json": {"schema": _ERROR}}}
    return operation


def _paths() -> dict[str, Any]:
    op = _operation
    return {
        "/openapi.json": {"get": op("Get the API description", "meta")},
    }


# The areas whose paths sit beside their code, each in its `openapi_paths.py`: (name, module, the
# helpers its `paths` takes). Their answer and request models become components together, in one
# generation (a model nested in two areas' answers is one component).
_AREAS = (("accounts", accounts_openapi, (_operation, _also)),
          ("permissions", permissions_openapi, (_operation, _also)),
          ("sources", sources_openapi, (_operation, _also)),
          ("statements", statements_openapi, (_operation, _also)),
          ("content", content_openapi, (_operation, _also)),
          ("analyses", analyses_openapi, (_operation, _also)),
          ("records", records_openapi, (_operation, _also)),
          ("assistant", assistant_openapi, (_operation, _also)),
          ("themes", themes_openapi, (_operation, _also)),
          ("printing", printing_openapi, (_operation, _also)),
          ("single_sign_on", sso_openapi, (_operation, _also)),
          ("sharing", sharing_openapi, (_operation, _also)),
          ("home", home_openapi, (_operation, _also)),
          ("subscriptions", subscriptions_openapi, (_operation, _also)))


def _area_fragments() -> list[tuple[str, dict[str, Any]]]:
    """Each area's part of the document (its `openapi_paths.py`, built with the document's own
    helpers), and the components generated from the answer and request models."""
    fragments = [(name, {"paths": module.paths(*helpers),
                         "components": {"schemas": getattr(module, "SCHEMAS", {})}}) for name, module, helpers in _AREAS]
    answers = [model for _, module, _ in _AREAS for model in getattr(module, "ANSWERS", ())]
    requests = [model for _, module, _ in _AREAS for model in getattr(module, "REQUESTS", ())]
    return fragments + [
        ("answer models", {"components": {"schemas": _model_schemas(*answers)}}),
        ("request models", {"components": {"schemas": _model_schemas(*requests, mode="validation")}}),
    ]


def _with_uri_too_long(paths: dict[str, Any]) -> dict[str, Any]:
    """Every operation may get the HTTP server's 414, whichever module described it."""
    for operations in paths.values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:  # not a path-level list
                operation["responses"].setdefault("414", _URI_TOO_LONG)
    return paths


def _public_without_security(paths: dict[str, Any], app: Flask) -> dict[str, Any]:
    """`security: []` on the operations of the views marked public (public_views.py), and on no other."""
    for path, method in public_operations(app.url_map.iter_rules(), app.view_functions, SERVER_URL):
        paths[path][method]["security"] = []
    return paths


def document(app: Flask) -> dict[str, Any]:
    """The document of the API registered on `app` (which views are public is read from it): its
    own paths and components, then each area's, merged by the rule the collector's document follows
    too (a path or component described twice is an error)."""
    merged = _own_document()
    for source, fragment in _area_fragments():
        merge_fragment(merged, fragment, source)
    _public_without_security(_with_uri_too_long(merged["paths"]), app)
    return merged


def _own_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Audience analytics workbench API", "version": "1.0.0",
                 "description": "Queries, saved content, sources and permissions of the analysis workbench. "
                                "Every statement runs under the token owner's permissions."},
        "servers": [{"url": SERVER_URL}],
        "security": [{"bearer": []}, {"session": [], "csrf": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer",
                           "description": "An API token (`wbt_...`): POST /auth/token or POST /tokens."},
                "session": {"type": "apiKey", "in": "cookie", "name": "wb_session",
                            "description": "The web application's session cookie (POST /session)."},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
                         "description": "With the session cookie, on every POST, PUT, PATCH and DELETE: the "
                                        "`csrf_token` of the session."}},
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                    "type": "object", "required": ["code", "message", "details"],
                    "properties": {"code": _STRING, "message": _STRING, "details": {}}}}},
            },
        },
    }


@public
@blueprint.get("/openapi.json")
def openapi_document():
    return jsonify(document(current_app))
