"""Metadata of a site: declared events and their properties, zones, goals, annotations, and
classifications imported from CSV (preview first; a refused file writes nothing)."""
from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from collector_app.admin_ui import one_time_values
from collector_app.admin_ui.forms import FormError, attempt, read
from collector_app.admin_ui.security import actor
from collector_app.admin_ui.site_pages import site_or_404
from pipelines.admin import annotations, classifications, declared_events, goals, zones
from pipelines.admin.errors import AdminError, InvalidInput

PREVIEW_ROWS = 10
BLANK_PROPERTY_ROWS = 3


def _page(site_id: str, *, section: str | None = None, values: dict | None = None, error: FormError | None = None,
          preview: dict | None = None, imported: dict | None = None, status: int = 200):
    def load(conn):
        site = site_or_404(conn, site_id)
        return {
            "site": site,
            "events": declared_events.list_events(conn, site["id"]),
            "zones": zones.list_zones(conn, site["id"]),
            "goals": goals.list_goals(conn, site["id"]),
            "annotations": annotations.list_annotations(conn, site["id"]),
            "classifications": classifications.list_classifications(conn, site["id"], limit=50),
        }
    context = read(load)
    return render_template("admin/metadata.html", section=section, values=values or {}, error=error,
                           preview=preview, imported=imported, blank_rows=BLANK_PROPERTY_ROWS, **context), status


def _done(site_id: str, anchor: str):
    return redirect(url_for("admin_ui.metadata", site_id=site_id) + "#" + anchor, code=303)


def metadata(site_id: str):
    imported = one_time_values.take(request.path)
    return _page(site_id, section="classifications" if imported else None, imported=imported)


def _optional(form, name: str) -> str | None:
    value = form.get(name, "")
    return value if value.strip() else None


def event_body():
    form = request.form
    properties = [
        {"name": name, "type": kind, "label": label, "description": description}
        for name, kind, label, description in zip(form.getlist("property_name"), form.getlist("property_type"),
                                                  form.getlist("property_label"),
                                                  form.getlist("property_description"))
        if name.strip() or label.strip()
    ]
    return {"name": form.get("name", ""), "label": form.get("label", ""),
            "description": form.get("description", ""), "properties": properties}


BODIES = {
    "events": (event_body, declared_events.create_event),
    "zones": (lambda: {key: request.form.get(key, "") for key in ("name", "selector", "label")}, zones.create_zone),
    "goals": (lambda: {key: value for key, value in {
        "name": request.form.get("name", ""),
        "path_pattern": _optional(request.form, "path_pattern"),
        "event_name": _optional(request.form, "event_name"),
        "property_name": _optional(request.form, "property_name"),
        "property_value": _optional(request.form, "property_value"),
        "value": _optional(request.form, "value"),
    }.items() if value is not None or key == "name"}, goals.create_goal),
    "annotations": (lambda: {"date": request.form.get("date", ""), "text": request.form.get("text", "")},
                    annotations.create_annotation),
}

# Reading and replacing one item; its name (events, zones) or id (goals, annotations) is the key.
EDITS = {
    "events": (declared_events.get_event, declared_events.replace_event),
    "zones": (zones.get_zone, zones.replace_zone),
    "goals": (goals.get_goal, goals.replace_goal),
    "annotations": (annotations.get_annotation, annotations.replace_annotation),
}

DELETES = {
    "events": declared_events.delete_event,
    "zones": zones.delete_zone,
    "goals": goals.delete_goal,
    "annotations": annotations.delete_annotation,
}


def _form_body(section: str) -> dict:
    body = BODIES[section][0]()
    if section == "goals" and body.get("value") is not None:
        try:
            body["value"] = float(body["value"].replace(",", "."))
        except ValueError:
            pass  # the domain refuses the text, naming the field
    return body


def create(site_id: str, section: str):
    if section not in BODIES:
        abort(404)
    body, operation = _form_body(section), BODIES[section][1]
    _, error = attempt(lambda conn: operation(conn, site_id, body, actor=actor()))
    if error is not None:
        return _page(site_id, section=section, values=request.form.to_dict(flat=False), error=error, status=422)
    return _done(site_id, section)


def _as_form_values(section: str, record: dict) -> dict[str, list[str]]:
    """A stored item in the shape of a submitted form (each field a list of strings)."""
    values = {key: ["" if value is None else str(value)] for key, value in record.items() if key != "properties"}
    for prop in record.get("properties", []):
        for key in ("name", "type", "label", "description"):
            values.setdefault(f"property_{key}", []).append(prop[key])
    return values


def edit(site_id: str, section: str, item: str):
    if section not in EDITS:
        abort(404)
    read_item, replace = EDITS[section]

    def load(conn):
        site = site_or_404(conn, site_id)
        try:
            return site, read_item(conn, site["id"], item)
        except AdminError:
            abort(404)
    site, record = read(load)
    name = record.get("name") or str(record.get("date"))
    values, error, status = _as_form_values(section, record), None, 200
    if request.method == "POST":
        body = _form_body(section)
        if section in ("events", "zones"):
            body.pop("name", None)  # the key of the item: not editable
        _, error = attempt(lambda conn: replace(conn, site_id, item, body, actor=actor()))
        if error is None:
            return _done(site_id, section)
        values, status = request.form.to_dict(flat=False), 422
    rows = max(BLANK_PROPERTY_ROWS, len(values.get("property_name", [])) + 1)
    return render_template("admin/metadata_edit.html", site=site, section=section, item=item, name=name,
                           values=values, error=error, rows=rows), status


def delete(site_id: str, section: str, item: str):
    if section not in DELETES:
        abort(404)
    _, error = attempt(lambda conn: DELETES[section](conn, site_id, item, actor=actor()))
    if error is not None:
        abort(404)
    return _done(site_id, section)


def _csv_data() -> bytes | str | None:
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        return upload.read()
    return request.form.get("content") or None


def import_classifications(site_id: str):
    data = _csv_data()
    if data is None:
        error = FormError("file", "choose a CSV file", {"field": "file"})
        return _page(site_id, section="classifications", error=error, status=422)
    if request.form.get("action") == "import":
        result, error = attempt(lambda conn: classifications.import_csv(conn, site_id, data, actor=actor()))
        if error is not None:
            return _page(site_id, section="classifications", error=error, status=422)
        # Redirected, so a reload does not import the file again.
        page = url_for("admin_ui.metadata", site_id=site_id)
        return one_time_values.keep(redirect(page + "#classifications", code=303), page,
                                    {"imported": result["imported"]})
    try:
        rows = classifications.parse_csv(data)
    except InvalidInput as exc:
        return _page(site_id, section="classifications", error=FormError.of(exc), status=422)
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    return _page(site_id, section="classifications",
                 preview={"rows": rows[:PREVIEW_ROWS], "total": len(rows), "content": text})


def register(ui: Blueprint) -> None:
    ui.add_url_rule("/sites/<site_id>/metadata", "metadata", metadata)
    ui.add_url_rule("/sites/<site_id>/metadata/classifications", "classifications", import_classifications,
                    methods=["POST"])
    ui.add_url_rule("/sites/<site_id>/metadata/<section>", "create_metadata", create, methods=["POST"])
    ui.add_url_rule("/sites/<site_id>/metadata/<section>/<path:item>/edit", "edit_metadata", edit,
                    methods=["GET", "POST"])
    ui.add_url_rule("/sites/<site_id>/metadata/<section>/<path:item>/delete", "delete_metadata", delete,
                    methods=["POST"])
