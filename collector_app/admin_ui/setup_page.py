"""The first-run setup page: `/admin/setup?token=...`, the link `analytics up` prints while the
collector has no administrator account, creates the first one and signs them in.

Public (no session exists yet): the link's token is the credential, and it stands in for the
CSRF token too, since a forged cross-site form cannot know it. A wrong or expired link gets 403,
any link once an administrator exists gets 410: a page that says so, never a second administrator.
"""
from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import get_locale

from collector_app.admin_ui import security
from collector_app.admin_ui.forms import attempt, read
from pipelines.admin import admin_setup
from pipelines.web_auth.setup_links import SetupState

# The page's status for each state of the link.
STATUS = {SetupState.OPEN: 200, SetupState.INVALID: 403, SetupState.DONE: 410}


def _page(state: SetupState, token: str, *, values=None, error=None, status: int | None = None):
    values = values or {"email": "", "locale": str(get_locale())}
    return render_template("admin/setup.html", state=state.value, token=token, values=values,
                           error=error), status or STATUS[state]


def setup():
    token = (request.form if request.method == "POST" else request.args).get("token", "")
    if request.method == "GET":
        return _page(read(lambda conn: admin_setup.state(conn, token)), token)
    values = {"email": request.form.get("email", ""), "locale": request.form.get("locale") or None}

    def create(conn):
        user = admin_setup.create_first_administrator(conn, token, email=values["email"],
                                                      password=request.form.get("password", ""),
                                                      locale=values["locale"])
        return security.open_session(conn, user["user_id"])

    secret, error = attempt(create)
    if error is not None:
        refused = {"setup_done": SetupState.DONE, "setup_link_invalid": SetupState.INVALID}.get(error.code)
        if refused is not None:
            return _page(refused, token)
        return _page(SetupState.OPEN, token, values=values, error=error, status=422)
    response = redirect(url_for("admin_ui.sites"), code=303)
    security.set_session_cookie(response, secret)
    return response


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/setup", "setup", setup, methods=["GET", "POST"])
