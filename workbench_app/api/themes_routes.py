"""Themes: administrators keep them; a folder or a dashboard names its own; everyone reads the
theme that applies (resolved on the server, workbench_app/themes/resolution.py)."""
from __future__ import annotations

from flask import Blueprint, Response, g, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, services
from workbench_app.content import dashboards, folders, questions
from workbench_app.request_shapes import validated
from workbench_app.themes import catalog, logo
from workbench_app.themes.shapes import NewTheme, ThemeAssignment, ThemeChange
from workbench_app.themes.resolution import effective_theme

blueprint = Blueprint("themes", __name__)


@blueprint.get("/themes")
def list_themes():
    with services().transaction() as conn:
        return jsonify({"themes": catalog.list_themes(conn)})


@blueprint.post("/themes")
def create_theme():
    new = validated(NewTheme, json_body())
    with services().transaction() as conn:
        return jsonify(catalog.create_theme(conn, identity(), new.name, new.settings)), 201


@blueprint.get("/themes/<theme_id>")
def get_theme(theme_id):
    with services().transaction() as conn:
        return jsonify(catalog.get_theme(conn, check.path_id(theme_id, "Theme")))


@blueprint.put("/themes/<theme_id>")
def update_theme(theme_id):
    """Rename and/or replace the settings whole."""
    change = validated(ThemeChange, json_body())
    with services().transaction() as conn:
        return jsonify(catalog.update_theme(conn, identity(), check.path_id(theme_id, "Theme"), change.name,
                                            change.settings))


@blueprint.delete("/themes/<theme_id>")
def delete_theme(theme_id):
    with services().transaction() as conn:
        catalog.delete_theme(conn, identity(), check.path_id(theme_id, "Theme"))
    return "", 204


@blueprint.put("/themes/<theme_id>/logo")
def put_logo(theme_id):
    """The raw image as the body, its type as Content-Type (PNG, JPEG or WebP; at most 256 KB)."""
    if (request.content_length or 0) > logo.MAX_BYTES:
        logo.checked_logo(request.mimetype, b"\0" * (logo.MAX_BYTES + 1))
    image, kind = logo.checked_logo(request.mimetype, request.get_data(cache=False)[: logo.MAX_BYTES + 1])
    with services().transaction() as conn:
        return jsonify(catalog.set_logo(conn, identity(), check.path_id(theme_id, "Theme"), image, kind))


@blueprint.delete("/themes/<theme_id>/logo")
def delete_logo(theme_id):
    with services().transaction() as conn:
        return jsonify(catalog.set_logo(conn, identity(), check.path_id(theme_id, "Theme"), None, None))


@blueprint.get("/themes/<theme_id>/logo")
def theme_logo(theme_id):
    with services().transaction() as conn:
        image, kind = catalog.get_logo(conn, check.path_id(theme_id, "Theme"))
    response = Response(image, mimetype=kind)
    # An image and nothing else, even if a browser were to look at it as a document.
    response.headers["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response.headers["Cache-Control"] = "private, no-cache"
    return response


def _theme_id(body) -> int | None:
    return validated(ThemeAssignment, body).theme_id


@blueprint.get("/folders/<folder_id>/theme")
def folder_theme(folder_id):
    """The theme that applies to what the folder holds (its own, else the nearest folder's above)."""
    folder_id = check.path_id(folder_id, "Folder")
    with services().transaction() as conn:
        folders.require(conn, identity(), folder_id, "view")
        return jsonify(effective_theme(conn, folder_id=folder_id))


@blueprint.put("/folders/<folder_id>/theme")
def set_folder_theme(folder_id):
    """`{"theme_id": 3}` gives the folder its own theme; `{"theme_id": null}` inherits again."""
    theme_id = _theme_id(json_body())
    folder_id = check.path_id(folder_id, "Folder")
    with services().transaction() as conn:
        catalog.assign_to_folder(conn, identity(), folder_id, theme_id)
        return jsonify(effective_theme(conn, folder_id=folder_id))


@blueprint.get("/dashboards/<dashboard_id>/theme")
def dashboard_theme(dashboard_id):
    """The theme that applies to the dashboard; a print ticket carries the theme it prints with."""
    dashboard_id = check.path_id(dashboard_id, "Dashboard")
    ticket = getattr(g, "print_ticket", None)
    if ticket is not None:
        return jsonify(ticket.theme)
    with services().transaction() as conn:
        dashboards.get_dashboard(conn, identity(), dashboard_id)
        return jsonify(effective_theme(conn, dashboard_id=dashboard_id))


@blueprint.put("/dashboards/<dashboard_id>/theme")
def set_dashboard_theme(dashboard_id):
    theme_id = _theme_id(json_body())
    dashboard_id = check.path_id(dashboard_id, "Dashboard")
    with services().transaction() as conn:
        catalog.assign_to_dashboard(conn, identity(), dashboard_id, theme_id)
        return jsonify(effective_theme(conn, dashboard_id=dashboard_id))


@blueprint.get("/questions/<question_id>/theme")
def question_theme(question_id):
    """A question takes its folder's theme."""
    with services().transaction() as conn:
        question = questions.get_question(conn, identity(), check.path_id(question_id, "Question"))
        return jsonify(effective_theme(conn, folder_id=question["folder_id"]))
