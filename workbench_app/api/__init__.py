"""`/api/v1` of the workbench: blueprints per area, bearer API tokens, structured errors."""
from __future__ import annotations

from flask import Blueprint, Flask

from workbench_app.api import (
    accounts_routes,
    analyses_routes,
    assistant_routes,
    content_routes,
    dashboards_routes,
    home_routes,
    openapi,
    password_link_routes,
    permissions_routes,
    print_routes,
    query_routes,
    records_routes,
    segments_routes,
    session_routes,
    settings_routes,
    setup_routes,
    sharing_routes,
    single_sign_on_routes,
    sources_routes,
    subscriptions_routes,
    themes_routes,
)
from workbench_app.api.authentication import authenticate_request, services
from workbench_app.api.errors import register_error_handlers

PREFIX = openapi.SERVER_URL  # the document's paths are relative to the mount point


def register_api(app: Flask) -> None:
    api = Blueprint("api_v1", __name__, url_prefix=PREFIX)
    # Before anything runs in this worker, it listens for cancellations (running_statements).
    api.before_request(lambda: services().running_statements.start())
    api.before_request(authenticate_request)
    for module in (openapi, session_routes, setup_routes, accounts_routes, permissions_routes, sources_routes, query_routes, content_routes, analyses_routes,
                   segments_routes, dashboards_routes, records_routes, password_link_routes, settings_routes, assistant_routes,
                   themes_routes, print_routes, single_sign_on_routes, sharing_routes, home_routes, subscriptions_routes):
        api.register_blueprint(module.blueprint)
    api.after_request(home_routes.remember_visit)
    app.register_blueprint(api)
    register_error_handlers(app)


def api_document() -> dict:
    """The OpenAPI document outside a request (`make api-types`, the client types' test), read from a
    bare app that has only the API's blueprints."""
    app = Flask(__name__)
    register_api(app)
    return openapi.document(app)
