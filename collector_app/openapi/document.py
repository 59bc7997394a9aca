"""The OpenAPI 3.1 document of the collector, as a Python structure.

One place describes every endpoint: the administration API (`/api/v1`, admin token), the server
endpoints (`/collect/server`, server key), the browser endpoints (`/a.js`, `/collect`) and
`/healthz`. When an endpoint changes, change its entry here; the tests validate the document and
fuzz the administration API against it.
"""
from __future__ import annotations

from typing import Any

from pipelines.admin.goals import MAX_VALUE as MAX_GOAL_VALUE
from pipelines.admin.sites import ISO_4217, time_zones
from pipelines.ingest.event_model import schema_components as event_schema_components

VERSION = "1.0.0"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": _json(_ref("Error"))}


def _ok(description: str, schema: dict[str, Any] | None, status: str = "200", **extra: Any) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description}
    if schema is not None:
        response["content"] = _json(schema)
    response.update(extra)
    return {status: response}


_ADMIN_ERRORS = {
    "401": {"$ref": "#/components/responses/Unauthorized"},
    "503": {"$ref": "#/components/responses/DatabaseUnavailable"},
}
_WITH_BODY_ERRORS = {
    "400": {"$ref": "#/components/responses/BadRequest"},
    "413": {"$ref": "#/components/responses/PayloadTooLarge"},
    "422": {"$ref": "#/components/responses/ValidationFailed"},
}
_NOT_FOUND = {"404": {"$ref": "#/components/responses/NotFound"}}
_CONFLICT = {"409": {"$ref": "#/components/responses/Conflict"}}


def _admin(summary: str, responses: dict[str, Any], *, tag: str, operation_id: str, body: dict | None = None,
           body_required: bool = True, has_body_errors: bool | None = None, not_found: bool = True,
           conflict: bool = False, parameters: list | None = None, description: str | None = None) -> dict:
    operation: dict[str, Any] = {
        "tags": [tag], "summary": summary, "operationId": operation_id,
        "security": [{"adminToken": []}],
        "responses": {**responses, **_ADMIN_ERRORS},
    }
    if description:
        operation["description"] = description
    if parameters:
        operation["parameters"] = parameters
        if any(parameter["in"] == "query" for parameter in parameters):
            operation["responses"]["400"] = {"$ref": "#/components/responses/BadRequest"}
    if body is not None:
        operation["requestBody"] = {"required": body_required, "content": body}
    if has_body_errors if has_body_errors is not None else body is not None:
        operation["responses"].update(_WITH_BODY_ERRORS)
    if not_found:
        operation["responses"].update(_NOT_FOUND)
    if conflict:
        operation["responses"].update(_CONFLICT)
    return operation


def _path_param(name: str, description: str, schema: dict | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": schema or {"type": "string"}}


def _query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description, "schema": schema}


SITE_ID = _path_param("site_id", "Id of the site.", {"type": "string", "format": "uuid"})
_NO_CONTENT = {"204": {"description": "Done; no body."}}
_TIMESTAMP = {"type": "string", "format": "date-time"}
_NULLABLE_TIMESTAMP = {"type": ["string", "null"], "format": "date-time"}
_UUID = {"type": "string", "format": "uuid"}
_IDENTIFIER = {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,62}$"}
# One line of text with at least one visible character (surrounding spaces are trimmed).
_LINE = "^[^\\x00-\\x1f\\x7f]*[^\\x00-\\x20\\x7f][^\\x00-\\x1f\\x7f]*$"


# Text over several lines: anything PostgreSQL text can hold (no NUL).
_TEXT = "^[^\\x00]*$"


def _label(max_length: int = 200) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": max_length, "pattern": _LINE}


def _schemas() -> dict[str, Any]:
    domain = {"type": "string", "maxLength": 255,
              "pattern": "^(\\*\\.)?([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$",
              "description": "A host name (example.com) or a wildcard for its subdomains (*.example.com). "
                             "Stored lowercase, IDN as punycode, duplicates removed."}
    site_fields = {
        "name": _label(),
        "domains": {"type": "array", "items": domain, "maxItems": 100,
                    "description": "Origins whose browser events are accepted on POST /collect."},
        "tracking_mode": {"type": "string", "enum": ["cookieless", "cookie", "consent"]},
        "accept_user_id": {"type": "boolean", "description": "Whether server events may carry user_id."},
        "retention_months": {"type": "integer", "minimum": 1, "maximum": 120},
        "timezone": {"type": "string", "description": "IANA time zone, such as Europe/Paris.",
                     "enum": sorted(time_zones())},
        "currency": {"type": "string", "enum": sorted(ISO_4217), "description": "ISO 4217 code, such as EUR."},
    }
    event_property = {
        "type": "object", "additionalProperties": False, "required": ["name", "type", "label"],
        "properties": {
            "name": _IDENTIFIER,
            "type": {"type": "string", "enum": ["string", "number", "boolean", "timestamp"]},
            "label": _label(),
            "description": {"type": "string", "maxLength": 2000},
        },
    }
    channel_rule = {
        "type": "object", "additionalProperties": False, "required": ["channel"],
        "description": "Conditions that must all hold; a null pattern matches anything. Patterns are "
                       "case-insensitive regular expressions accepted by both Python and PostgreSQL.",
        "properties": {
            "channel": _label(100),
            "source_pattern": {"type": ["string", "null"], "maxLength": 500},
            "medium_pattern": {"type": ["string", "null"], "maxLength": 500},
            "campaign_pattern": {"type": ["string", "null"], "maxLength": 500},
            "source_category": {"type": ["string", "null"],
                                "enum": ["search", "social", "shopping", "video", "email", None]},
        },
    }
    return {
        "Error": {
            "type": "object", "required": ["error"], "additionalProperties": False,
            "properties": {"error": {
                "type": "object", "required": ["code", "message", "details"],
                "properties": {
                    "code": {"type": "string", "description": "Stable machine-readable code, such as validation_failed."},
                    "message": {"type": "string", "description": "Human-readable explanation."},
                    "details": {"description": "Structured context: the offending field, per-line CSV errors, ..."},
                },
            }},
        },
        "SiteCreate": {"type": "object", "additionalProperties": False, "required": ["name"],
                       "properties": site_fields},
        "SiteUpdate": {"type": "object", "additionalProperties": False, "properties": site_fields,
                       "description": "Only the given fields change; domains, when given, replaces the list."},
        "Site": {
            "type": "object",
            "required": ["id", "name", "domains", "tracking_mode", "accept_user_id", "retention_months",
                         "timezone", "currency", "created_at", "updated_at"],
            "properties": {"id": _UUID, **site_fields, "created_at": _TIMESTAMP, "updated_at": _TIMESTAMP,
                           "channel_rules_version": {"type": ["integer", "null"]}},
        },
        "SiteList": {"type": "object", "required": ["sites"],
                     "properties": {"sites": {"type": "array", "items": _ref("Site")}}},
        "Health": {
            "type": "object",
            "required": ["site_id", "at", "events_last_24h", "last_event_at", "seconds_since_last_event",
                         "rejected_last_24h", "rejected_last_24h_by_reason"],
            "properties": {
                "site_id": _UUID, "at": _TIMESTAMP,
                "events_last_24h": {"type": "integer", "minimum": 0},
                "last_event_at": _NULLABLE_TIMESTAMP,
                "seconds_since_last_event": {"type": ["integer", "null"], "minimum": 0},
                "rejected_last_24h": {"type": "integer", "minimum": 0},
                "rejected_last_24h_by_reason": {"type": "object", "additionalProperties": {"type": "integer"},
                                                "description": "For instance {\"origin_not_allowed\": 3}."},
            },
        },
        "ServerKeyCreate": {
            "type": "object", "additionalProperties": False,
            "properties": {"name": {"type": "string", "maxLength": 200},
                           "rate_limit_per_minute": {"type": "integer", "minimum": 1, "maximum": 1000000,
                                                     "description": "Events per minute; default 6000."}},
        },
        "ServerKey": {
            "type": "object",
            "required": ["id", "site_id", "name", "secret_hint", "rate_limit_per_minute", "created_at",
                         "last_used_at", "revoked_at", "state"],
            "properties": {
                "id": _UUID, "site_id": _UUID, "name": {"type": "string"},
                "secret_hint": {"type": "string", "description": "Last 4 characters of the secret."},
                "rate_limit_per_minute": {"type": "integer"},
                "created_at": _TIMESTAMP, "last_used_at": _NULLABLE_TIMESTAMP, "revoked_at": _NULLABLE_TIMESTAMP,
                "state": {"type": "string", "enum": ["active", "revoked"]},
            },
        },
        "ServerKeyCreated": {
            "allOf": [_ref("ServerKey"), {
                "type": "object", "required": ["secret"],
                "properties": {"secret": {"type": "string", "pattern": "^sk_[A-Za-z0-9_-]{43}$",
                                          "description": "Shown only in this response; stored hashed."}}}],
        },
        "ServerKeyList": {"type": "object", "required": ["server_keys"],
                          "properties": {"server_keys": {"type": "array", "items": _ref("ServerKey")}}},
        "EventProperty": event_property,
        "DeclaredEventInput": {
            "type": "object", "additionalProperties": False, "required": ["label"],
            "properties": {"name": _IDENTIFIER, "label": _label(),
                           "description": {"type": "string", "maxLength": 2000, "pattern": _TEXT},
                           "properties": {"type": "array", "maxItems": 100, "items": event_property}},
            "description": "On replacement name is optional and must match the path.",
        },
        "DeclaredEventCreate": {"allOf": [_ref("DeclaredEventInput"), {"required": ["name"]}]},
        "DeclaredEvent": {
            "type": "object", "required": ["name", "label", "description", "properties", "updated_at"],
            "properties": {"name": {"type": "string"}, "label": {"type": "string"},
                           "description": {"type": "string"},
                           "properties": {"type": "array", "items": event_property},
                           "updated_at": _TIMESTAMP},
        },
        "DeclaredEventList": {"type": "object", "required": ["events"],
                              "properties": {"events": {"type": "array", "items": _ref("DeclaredEvent")}}},
        "ZoneInput": {
            "type": "object", "additionalProperties": False, "required": ["selector", "label"],
            "properties": {"name": {"type": "string", "pattern": "^[a-z][a-z0-9_-]{0,62}$"},
                           "selector": {"type": "string", "minLength": 1, "maxLength": 500,
                                        "pattern": "^[^\\x00-\\x1f\\x7f{};]*[^\\x00-\\x20\\x7f{};][^\\x00-\\x1f\\x7f{};]*$",
                                        "description": "CSS selector of the zone's elements (no braces or ;)."},
                           "label": _label()},
            "description": "On replacement name is optional and must match the path.",
        },
        "ZoneCreate": {"allOf": [_ref("ZoneInput"), {"required": ["name"]}]},
        "Zone": {"type": "object", "required": ["name", "selector", "label"],
                 "properties": {"name": {"type": "string"}, "selector": {"type": "string"},
                                "label": {"type": "string"}}},
        "ZoneList": {"type": "object", "required": ["zones"],
                     "properties": {"zones": {"type": "array", "items": _ref("Zone")}}},
        "GoalInput": {
            "type": "object", "additionalProperties": False, "required": ["name"],
            "description": "Exactly one of path_pattern (page view goal; * matches any characters) or event_name "
                           "(event goal, optionally with property_name and property_value together).",
            "properties": {
                "name": _label(),
                "kind": {"type": "string", "enum": ["pageview", "event"], "description": "Optional; inferred."},
                "path_pattern": {"type": "string", "maxLength": 500, "pattern": "^/[^\\s\\x00]*$"},
                "event_name": {"type": "string", "pattern": "^[A-Za-z0-9_.:-]{1,100}$"},
                "property_name": {"type": "string", "maxLength": 100, "pattern": "^[^\\x00-\\x1f\\x7f]*$"},
                "property_value": {"type": "string", "maxLength": 500, "pattern": "^[^\\x00-\\x1f\\x7f]*$"},
                "value": {"type": "number", "minimum": 0, "maximum": int(MAX_GOAL_VALUE),
                          "description": "Worth of one conversion."},
            },
            "oneOf": [{"required": ["path_pattern"], "properties": {"kind": {"const": "pageview"}},
                       "not": {"anyOf": [{"required": ["event_name"]}, {"required": ["property_name"]},
                                         {"required": ["property_value"]}]}},
                      {"required": ["event_name"], "properties": {"kind": {"const": "event"}},
                       "not": {"required": ["path_pattern"]}}],
            "dependentRequired": {"property_name": ["property_value"], "property_value": ["property_name"]},
        },
        "Goal": {
            "type": "object", "required": ["id", "name", "kind"],
            "properties": {"id": _UUID, "name": {"type": "string"}, "kind": {"type": "string", "enum": ["pageview", "event"]},
                           "path_pattern": {"type": ["string", "null"]}, "event_name": {"type": ["string", "null"]},
                           "property_name": {"type": ["string", "null"]}, "property_value": {"type": ["string", "null"]},
                           "value": {"type": ["number", "null"]}},
        },
        "GoalList": {"type": "object", "required": ["goals"],
                     "properties": {"goals": {"type": "array", "items": _ref("Goal")}}},
        "Classification": {"type": "object", "required": ["dimension", "value", "attribute", "attribute_value"],
                           "properties": {"dimension": {"type": "string"}, "value": {"type": "string"},
                                          "attribute": {"type": "string"}, "attribute_value": {"type": "string"}}},
        "ClassificationPage": {
            "type": "object", "required": ["classifications", "total", "limit", "offset"],
            "properties": {"classifications": {"type": "array", "items": _ref("Classification")},
                           "total": {"type": "integer"}, "limit": {"type": "integer"}, "offset": {"type": "integer"}},
        },
        "ClassificationImport": {
            "type": "object", "required": ["imported", "dimensions"],
            "properties": {"imported": {"type": "integer"}, "dimensions": {"type": "array", "items": {"type": "string"}}},
        },
        "AnnotationInput": {
            "type": "object", "additionalProperties": False, "required": ["date", "text"],
            "properties": {"date": {"type": "string", "format": "date"},
                           "text": {"type": "string", "minLength": 1, "maxLength": 1000}},
        },
        "Annotation": {"type": "object", "required": ["id", "date", "text", "created_at"],
                       "properties": {"id": _UUID, "date": {"type": "string", "format": "date"},
                                      "text": {"type": "string"}, "created_at": _TIMESTAMP}},
        "AnnotationList": {"type": "object", "required": ["annotations"],
                           "properties": {"annotations": {"type": "array", "items": _ref("Annotation")}}},
        "ChannelRule": channel_rule,
        "ChannelRulesInput": {
            "type": "object", "additionalProperties": False, "required": ["rules"],
            "properties": {"rules": {"type": "array", "minItems": 1, "maxItems": 200, "items": channel_rule}},
        },
        "ChannelRules": {
            "type": "object", "required": ["version", "changed_at", "rules"],
            "properties": {"version": {"type": "integer", "description": "Bumped by every edit; the pipeline "
                                                                         "re-applies the rules to past visits when it moves."},
                           "changed_at": _NULLABLE_TIMESTAMP,
                           "rules": {"type": "array", "items": channel_rule,
                                     "description": "In evaluation order; the first matching rule wins."}},
        },
        "PrivacyRequestInput": {
            "type": "object", "additionalProperties": False, "required": ["kind"],
            "description": "Exactly one of user_id or visitor.",
            "oneOf": [{"required": ["user_id"]}, {"required": ["visitor"]}],
            "properties": {"kind": {"type": "string", "enum": ["export", "erasure"]},
                           "user_id": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": _TEXT},
                           "visitor": {"type": "string", "minLength": 1, "maxLength": 500, "pattern": _TEXT}},
        },
        "PrivacyRequest": {
            "type": "object",
            "required": ["id", "site_id", "kind", "subject_kind", "state", "requested_by", "requested_at"],
            "properties": {
                "id": _UUID, "site_id": _UUID, "kind": {"type": "string", "enum": ["export", "erasure"]},
                "subject_kind": {"type": "string", "enum": ["user_id", "visitor"]},
                "state": {"type": "string", "enum": ["pending", "running", "done", "failed"]},
                "requested_by": {"type": "string"}, "requested_at": _TIMESTAMP,
                "completed_at": _NULLABLE_TIMESTAMP,
                "result": {"type": ["object", "null"],
                           "description": "Set by the maintenance job; for an export {export_file, rows}."},
            },
        },
        "PrivacyRequestList": {"type": "object", "required": ["privacy_requests"],
                               "properties": {"privacy_requests": {"type": "array", "items": _ref("PrivacyRequest")}}},
        "AuditEntry": {
            "type": "object", "required": ["id", "at", "actor", "action", "target", "details"],
            "properties": {"id": {"type": "integer"}, "at": _TIMESTAMP,
                           "actor": {"type": "string", "description": "admin-token:<id>, server-key:<id>, cli, maintenance"},
                           "action": {"type": "string", "description": "Dotted verb such as server_key.created."},
                           "target": {"type": ["string", "null"]}, "details": {"type": "object"}},
        },
        "AuditPage": {
            "type": "object", "required": ["entries", "next_before"],
            "properties": {"entries": {"type": "array", "items": _ref("AuditEntry")},
                           "next_before": {"type": ["integer", "null"],
                                           "description": "Pass as `before` for the next (older) page; null at the end."}},
        },
        "BatchResult": {
            "type": "object", "required": ["accepted", "rejected"],
            "properties": {"accepted": {"type": "integer", "minimum": 0},
                           "rejected": {"type": "array", "items": {
                               "type": "object", "required": ["index", "code", "message"],
                               "properties": {"index": {"type": "integer"}, "code": {"type": "string"},
                                              "message": {"type": "string"}}}}},
        },
        "EraseRequest": {
            "type": "object", "additionalProperties": False, "minProperties": 1, "maxProperties": 1,
            "description": "Exactly one of user_id or visitor.",
            "properties": {"user_id": {"type": "string", "minLength": 1, "maxLength": 500},
                           "visitor": {"type": "string", "minLength": 1, "maxLength": 500}},
        },
        "EraseAccepted": {"type": "object", "required": ["id", "state"],
                          "properties": {"id": _UUID, "state": {"type": "string", "enum": ["pending"]}}},
        "SiteConfig": {
            "type": "object",
            "description": "What the tracking script needs to know about its site.",
            "properties": {
                "mode": {"type": "string", "enum": ["cookieless", "cookie", "consent"]},
                "consent_granted_default": {"type": "boolean"},
                "zones": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "selector": {"type": "string"}}}},
                "search_params": {"type": "array", "items": {"type": "string"}},
                "downloads": {"type": "array", "items": {"type": "string"}},
            },
        },
        "Healthz": {
            "type": "object", "required": ["status", "component", "database"],
            "properties": {"status": {"type": "string", "enum": ["ok", "unavailable"]},
                           "component": {"type": "string"}, "database": {"type": "object"}},
        },
        # ServerBatch, ServerEvent, Item, BrowserBatch, BrowserEvent, BrowserItem: generated from the
        # Structs that decode the events, so the document says what the collector accepts.
        **event_schema_components(),
    }


_FILTER = {"type": "string", "maxLength": 63, "pattern": "^[^\\x00]*$"}


def _crud_item(*, tag: str, noun: str, op: str, id_param: dict, schema: str, input_schema: str) -> dict[str, Any]:
    return {
        "parameters": [SITE_ID, id_param],
        "get": _admin(f"Get a {noun}", _ok(f"The {noun}.", _ref(schema)), tag=tag, operation_id=f"get{op}"),
        "put": _admin(f"Replace a {noun}", _ok(f"The {noun} as stored.", _ref(schema)), tag=tag,
                      operation_id=f"replace{op}", body=_json(_ref(input_schema)),
                      conflict=schema == "Goal"),
        "delete": _admin(f"Delete a {noun}", _NO_CONTENT, tag=tag, operation_id=f"delete{op}"),
    }


def _crud_collection(*, tag: str, noun: str, op: str, list_schema: str, schema: str, input_schema: str,
                     list_parameters: list | None = None) -> dict[str, Any]:
    return {
        "parameters": [SITE_ID],
        "get": _admin(f"List the site's {noun}s", _ok(f"The {noun}s.", _ref(list_schema)), tag=tag,
                      operation_id=f"list{op}s", parameters=list_parameters,
                      has_body_errors=False),
        "post": _admin(f"Create a {noun}", _ok(f"The {noun} created.", _ref(schema), "201"), tag=tag,
                       operation_id=f"create{op}", body=_json(_ref(input_schema)), conflict=True),
    }


def _paths() -> dict[str, Any]:
    bad_query = {"400": {"$ref": "#/components/responses/BadRequest"}}
    paths: dict[str, Any] = {
        "/api/v1/openapi.json": {"get": {
            "tags": ["meta"], "summary": "This document", "operationId": "getOpenApi", "security": [],
            "responses": _ok("The OpenAPI 3.1 description of the collector.", {"type": "object"}),
        }},
        "/api/v1/sites": {
            "get": _admin("List sites", _ok("Every site.", _ref("SiteList")), tag="sites", operation_id="listSites",
                          not_found=False),
            "post": _admin("Create a site", _ok("The site, with GA4's default channel rules.", _ref("Site"), "201",
                                                headers={"Location": {"schema": {"type": "string"}}}),
                           tag="sites", operation_id="createSite", body=_json(_ref("SiteCreate")), not_found=False),
        },
        "/api/v1/sites/{site_id}": {
            "parameters": [SITE_ID],
            "get": _admin("Get a site", _ok("The site.", _ref("Site")), tag="sites", operation_id="getSite"),
            "patch": _admin("Change a site", _ok("The site as stored.", _ref("Site")), tag="sites",
                            operation_id="updateSite", body=_json(_ref("SiteUpdate"))),
            "delete": _admin("Delete a site", _NO_CONTENT, tag="sites", operation_id="deleteSite",
                             description="Deletes the site, its metadata, keys, privacy requests and raw events."),
        },
        "/api/v1/sites/{site_id}/health": {
            "parameters": [SITE_ID],
            "get": _admin("Check figures of a site", _ok("Events and rejections of the last 24 hours.", _ref("Health")),
                          tag="sites", operation_id="getSiteHealth"),
        },
        "/api/v1/sites/{site_id}/server-keys": {
            "parameters": [SITE_ID],
            "get": _admin("List server keys", _ok("Keys, newest first, never their secret.", _ref("ServerKeyList")),
                          tag="server keys", operation_id="listServerKeys"),
            "post": _admin("Create a server key", _ok("The key with its secret, shown only here.",
                                                      _ref("ServerKeyCreated"), "201"),
                           tag="server keys", operation_id="createServerKey", body=_json(_ref("ServerKeyCreate"))),
        },
        "/api/v1/sites/{site_id}/server-keys/{key_id}": {
            "parameters": [SITE_ID, _path_param("key_id", "Id of the key.", _UUID)],
            "get": _admin("Get a server key", _ok("The key, without its secret.", _ref("ServerKey")),
                          tag="server keys", operation_id="getServerKey"),
            "patch": _admin("Rename a server key or change its rate limit",
                            _ok("The key, without its secret.", _ref("ServerKey")),
                            tag="server keys", operation_id="updateServerKey", body=_json(_ref("ServerKeyCreate"))),
            "delete": _admin("Revoke a server key", _ok("The key, now revoked (revoking twice is harmless).",
                                                        _ref("ServerKey")),
                             tag="server keys", operation_id="revokeServerKey"),
        },
        "/api/v1/sites/{site_id}/events": _crud_collection(
            tag="declared events", noun="declared event", op="DeclaredEvent", list_schema="DeclaredEventList",
            schema="DeclaredEvent", input_schema="DeclaredEventCreate"),
        "/api/v1/sites/{site_id}/events/{name}": _crud_item(
            tag="declared events", noun="declared event", op="DeclaredEvent",
            id_param=_path_param("name", "Name of the event."), schema="DeclaredEvent",
            input_schema="DeclaredEventInput"),
        "/api/v1/sites/{site_id}/zones": _crud_collection(
            tag="zones", noun="zone", op="Zone", list_schema="ZoneList", schema="Zone", input_schema="ZoneCreate"),
        "/api/v1/sites/{site_id}/zones/{name}": _crud_item(
            tag="zones", noun="zone", op="Zone", id_param=_path_param("name", "Name of the zone."),
            schema="Zone", input_schema="ZoneInput"),
        "/api/v1/sites/{site_id}/goals": _crud_collection(
            tag="goals", noun="goal", op="Goal", list_schema="GoalList", schema="Goal", input_schema="GoalInput"),
        "/api/v1/sites/{site_id}/goals/{goal_id}": _crud_item(
            tag="goals", noun="goal", op="Goal", id_param=_path_param("goal_id", "Id of the goal.", _UUID),
            schema="Goal", input_schema="GoalInput"),
        "/api/v1/sites/{site_id}/annotations": _crud_collection(
            tag="annotations", noun="annotation", op="Annotation", list_schema="AnnotationList",
            schema="Annotation", input_schema="AnnotationInput",
            list_parameters=[_query("from", "First date, inclusive.", {"type": "string", "format": "date"}),
                             _query("to", "Last date, inclusive.", {"type": "string", "format": "date"})]),
        "/api/v1/sites/{site_id}/annotations/{annotation_id}": _crud_item(
            tag="annotations", noun="annotation", op="Annotation",
            id_param=_path_param("annotation_id", "Id of the annotation.", _UUID),
            schema="Annotation", input_schema="AnnotationInput"),
        "/api/v1/sites/{site_id}/classifications": {
            "parameters": [SITE_ID],
            "get": _admin("List classifications", _ok("A page of classifications.", _ref("ClassificationPage")),
                          tag="classifications", operation_id="listClassifications",
                          parameters=[_query("dimension", "Only this dimension.", _FILTER),
                                      _query("attribute", "Only this attribute.", _FILTER),
                                      _query("limit", "Page size.", {"type": "integer", "minimum": 1, "maximum": 1000}),
                                      _query("offset", "Rows to skip.", {"type": "integer", "minimum": 0, "maximum": 10000000})]),
            "delete": _admin("Delete classifications", _ok("How many were deleted.", {
                "type": "object", "required": ["deleted"], "properties": {"deleted": {"type": "integer"}}}),
                tag="classifications", operation_id="deleteClassifications",
                parameters=[_query("dimension", "Only this dimension.", _FILTER),
                            _query("attribute", "Only this attribute.", _FILTER)]),
        },
        "/api/v1/sites/{site_id}/classifications/import": {
            "parameters": [SITE_ID],
            "post": _admin(
                "Import classifications from CSV",
                _ok("Every row was upserted.", _ref("ClassificationImport")),
                tag="classifications", operation_id="importClassifications",
                description="CSV with the header dimension,value,attribute,attribute_value, sent as the body "
                            "(text/csv) or as the multipart field `file`. All or nothing: when any line is wrong, "
                            "the 422 answer lists the wrong lines in details.lines ([{line, column, message}], column null when the whole line is wrong) and "
                            "nothing is written. An existing (dimension, value, attribute) is updated.",
                body={"text/csv": {"schema": {"type": "string"}},
                      "multipart/form-data": {"schema": {"type": "object", "required": ["file"],
                                                         "properties": {"file": {"type": "string",
                                                                                 "contentMediaType": "text/csv"}}}}}),
        },
        "/api/v1/sites/{site_id}/channel-rules": {
            "parameters": [SITE_ID],
            "get": _admin("Get the channel rules", _ok("The ordered rules and their version.", _ref("ChannelRules")),
                          tag="channel rules", operation_id="getChannelRules"),
            "put": _admin("Replace the channel rules", _ok("The rules as stored, with the bumped version.",
                                                           _ref("ChannelRules")),
                          tag="channel rules", operation_id="replaceChannelRules",
                          body=_json(_ref("ChannelRulesInput"))),
        },
        "/api/v1/sites/{site_id}/channel-rules/reset": {
            "parameters": [SITE_ID],
            "post": _admin("Reset the channel rules to GA4's default channel group",
                           _ok("The default rules, with the bumped version.", _ref("ChannelRules")),
                           tag="channel rules", operation_id="resetChannelRules"),
        },
        "/api/v1/sites/{site_id}/privacy-requests": {
            "parameters": [SITE_ID],
            "get": _admin("List privacy requests", _ok("Requests, newest first.", _ref("PrivacyRequestList")),
                          tag="privacy", operation_id="listPrivacyRequests",
                          parameters=[_query("state", "Only this state.",
                                             {"type": "string", "enum": ["pending", "running", "done", "failed"]})]),
            "post": _admin("Request an export or an erasure of one person's data",
                           _ok("Recorded; the maintenance job processes it.", _ref("PrivacyRequest"), "202"),
                           tag="privacy", operation_id="createPrivacyRequest", body=_json(_ref("PrivacyRequestInput"))),
        },
        "/api/v1/sites/{site_id}/privacy-requests/{request_id}": {
            "parameters": [SITE_ID, _path_param("request_id", "Id of the request.", _UUID)],
            "get": _admin("Get a privacy request", _ok("The request and its state.", _ref("PrivacyRequest")),
                          tag="privacy", operation_id="getPrivacyRequest"),
        },
        "/api/v1/sites/{site_id}/privacy-requests/{request_id}/export": {
            "parameters": [SITE_ID, _path_param("request_id", "Id of the request.", _UUID)],
            "get": _admin("Download an export", {
                "200": {"description": "The person's events, one JSON object per line.",
                        "content": {"application/x-ndjson": {"schema": {"type": "string"}}}},
                "409": _error("Not an export, or not done yet (details.state)."),
                "410": _error("The export file is no longer available."),
            }, tag="privacy", operation_id="downloadPrivacyExport"),
        },
        "/api/v1/audit": {
            "get": _admin("Read the audit log", {**_ok("Entries, newest first.", _ref("AuditPage")), **bad_query},
                          tag="audit", operation_id="listAudit", not_found=False, parameters=[
                              _query("action", "Exact action, or a prefix ending in .* (server_key.*).",
                                     {"type": "string"}),
                              _query("since", "Only entries at or after this time.", _TIMESTAMP),
                              _query("before", "Only entries with a smaller id (the previous answer's next_before).",
                                     {"type": "integer", "minimum": 1}),
                              _query("limit", "Page size.", {"type": "integer", "minimum": 1, "maximum": 500})]),
        },
        # Collection endpoints -------------------------------------------------------------
        "/collect/server": {"post": {
            "tags": ["collection"], "summary": "Send events from a backend", "operationId": "collectServer",
            "security": [{"serverKey": []}],
            "parameters": [{"name": "Idempotency-Key", "in": "header", "required": False,
                            "description": "Retrying with the same key and body stores nothing twice.",
                            "schema": {"type": "string", "pattern": "^[\\x21-\\x7e]{1,255}$"}}],
            "requestBody": {"required": True, "content": _json(_ref("ServerBatch"))},
            "responses": {
                "202": {"description": "Valid events stored durably; refused ones listed by index.",
                        "content": _json(_ref("BatchResult"))},
                "400": _error("Malformed request: not JSON, no events list, 0 or more than 100 events."),
                "401": _error("Missing, unknown or revoked server key."),
                "413": _error("Body too large."),
                "422": _error("Idempotency-Key reused with a different body."),
                "429": {"description": "Over the key's events-per-minute limit.", "content": _json(_ref("Error")),
                        "headers": {"Retry-After": {"schema": {"type": "integer"}}}},
                "503": _error("Database unreachable and the spool cannot take the events."),
            },
        }},
        "/collect/server/erase": {"post": {
            "tags": ["collection"], "summary": "Request erasure of one person's data on the key's site",
            "operationId": "collectServerErase", "security": [{"serverKey": []}],
            "requestBody": {"required": True, "content": _json(_ref("EraseRequest"))},
            "responses": {
                "202": {"description": "Erasure request recorded.", "content": _json(_ref("EraseAccepted"))},
                "400": _error("Not exactly one of user_id or visitor."),
                "401": _error("Missing, unknown or revoked server key."),
                "413": _error("Body too large."),
                "503": _error("Database unreachable."),
            },
        }},
        "/a.js": {"get": {
            "tags": ["collection"], "summary": "The tracking script", "operationId": "getTracker", "security": [],
            "responses": {
                "200": {"description": "The script (a few kilobytes), with a strong ETag; gzip when accepted.",
                        "content": {"text/javascript": {"schema": {"type": "string"}}}},
                "304": {"description": "Not modified (If-None-Match)."},
            },
        }},
        "/collect": {
            "get": {
                "tags": ["collection"], "summary": "Configuration of a site for the tracking script",
                "operationId": "getSiteConfig", "security": [],
                "parameters": [{"name": "site", "in": "query", "required": True, "schema": _UUID}],
                "responses": {"200": {"description": "The site's tracking configuration (cacheable briefly).",
                                      "content": _json(_ref("SiteConfig"))},
                              "400": _error("Missing or malformed site."),
                              "404": _error("Unknown site."),
                              "503": _error("Database unreachable.")},
            },
            "post": {
                "tags": ["collection"], "summary": "Events from browsers (no key; the origin is checked)",
                "operationId": "collectBrowser", "security": [],
                "requestBody": {"required": True, "content": {
                    "text/plain": {"schema": _ref("BrowserBatch")}, "application/json": {"schema": _ref("BrowserBatch")}}},
                "responses": {
                    "204": {"description": "Accepted: valid events stored, invalid ones counted as rejections "
                                           "(invalid_payload); also the answer to bots, whose events are dropped."},
                    "400": _error("Not the script's payload (counted as invalid_payload)."),
                    "403": _error("Origin not among the site's domains (counted as origin_not_allowed)."),
                    "404": _error("Unknown site."),
                    "413": _error("Body over 96 KiB (payload_too_large; counted as invalid_payload)."),
                    "429": _error("Too many events from this address (counted as rate_limited)."),
                    "503": _error("Database unreachable and the spool cannot take the events."),
                },
            },
        },
        "/healthz": {"get": {
            "tags": ["meta"], "summary": "Liveness and database status", "operationId": "healthz", "security": [],
            "responses": {"200": {"description": "Healthy.", "content": _json(_ref("Healthz"))},
                          "503": {"description": "Database unreachable.", "content": _json(_ref("Healthz"))}},
        }},
    }
    return paths


def build_document() -> dict[str, Any]:
    """The whole OpenAPI 3.1 document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Audience analytics collector",
            "version": VERSION,
            "description": "Collection endpoints (tracking script, browser and server events) and the "
                           "administration API of sites and their metadata. Every error answers "
                           "{\"error\": {\"code\", \"message\", \"details\"}}.",
            "license": {"name": "AGPL-3.0-or-later", "identifier": "AGPL-3.0-or-later"},
        },
        "servers": [{"url": "/"}],
        "tags": [{"name": name} for name in ("sites", "server keys", "declared events", "zones", "goals",
                                             "classifications", "annotations", "channel rules", "privacy",
                                             "audit", "collection", "meta")],
        "paths": _paths(),
        "components": {
            "securitySchemes": {
                "adminToken": {"type": "http", "scheme": "bearer",
                               "description": "Admin token from `analytics admin-token create`."},
                "serverKey": {"type": "http", "scheme": "bearer",
                              "description": "Server key of one site (sk_...), from POST /api/v1/sites/{site_id}/server-keys."},
            },
            "schemas": _schemas(),
            "responses": {
                "BadRequest": _error("Malformed request: the body is not JSON, or a query parameter is invalid."),
                "Unauthorized": {**_error("Missing, unknown or revoked admin token."),
                                 "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}}},
                "NotFound": _error("No such site or record."),
                "Conflict": _error("Clashes with an existing record (duplicate name)."),
                "PayloadTooLarge": _error("Body over the limit (1 MiB; 10 MiB for CSV imports)."),
                "ValidationFailed": _error("A field is invalid; details.field names it (details.lines for CSV)."),
                "DatabaseUnavailable": _error("The database is not reachable; retry shortly."),
                "UriTooLong": _error("Request line (method, path and query) over 4,094 bytes: refused before "
                                     "any route (collector_app/asgi.py)."),
                "HeadersTooLarge": _error("A header field over 8,190 bytes (name, colon and value), or more than 100 "
                                          "fields: refused before any route, and the connection closed "
                                          "(analytics_cli/collector_http.py)."),
                "Overloaded": _error("The worker serves ANALYTICS_COLLECTOR_CONNECTIONS connections already "
                                     "(`overloaded`, with Retry-After: 1): refused before any route, on any "
                                     "operation; retry in a moment."),
            },
        },
    }


# For fragments of other areas (see collector_app/openapi/__init__.py).
ref = _ref
json_content = _json
error = _error
