"""Single sign-on's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import BOOL as _BOOL, STR as _STR
from workbench_app.openapi_vocabulary import model_body, object_of as _object
from workbench_app.single_sign_on.shapes import SingleSignOnChange

REQUESTS = (SingleSignOnChange,)
_REDIRECT = {"description": "A redirect (the browser navigates here; this is no JSON API call)",
             "headers": {"Location": {"schema": _STR}}}


SCHEMAS: dict[str, Any] = {
    "SignOnOffer": _object({"enabled": _BOOL, "display_name": {"type": ["string", "null"]}}),
    "SingleSignOnSettings": _object({
        "enabled": _BOOL, "source": {"enum": ["settings", "environment", "none"]},
        "issuer": {"type": ["string", "null"]}, "client_id": {"type": ["string", "null"]},
        "client_secret_set": {"type": "boolean",
                              "description": "Whether a client secret is set (the secret itself is never returned)."},
        "scopes": _STR, "display_name": _STR, "email_claim": _STR, "name_claim": _STR, "groups_claim": _STR,
        "attribute_claims": {"type": "object", "additionalProperties": _STR,
                             "description": "claim -> user attribute, refreshed at every sign-in"},
        "group_mapping": {"type": "object", "additionalProperties": _STR,
                          "description": "directory group -> workbench group name"},
        "groups_by_name": _BOOL, "create_accounts": _BOOL, "password_sign_in": _BOOL,
        "break_glass_email": {"type": ["string", "null"]}}),
}


def _navigation(summary: str, query: dict[str, dict]) -> dict[str, Any]:
    return {"summary": summary, "tags": ["accounts"],
            "operationId": summary.lower().replace(" ", "_"),
            "parameters": [{"name": name, "in": "query", "required": False, "schema": schema}
                           for name, schema in query.items()],
            "responses": {"303": {**_REDIRECT, "description": _REDIRECT["description"] + (
                ": to the provider, or back to /sign-in?sso_error=<code> when it cannot be reached")},
                "400": {"description": "A query parameter given twice",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/sso": {"get": op("Get the single sign-on offer", "accounts", result={
            "$ref": "#/components/schemas/SignOnOffer"})},
        # Unconstrained strings: whatever comes back from a provider is answered with a redirect to
        # the sign-in page (never a JSON refusal), so the document promises no 4xx for odd values.
        "/sso/start": {"get": _navigation("Start a single sign-on", {"next": _STR})},
        "/sso/callback": {"get": _navigation("Finish a single sign-on", {"state": _STR, "code": _STR, "error": _STR})},
        "/settings/sso": {
            "get": op("Get the single sign-on settings", "settings",
                      result={"$ref": "#/components/schemas/SingleSignOnSettings"}),
            "patch": op("Update the single sign-on settings", "settings", body=model_body(SingleSignOnChange),
                        result={"$ref": "#/components/schemas/SingleSignOnSettings"})},
    }
