"""Administration API of the collector, under /api/v1 (bearer admin token).

HTTP only: parsing, authentication, status codes. The operations live in `pipelines.admin`.
Each request runs in one transaction (`collector_app.database.transaction`), so a refused request
writes nothing, and the audit entry of a change commits with it.
"""
from __future__ import annotations

from flask import Blueprint, Flask, g, request

from collector_app.admin_api import (audit_routes, keys_routes, metadata_routes, openapi_routes, privacy_routes,
                                     sites_routes)
from collector_app.admin_api.http import to_json
from collector_app.database import transaction
from collector_app.errors import ApiError, error_response
from pipelines.admin import admin_tokens
from pipelines.admin.errors import AdminError, Conflict, InvalidInput, NotFound

JSON_BODY_LIMIT = 1024 * 1024
UPLOAD_BODY_LIMIT = 10 * 1024 * 1024

_STATUS = {InvalidInput: 422, NotFound: 404, Conflict: 409}


def require_admin_token() -> None:
    """`before_request` hook of every /api/v1 blueprint: sets `g.admin` (an AdminTokenIdentity,
    whose `.actor` names the caller in audit entries) or answers 401."""
    # Bodies are read lazily; the limit must be in place before any view reads one.
    request.max_content_length = UPLOAD_BODY_LIMIT if request.endpoint and request.endpoint.endswith(
        "import_classifications") else JSON_BODY_LIMIT
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise ApiError(401, "unauthorized", "Send an admin token as 'Authorization: Bearer <token>'.",
                       headers={"WWW-Authenticate": 'Bearer realm="analytics-admin"'})
    if secret.strip().startswith("wbt_"):
        # The two tokens look alike in examples; say which one this is and which one is expected.
        raise ApiError(401, "invalid_token", "This is a workbench API token (wbt_...); the collector's administration "
                       "API takes an admin token (at_...): `analytics admin-token create`.",
                       headers={"WWW-Authenticate": 'Bearer realm="analytics-admin", error="invalid_token"'})
    with transaction() as conn:
        identity = admin_tokens.authenticate(conn, secret.strip())
    if identity is None:
        raise ApiError(401, "invalid_token", "The admin token is unknown or revoked.",
                       headers={"WWW-Authenticate": 'Bearer realm="analytics-admin", error="invalid_token"'})
    g.admin = identity


def register_admin_api(app: Flask) -> None:
    """Mount /api/v1 (authenticated) and /api/v1/openapi.json (public) on the collector."""
    api = Blueprint("admin_api", __name__, url_prefix="/api/v1")
    api.before_request(require_admin_token)
    for module in (sites_routes, keys_routes, metadata_routes, privacy_routes, audit_routes):
        api.register_blueprint(module.blueprint)
    app.register_blueprint(openapi_routes.blueprint, url_prefix="/api/v1")
    app.register_blueprint(api)

    @app.errorhandler(AdminError)
    def handle_admin_error(exc: AdminError):
        return error_response(_STATUS.get(type(exc), 422), exc.code, exc.message, to_json(exc.details))
