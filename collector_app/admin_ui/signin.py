"""Sign-in, sign-out and the account's language."""
from __future__ import annotations

import math

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from collector_app.admin_ui import security
from collector_app.admin_ui.forms import read
from collector_app.database import transaction
from pipelines.admin import admin_setup, admin_users
from pipelines.ingest.browser import client_ip
from pipelines.web_auth.throttle import SignInThrottle

THROTTLE_KEY = "admin_sign_in_throttle"


def throttle() -> SignInThrottle:
    """The app's throttle: per worker process, in memory, addresses only as HMACs."""
    return current_app.extensions.setdefault(THROTTLE_KEY, SignInThrottle())


def _address() -> str | None:
    """The client's address (behind a trusted proxy, the one it forwarded), for the throttle's
    HMAC only: never stored, never logged."""
    return client_ip(request.remote_addr, request.headers.get("X-Forwarded-For"),
                     current_app.config["ANALYTICS_SETTINGS"].trusted_proxies)


def _safe_next(target: str | None) -> str:
    """Only a path of these pages: never an open redirect."""
    if target and target.startswith("/admin") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("admin_ui.sites")


def sign_in():
    email = request.form.get("email", "") if request.method == "POST" else ""
    error = None
    status = 200
    if request.method == "POST":
        password = request.form.get("password", "")
        wait = throttle().retry_after(email, _address())
        if wait > 0:
            error = _("Too many failed attempts. Wait %(seconds)s seconds, then try again.",
                      seconds=math.ceil(wait))
            status = 429
        else:
            with transaction() as conn:
                user = admin_users.sign_in(conn, email, password)
                if user is not None:
                    secret = security.open_session(conn, user["user_id"])
            if user is None:
                wait = throttle().failed(email, _address())
                error = _("The e-mail address or the password is wrong.")
                if wait > 0:
                    error += " " + _("Wait %(seconds)s seconds before the next attempt.", seconds=math.ceil(wait))
                status = 401
            else:
                throttle().succeeded(email, _address())
                response = redirect(_safe_next(request.args.get("next")), code=303)
                security.set_session_cookie(response, secret)
                return response
    # A fresh installation: say where the first account comes from, rather than refuse every password.
    awaiting_setup = not read(admin_setup.LINKS.administrator_exists)
    return render_template("admin/sign_in.html", email=email, error=error, awaiting_setup=awaiting_setup), status


def sign_out():
    with transaction() as conn:
        security.SESSIONS.close(conn, request.cookies.get(security.COOKIE))
    response = redirect(url_for("admin_ui.sign_in"), code=303)
    response.delete_cookie(security.COOKIE, path="/admin")
    return response


def set_language():
    locale = request.form.get("locale") or None
    with transaction() as conn:
        admin_users.set_locale(conn, g.admin_user["user_id"], locale if locale in admin_users.LOCALES else None)
    return redirect(_safe_next(request.form.get("next")), code=303)


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/sign-in", "sign_in", sign_in, methods=["GET", "POST"])
    ui.add_url_rule("/sign-out", "sign_out", sign_out, methods=["POST"])
    ui.add_url_rule("/account/language", "set_language", set_language, methods=["POST"])
