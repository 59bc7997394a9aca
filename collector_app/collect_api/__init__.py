"""The collection endpoints: `POST /collect/server` and `/collect/server/erase` (server keys), and
the browser side (`GET /a.js`, `GET|POST /collect`). Thin HTTP over `pipelines.ingest`."""
from __future__ import annotations

from flask import Flask, request

from collector_app.collect_api.beacon import BeaconEndpoint
from collector_app.collect_api.browser import make_browser_blueprint
from collector_app.collect_api.context import ingestion
from collector_app.collect_api.server import bp as server_bp


def register_collect_api(app: Flask) -> None:
    """Register the collection blueprints on the collector app (browser paths from the settings)."""
    app.register_blueprint(server_bp)
    app.register_blueprint(make_browser_blueprint(app.config["ANALYTICS_SETTINGS"]))
    beacon = BeaconEndpoint(app, app.wsgi_app)
    app.wsgi_app = beacon
    # The middleware answers the beacon before Flask routes anything (when the Flask app is served
    # alone; collector_app.asgi answers it in the event loop); the route is declared in Flask's map
    # too so that OPTIONS and the Allow header of a 405 list POST.
    app.add_url_rule(app.config["ANALYTICS_SETTINGS"].collect_path, "collect_beacon",
                     lambda: beacon.flask_response(request.environ), methods=["POST"])


def start_ingestion(app: Flask) -> None:
    """Start the process's event writer now (it replays the spool first) rather than on the first
    event: called once per worker process, from collector_app/wsgi.py."""
    ingestion(app).writer.start()
