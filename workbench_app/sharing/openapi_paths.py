"""Sharing's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import ID as _ID, model_body, ref as _ref
from workbench_app.content.shapes import ValuesQuery
from workbench_app.printing.openapi_paths import pdf_operation
from workbench_app.request_shapes import query_parameters
from workbench_app.sharing.shapes import (CardFilters, EmbeddingSecretList, EmbeddingSecretRequest, NewEmbeddingSecret,
                                          NewPublicLink, PublicLink, PublicLinkList, PublicLinkRequest, SharedDashboard)

# The answers and request bodies declared as models (their components are generated from them).
ANSWERS = (SharedDashboard, PublicLink, PublicLinkList, NewPublicLink, EmbeddingSecretList, NewEmbeddingSecret)
REQUESTS = (PublicLinkRequest, EmbeddingSecretRequest, CardFilters)

_CSV = {"description": "CSV (RFC 4180, UTF-8) of the card's result, formulas defused.",
        "content": {"text/csv": {"schema": {"type": "string"}}}}
_EMBED_TOKEN = {"name": "X-Embed-Token", "in": "header", "required": True,
                "description": "The embed token (HS256 JWT) the host page handed in: checked on every call.",
                "schema": {"type": "string", "maxLength": 8000}}
_LINK = {"name": "link_token", "in": "path", "required": True,
         "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,100}$"},
         "description": "The public link's secret, from its address /public/<link_token>."}
_FILTER_ID = {"name": "filter_id", "in": "path", "required": True, "schema": _ID}
_RATE = ("429", "rate_limited: the link answered its requests a minute; Retry-After says when to try again")


def _shared(operation: dict[str, Any], parameters: list[dict[str, Any]], *refusals: tuple[str, str],
            also=None) -> dict[str, Any]:
    operation["parameters"] = parameters + operation.get("parameters", [])
    return also(operation, *refusals)


def paths(op, also) -> dict[str, Any]:
    filters_body = model_body(CardFilters, required=False)
    card = {"name": "card_id", "in": "path", "required": True, "schema": _ID}
    public = ("404", "not_found: the link is unknown, revoked, or public sharing is off")
    embed = ("401", "embed_token_invalid or embed_token_expired: no data")
    run, csv = "Run a card", "Download a card as CSV"
    no_pdf = ("403", "pdf_not_allowed: the link or the token does not offer the dashboard as PDF")
    pdf_said = ("The shared dashboard on A4 pages, printed under the share's rights, with the theme that applies to "
                "the dashboard.")
    return {
        "/dashboards/{dashboard_id}/public-links": {
            "get": op("List a dashboard's public links", "sharing", params=("dashboard_id",),
                      result=_ref("PublicLinkList")),
            "post": also(op("Create a public link", "sharing", ok=201, params=("dashboard_id",),
                            result=_ref("NewPublicLink"), body=model_body(PublicLinkRequest)),
                         ("403", "forbidden: public sharing is off, or the caller may not change the dashboard"))},
        "/dashboards/{dashboard_id}/public-links/{link_id}": {
            "delete": op("Revoke a public link", "sharing", ok=204, params=("dashboard_id", "link_id"))},
        "/embedding-secrets": {
            "get": op("List embedding secrets (administrators)", "sharing", result=_ref("EmbeddingSecretList")),
            "post": op("Create an embedding secret (administrators)", "sharing", ok=201,
                       result=_ref("NewEmbeddingSecret"), body=model_body(EmbeddingSecretRequest))},
        "/embedding-secrets/{secret_id}": {
            "delete": op("Revoke an embedding secret (administrators)", "sharing", ok=204, params=("secret_id",))},
        "/public/{link_token}": {"get": _shared(op("Open a public link", "sharing", result=_ref("SharedDashboard")),
                                                [_LINK], public, _RATE, also=also)},
        "/public/{link_token}/cards/{card_id}/run": {"post": _shared(
            op(f"{run} of a public link", "sharing", result=_ref("Result"), body=filters_body),
            [_LINK, card], public, _RATE, also=also)},
        "/public/{link_token}/cards/{card_id}/csv": {"post": _shared(
            {**(operation := op(f"{csv} of a public link", "sharing", body=filters_body)),
             "responses": {**operation["responses"], "200": _CSV}}, [_LINK, card], public, _RATE, also=also)},
        "/public/{link_token}/pdf": {"get": _shared(pdf_operation(
            op, also, "Print a public link as PDF", pdf_said + " Only the filters the link opens may be set.",
            "sharing"), [_LINK], public, no_pdf, _RATE, also=also)},
        "/embed/pdf": {"get": _shared(pdf_operation(
            op, also, "Print an embedded dashboard as PDF",
            pdf_said + " The token needs the permission `download_pdf`.", "sharing"),
            [_EMBED_TOKEN], embed, no_pdf, also=also)},
        "/public/{link_token}/filters/{filter_id}/values": {"get": _shared(
            op("A one-of filter's values through a public link (at most 200)", "sharing",
               result=_ref("FilterValues"), query=query_parameters(ValuesQuery)),
            [_LINK, _FILTER_ID], public, _RATE, also=also)},
        "/embed/filters/{filter_id}/values": {"get": _shared(
            op("A one-of filter's values in an embedded dashboard (at most 200)", "sharing",
               result=_ref("FilterValues"), query=query_parameters(ValuesQuery)),
            [_EMBED_TOKEN, _FILTER_ID], embed, also=also)},
        "/embed/dashboard": {"get": _shared(op("Open an embedded dashboard", "sharing",
                                               result=_ref("SharedDashboard")), [_EMBED_TOKEN], embed, also=also)},
        "/embed/cards/{card_id}/run": {"post": _shared(
            op(f"{run} of an embedded dashboard", "sharing", result=_ref("Result"), body=filters_body),
            [_EMBED_TOKEN, card], embed, also=also)},
        "/embed/cards/{card_id}/csv": {"post": _shared(
            {**(operation := op(f"{csv} of an embedded dashboard", "sharing", body=filters_body)),
             "responses": {**operation["responses"], "200": _CSV}}, [_EMBED_TOKEN, card], embed, also=also)},
    }
