"""Single sign-on's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import STR as _STR, model_body
from workbench_app.single_sign_on.shapes import SignOnOffer, SingleSignOnChange, SingleSignOnSettings

REQUESTS = (SingleSignOnChange,)
ANSWERS = (SignOnOffer, SingleSignOnSettings)
_REDIRECT = {"description": "A redirect (the browser navigates here; this is no JSON API call)",
             "headers": {"Location": {"schema": _STR}}}


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
