"""Inbound sources over HTTP: the signed webhook receivers (`/ingest/chat/<id>`, `/ingest/db/<id>`)
and their administration under `/api/v1/inbound-sources`. The logic lives in `pipelines.inbound`."""
from __future__ import annotations

from flask import Flask

from collector_app.inbound_api import admin_routes, receivers


def register_inbound_api(app: Flask) -> None:
    """Mount the receivers and the administration routes of inbound sources."""
    app.register_blueprint(receivers.blueprint)
    app.register_blueprint(admin_routes.blueprint)
