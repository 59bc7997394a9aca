"""Flask application factory of the collector."""
from __future__ import annotations

from flask import Flask, jsonify

from collector_app.admin_api import register_admin_api
from collector_app.admin_ui import register_admin_ui
from collector_app.collect_api import register_collect_api
from collector_app.errors import register_error_handlers
from collector_app.inbound_api import register_inbound_api
from pipelines.health import health_report
from pipelines.settings import Settings


def create_app(settings: Settings | None = None) -> Flask:
    """Build the collector app. No database work happens here: only on requests."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config["ANALYTICS_SETTINGS"] = settings
    register_error_handlers(app)
    register_collect_api(app)
    register_admin_api(app)
    register_admin_ui(app)
    register_inbound_api(app)

    @app.get("/healthz")
    def healthz():
        status, body = health_report(settings, "collector")
        return jsonify(body), status

    return app
