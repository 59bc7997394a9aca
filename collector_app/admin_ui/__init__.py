"""The collector's administration pages under /admin: server-rendered Jinja templates over the
same domain functions as the administration API (`pipelines.admin`), for site owners.

Sign-in opens a server-side session (`pipelines.web_auth`); every form carries the session's CSRF
token; every page forbids framing and runs no inline script (the little JavaScript there is lives
in `static/admin.js`). Language: the account's choice, else the browser's (Flask-Babel).
"""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, send_file
from flask_babel import Babel, get_locale

from collector_app.admin_ui import (audit_pages, channel_pages, metadata_pages, one_time_values, privacy_pages,
                                    security, setup_page, signin, site_pages)
from collector_app.admin_ui.security import choose_locale

TOKENS_CSS = Path(__file__).resolve().parents[2] / "pipelines" / "design" / "tokens.css"


def register_admin_ui(app: Flask) -> None:
    """Mount /admin on the collector (pages, their static files, the shared design tokens)."""
    Babel(app, locale_selector=choose_locale)
    app.jinja_env.globals["get_locale"] = get_locale
    ui = Blueprint("admin_ui", __name__, url_prefix="/admin", template_folder="templates",
                   static_folder="static", static_url_path="/static")
    security.install(ui)
    ui.after_request(one_time_values.forget_after_reading)
    for module in (signin, setup_page, site_pages, metadata_pages, channel_pages, privacy_pages, audit_pages):
        module.register(ui)

    @ui.get("/static/tokens.css")
    def tokens_css():
        # The one stylesheet of design tokens, shared with the workbench, served as it is.
        return send_file(TOKENS_CSS, mimetype="text/css", max_age=3600)

    app.register_blueprint(ui)
