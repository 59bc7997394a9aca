"""Sites (list with check figures, create, edit, tracking snippet), server keys and check figures."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request, url_for

from collector_app.admin_ui import one_time_values
from collector_app.admin_ui.forms import attempt, read
from collector_app.admin_ui.security import actor
from pipelines.admin import server_keys, site_health, sites
from pipelines.admin.errors import NotFound


def site_or_404(conn, site_id: str) -> dict:
    try:
        return sites.get_site(conn, site_id)
    except NotFound:
        abort(404)


def _site_body(form) -> dict:
    """The API body of a site from the form's fields (the domain checks every value)."""
    retention = form.get("retention_months", "").strip()
    body = {
        "name": form.get("name", ""),
        "domains": [line.strip() for line in form.get("domains", "").splitlines() if line.strip()],
        "tracking_mode": form.get("tracking_mode", ""),
        "accept_user_id": form.get("accept_user_id") == "on",
        "retention_months": int(retention) if retention.isdigit() and len(retention) < 6 else retention,
        "timezone": form.get("timezone", "").strip() or "UTC",
        "currency": form.get("currency", "").strip() or "EUR",
    }
    if not retention:
        del body["retention_months"]  # the domain's default on creation, unchanged on an edit
    return body


def list_sites():
    def load(conn):
        return [(site, site_health.site_health(conn, site["id"])) for site in sites.list_sites(conn)]
    return render_template("admin/sites.html", rows=read(load))


def new_site():
    values = {"tracking_mode": "cookieless", "retention_months": 25, "timezone": "UTC", "currency": "EUR",
              "domains": [], "accept_user_id": False, "name": ""}
    error = None
    if request.method == "POST":
        body = _site_body(request.form)
        site, error = attempt(lambda conn: sites.create_site(conn, body, actor=actor()))
        if error is None:
            return redirect(url_for("admin_ui.site_settings", site_id=site["id"], created=1), code=303)
        values = {**values, **body, "retention_months": request.form.get("retention_months", "")}
    return render_template("admin/site_new.html", values=values, error=error), 422 if error else 200


def _settings_page(site_id: str, *, values=None, error=None, key_error=None, status=200):
    new_key = one_time_values.take(request.path) if request.method == "GET" else None

    def load(conn):
        site = site_or_404(conn, site_id)
        return site, server_keys.list_server_keys(conn, site["id"])
    site, keys = read(load)
    settings = current_app.config["ANALYTICS_SETTINGS"]
    response = make_response(render_template(
        "admin/site_settings.html", site=site, values=values or site, error=error, keys=keys, new_key=new_key,
        key_error=key_error, created=request.args.get("created") == "1",
        script_url=request.host_url.rstrip("/") + settings.script_path), status)
    return response


def site_settings(site_id: str):
    if request.method == "POST":
        body = _site_body(request.form)
        _, error = attempt(lambda conn: sites.update_site(conn, site_id, body, actor=actor()))
        if error is None:
            return redirect(url_for("admin_ui.site_settings", site_id=site_id, saved=1), code=303)
        return _settings_page(site_id, values={**body, "id": site_id}, error=error, status=422)
    return _settings_page(site_id)


def create_key(site_id: str):
    name = request.form.get("name", "")
    key, error = attempt(lambda conn: server_keys.create_server_key(conn, site_id, actor=actor(), name=name))
    if error is not None:
        return _settings_page(site_id, key_error=error, status=422)
    # Redirected, so a reload never creates a second key; the page after it shows the secret once.
    page = url_for("admin_ui.site_settings", site_id=site_id)
    response = redirect(page + "#server-keys", code=303)
    return one_time_values.keep(response, page, {"name": key["name"], "secret": key["secret"]})


def revoke_key(site_id: str, key_id: str):
    _, error = attempt(lambda conn: server_keys.revoke_server_key(conn, site_id, key_id, actor=actor()))
    if error is not None:
        abort(404)
    return redirect(url_for("admin_ui.site_settings", site_id=site_id, revoked=1) + "#server-keys", code=303)


def figures(site_id: str):
    def load(conn):
        site = site_or_404(conn, site_id)
        return site, site_health.site_health(conn, site["id"])
    site, health = read(load)
    return render_template("admin/figures.html", site=site, health=health)


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/", "home", lambda: redirect(url_for("admin_ui.sites")))
    ui.add_url_rule("/sites", "sites", list_sites)
    ui.add_url_rule("/sites/new", "new_site", new_site, methods=["GET", "POST"])
    ui.add_url_rule("/sites/<site_id>/settings", "site_settings", site_settings, methods=["GET", "POST"])
    ui.add_url_rule("/sites/<site_id>/server-keys", "create_key", create_key, methods=["POST"])
    ui.add_url_rule("/sites/<site_id>/server-keys/<key_id>/revoke", "revoke_key", revoke_key, methods=["POST"])
    ui.add_url_rule("/sites/<site_id>/figures", "figures", figures)
