"""Flask application factory of the analysis workbench."""
from __future__ import annotations

from flask import Flask, jsonify

from pipelines.health import health_report
from pipelines.settings import Settings


def create_app(settings: Settings | None = None) -> Flask:
    """Build the workbench app. No database work happens here: only on requests."""
    settings = settings or Settings.from_env()
    app = Flask(__name__)
    app.config["ANALYTICS_SETTINGS"] = settings
    _add_workbench(app, settings)

    @app.get("/healthz")
    def healthz():
        status, body = health_report(settings, "workbench")
        return jsonify(body), status

    return app


def _add_workbench(app: Flask, settings: Settings) -> None:
    """The API (/api/v1) and the agent tool server (/mcp) over one set of per-worker services."""
    from workbench_app.api import register_api
    from workbench_app.json_encoding import WorkbenchJSONProvider
    from workbench_app.mcp_server.mount import ToolServerDispatch
    from workbench_app.services import WorkbenchServices

    from workbench_app.i18n import init_languages
    from workbench_app.page_shell import embed_page, unsubscribe_page
    from workbench_app.page_shell.web_app import register_web_app

    services = WorkbenchServices(settings)
    app.extensions["workbench"] = services
    app.json = WorkbenchJSONProvider(app)
    init_languages(app)
    register_api(app)
    register_web_app(app)
    app.register_blueprint(embed_page.blueprint)
    app.register_blueprint(unsubscribe_page.blueprint)
    app.wsgi_app = ToolServerDispatch(app.wsgi_app, services)
