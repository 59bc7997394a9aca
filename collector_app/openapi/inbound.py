"""OpenAPI fragment: inbound sources of the suite's chat and database services.

Their configuration under /api/v1/inbound-sources (admin token) and the signed webhook receivers
/ingest/chat/{source_id} and /ingest/db/{source_id}. Field-level rules are enforced by
`pipelines.inbound.sources`; the schemas here name the fields and leave the detailed rules to it.
"""
from __future__ import annotations

from typing import Any

from collector_app.openapi.document import error, json_content, ref

_ADMIN_ERRORS = {
    "401": {"$ref": "#/components/responses/Unauthorized"},
    "404": {"$ref": "#/components/responses/NotFound"},
    "503": {"$ref": "#/components/responses/DatabaseUnavailable"},
}
_BODY_ERRORS = {
    "400": {"$ref": "#/components/responses/BadRequest"},
    "413": {"$ref": "#/components/responses/PayloadTooLarge"},
    "422": {"$ref": "#/components/responses/ValidationFailed"},
}
_SOURCE_ID = {"name": "source_id", "in": "path", "required": True, "description": "Id of the inbound source.",
              "schema": {"type": "string", "format": "uuid"}}


def _operation(summary: str, operation_id: str, responses: dict[str, Any], *, body: str | None = None) -> dict:
    operation: dict[str, Any] = {"tags": ["inbound sources"], "summary": summary, "operationId": operation_id,
                                 "security": [{"adminToken": []}], "responses": {**responses, **_ADMIN_ERRORS}}
    if body:
        operation["requestBody"] = {"required": True, "content": json_content(ref(body))}
        operation["responses"].update(_BODY_ERRORS)
    return operation


def _ok(description: str, schema: dict, status: str = "200") -> dict:
    return {status: {"description": description, "content": json_content(schema)}}


def _receiver(summary: str, operation_id: str, service: str) -> dict:
    return {
        "tags": ["inbound sources"], "summary": summary, "operationId": operation_id, "security": [],
        "description": f"Signed by the {service} (signature over the raw bytes, 5-minute tolerance). "
                       "Answered once the delivery is committed; processed afterwards.",
        "parameters": [_SOURCE_ID],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {
            "202": {"description": "Delivery stored.", "content": json_content({
                "type": "object", "properties": {"received": {"type": "integer"}, "inbox_id": {}}})},
            "400": error("The delivery is not a valid payload (quarantined)."),
            "401": error("The signature does not verify (counted and quarantined)."),
            "404": error("No active inbound source has this address."),
            "413": error("Delivery too large."),
            "503": error("Database unreachable, or the source's secrets cannot be opened; retry later."),
        },
    }


def fragment() -> dict[str, Any]:
    source_input = {
        "type": "object",
        "description": "kind chat_webhook or db_webhook: {kind, name?, site_id?, secret | secrets}; kind db_stream: "
                       "{kind, name?, site_id?, token, base_url, tenant, base, tables, poll_seconds?, use_stream?, "
                       "read_path?, ...}. Secrets and tokens are never returned.",
        "properties": {"kind": {"type": "string", "enum": ["chat_webhook", "db_webhook", "db_stream"]},
                       "name": {"type": "string"}, "site_id": {"type": ["string", "null"], "format": "uuid"}},
        "required": ["kind"],
    }
    source = {
        "type": "object", "required": ["id", "kind", "state"],
        "properties": {"id": {"type": "string", "format": "uuid"},
                       "kind": {"type": "string", "enum": ["chat_webhook", "db_webhook", "db_stream"]},
                       "site_id": {"type": ["string", "null"]}, "name": {"type": ["string", "null"]},
                       "state": {"type": "string"}, "settings": {"type": "object"},
                       "secrets": {"type": "array", "items": {"type": "object"},
                                   "description": "Hints and states of the secrets, never their values."},
                       "created_at": {"type": "string", "format": "date-time"},
                       "updated_at": {"type": "string", "format": "date-time"}},
    }
    return {
        "tags": [{"name": "inbound sources"}],
        "components": {"schemas": {
            "InboundSourceInput": source_input,
            "InboundSourceUpdate": {"type": "object", "description": "name, state (active or paused); for db_stream "
                                                                     "also its settings and token."},
            "InboundSecretInput": {"type": "object", "description": "{secret}: an additional signing secret "
                                                                    "(rotation); the old one is retired separately."},
            "InboundSource": source,
        }},
        "paths": {
            "/api/v1/inbound-sources": {
                "get": _operation("List inbound sources", "listInboundSources", _ok("Every source.", {
                    "type": "object", "properties": {"inbound_sources": {"type": "array",
                                                                        "items": ref("InboundSource")}}})),
                "post": _operation("Configure an inbound source", "createInboundSource",
                                   _ok("The source.", ref("InboundSource"), "201"), body="InboundSourceInput"),
            },
            "/api/v1/inbound-sources/{source_id}": {
                "parameters": [_SOURCE_ID],
                "get": _operation("Get an inbound source", "getInboundSource", _ok("The source.", ref("InboundSource"))),
                "patch": _operation("Change an inbound source", "updateInboundSource",
                                    _ok("The source as stored.", ref("InboundSource")), body="InboundSourceUpdate"),
                "delete": _operation("Delete an inbound source", "deleteInboundSource",
                                     {"204": {"description": "Deleted."}}),
            },
            "/api/v1/inbound-sources/{source_id}/secrets": {
                "parameters": [_SOURCE_ID],
                "post": _operation("Add a signing secret", "addInboundSecret",
                                   _ok("The source with its secrets' hints.", {"type": "object"}, "201"),
                                   body="InboundSecretInput"),
            },
            "/api/v1/inbound-sources/{source_id}/secrets/{secret_id}": {
                "parameters": [_SOURCE_ID, {"name": "secret_id", "in": "path", "required": True,
                                            "schema": {"type": "string", "format": "uuid"}}],
                "delete": _operation("Retire a signing secret", "retireInboundSecret",
                                     _ok("The source with its secrets' hints.", {"type": "object"})),
            },
            "/api/v1/inbound-sources/{source_id}/figures": {
                "parameters": [_SOURCE_ID],
                "get": _operation("Check figures of an inbound source", "getInboundSourceFigures",
                                  _ok("Deliveries received, refused and pending.", {"type": "object"})),
            },
            "/api/v1/inbound-sources/{source_id}/quarantine": {
                "parameters": [_SOURCE_ID],
                "get": _operation("Refused deliveries kept for inspection", "getInboundQuarantine",
                                  _ok("Quarantined payloads.", {"type": "object", "properties": {
                                      "quarantined": {"type": "array", "items": {"type": "object"}}}})),
            },
            "/ingest/chat/{source_id}": {"post": _receiver("Webhook of the chat messaging service",
                                                           "receiveChatWebhook", "chat service")},
            "/ingest/db/{source_id}": {"post": _receiver("Webhook of the database service",
                                                         "receiveDatabaseWebhook", "database service")},
        },
    }
