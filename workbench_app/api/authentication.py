"""Bearer API tokens: each request acts as the token's owner, with the owner's current rights."""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, g, request

from workbench_app.accounts import api_tokens
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError, forbidden, invalid
from workbench_app.input_checks import body_object, single_query_value
from workbench_app.services import WorkbenchServices

# Endpoints reachable without a token: the API description and the password sign-in.
PUBLIC_ENDPOINTS = {"api_v1.openapi.openapi_document", "api_v1.accounts.sign_in"}
MAX_BODY_BYTES = 1_000_000


def services() -> WorkbenchServices:
    return current_app.extensions["workbench"]


def bearer_secret(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, secret = header.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" and secret.strip() else None


def authenticate_bearer(workbench: WorkbenchServices, header: str | None) -> Identity:
    """The identity behind an `Authorization: Bearer` header (API and tool server alike); 401 otherwise."""
    secret = bearer_secret(header)
    if secret is None:
        raise WorkbenchError(401, "unauthorized", "A valid API token is required (Authorization: Bearer <token>).")
    with workbench.transaction() as conn:
        return api_tokens.authenticate(conn, secret)


def authenticate_request():
    if request.endpoint in PUBLIC_ENDPOINTS:
        return None
    g.identity = authenticate_bearer(services(), request.headers.get("Authorization"))
    return None


def identity() -> Identity:
    return g.identity


def require_admin() -> Identity:
    if not g.identity.is_admin:
        raise forbidden("Only administrators may do this.")
    return g.identity


def json_body(optional: bool = False) -> dict[str, Any]:
    """The request's JSON object (a missing or other body is a 422: `input_checks.body_object`).
    `optional`: no body at all is `{}`, for the runs, which change nothing."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY_BYTES:
        raise WorkbenchError(413, "payload_too_large", "The request body is too large.")
    if not raw.strip():
        return {} if optional else body_object(None)
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise invalid("The request body is not valid JSON.") from None
    return body_object(body)


def query_int(name: str, default: int, minimum: int = 1, maximum: int = 1000) -> int:
    raw = single_query_value(request.args, name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise invalid(f"{name} must be a whole number.", field=name) from None
    if not minimum <= value <= maximum:
        raise invalid(f"{name} must be from {minimum} to {maximum}.", field=name)
    return value
