"""Privacy requests: export (JSON or CSV download) and erasure (after a confirmation step) of one
person's data, and the list of requests with their state. The same functions as
`POST /collect/server/erase` and `/api/v1/sites/{id}/privacy-requests`."""
from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for

from collector_app.admin_ui.forms import FormError, attempt, read
from collector_app.admin_ui.security import actor
from collector_app.admin_ui.site_pages import site_or_404
from pipelines.admin import privacy_requests
from pipelines.admin.errors import NotFound


def _page(site_id: str, *, values=None, error: FormError | None = None, confirm=None, status: int = 200):
    def load(conn):
        site = site_or_404(conn, site_id)
        return site, privacy_requests.list_requests(conn, site["id"])
    site, requests_ = read(load)
    return render_template("admin/privacy.html", site=site, requests=requests_, values=values or {}, error=error,
                           confirm=confirm), status


def privacy(site_id: str):
    if request.method == "GET":
        return _page(site_id)
    form = request.form
    values = {"kind": form.get("kind", ""), "subject_kind": form.get("subject_kind", ""),
              "subject_value": form.get("subject_value", "")}
    if values["kind"] == "erasure" and form.get("confirmed") != "yes":
        return _page(site_id, values=values, confirm=values)
    key = privacy_requests.subject_key(current_app.config["ANALYTICS_SETTINGS"])
    _, error = attempt(lambda conn: privacy_requests.create_request(
        conn, site_id, values["kind"], values["subject_kind"], values["subject_value"], actor(), subject_key=key))
    if error is not None:
        if error.field in privacy_requests.SUBJECT_KINDS:
            error = FormError("subject_value", error.message, error.details)
        return _page(site_id, values=values, error=error, status=422)
    return redirect(url_for("admin_ui.privacy", site_id=site_id, created=1) + "#requests", code=303)


def _export_rows(site_id: str, request_id: str) -> list[dict]:
    def load(conn):
        site = site_or_404(conn, site_id)
        try:
            return privacy_requests.get_request(conn, site["id"], request_id)
        except NotFound:
            abort(404)
    record = read(load)
    if record["kind"] != "export" or record["state"] != "done":
        abort(404)
    path = privacy_requests.export_path(current_app.config["ANALYTICS_SETTINGS"], record["id"])
    if not path.is_file():
        abort(404)
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def download(site_id: str, request_id: str, extension: str):
    rows = _export_rows(site_id, request_id)
    if extension == "json":
        body, mimetype = json.dumps(rows, ensure_ascii=False, indent=1), "application/json"
    elif extension == "csv":
        columns = sorted({column for row in rows for column in row})
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({column: json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list))
                             else value for column, value in row.items()})
        body, mimetype = out.getvalue(), "text/csv"
    else:
        abort(404)
    return Response(body, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="export-{request_id}.{extension}"',
        "Cache-Control": "no-store"})


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/sites/<site_id>/privacy", "privacy", privacy, methods=["GET", "POST"])
    ui.add_url_rule("/sites/<site_id>/privacy/<request_id>/export.<extension>", "download_export", download)
