"""Sources (administrators): connect, change, remove; each becomes a catalog in every worker."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app import input_checks as check
from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.errors import invalid
from workbench_app.i18n import translate
from workbench_app.sources import connection_test, credentials, registry


blueprint = Blueprint("sources", __name__)
# Ids are digits, so that GET /sources/refresh is the 405 of the POST-only route, not "Source not found".
SOURCE = "/sources/<int:source_id>"


def _with_status(conn, rows):
    """Each source with whether this worker has it attached (and why not)."""
    catalogs = services().catalogs
    catalogs.current(conn)
    attached = {name.lower() for name in catalogs.engine.catalogs()} if catalogs.engine else set()
    for row in rows:
        failure = catalogs.failures.get(row["name"])
        row["status"] = "attached" if row["name"].lower() in attached else "unavailable"
        row["error"] = failure
    return rows


def _password(body):
    password = check.text(body, "password", max_length=1000)
    if password is not None and any(ch.isspace() or ch in "'\"\\" for ch in password):
        # Passwords travel inside a key=value connection string.
        raise invalid("password may not contain spaces, quotes or backslashes.", field="password")
    return password


@blueprint.get("/sources")
def list_sources():
    require_admin()
    with services().transaction() as conn:
        return jsonify({"sources": _with_status(conn, registry.list_sources(conn))})


@blueprint.post("/sources")
def create_source():
    actor = require_admin()
    body = json_body()
    name = check.text(body, "name", required=True, max_length=63)
    kind = check.one_of(body, "kind", registry.KINDS, required=True)
    options = check.mapping(body, "options")
    with services().transaction() as conn:
        source = registry.create_source(conn, services().settings, actor, name=name, kind=kind, options=options,
                                        password=_password(body))
    with services().transaction() as conn:
        return jsonify(_with_status(conn, [source])[0]), 201


@blueprint.get(SOURCE)
def get_source(source_id):
    require_admin()
    with services().transaction() as conn:
        return jsonify(_with_status(conn, [registry.get_source(conn, check.path_id(source_id, "Source"))])[0])


@blueprint.patch(SOURCE)
def update_source(source_id):
    actor = require_admin()
    body = json_body()
    options = check.mapping(body, "options") if "options" in body else None
    with services().transaction() as conn:
        source = registry.update_source(conn, services().settings, actor, check.path_id(source_id, "Source"),
                                        options=options, password=_password(body),
                                        clear_password=bool(check.boolean(body, "clear_password", default=False)))
    with services().transaction() as conn:
        return jsonify(_with_status(conn, [source])[0])


@blueprint.delete(SOURCE)
def delete_source(source_id):
    actor = require_admin()
    with services().transaction() as conn:
        registry.delete_source(conn, actor, check.path_id(source_id, "Source"))
    return "", 204


@blueprint.post("/sources/refresh")
def refresh_sources():
    """Re-read every source's tables in every worker (for instance after new warehouse views)."""
    actor = require_admin()
    with services().transaction() as conn:
        version = registry.refresh_sources(conn, actor)
    return jsonify({"version": version})


def _tested(kind: str, name: str, options: dict, password: str | None):
    outcome = connection_test.run_test(services().settings, name, kind, options, password)
    if not outcome["ok"]:
        error = outcome["error"]
        outcome["error"] = {**error.as_dict(), "message": translate(error.message)}
    return jsonify(outcome)


@blueprint.post("/sources/test")
def test_new_source():
    """Reach a source as the form describes it, before saving; nothing is stored."""
    require_admin()
    body = json_body()
    kind = check.one_of(body, "kind", registry.KINDS, required=True)
    options = registry.check_options(kind, check.mapping(body, "options"))
    password = _password(body)
    registry.check_password_kind(kind, password)
    return _tested(kind, "probe", options, password)


@blueprint.post(SOURCE + "/test")
def test_saved_source(source_id):
    """Reach a saved source, with changed options or a new password if the form has them (not saved)."""
    require_admin()
    body = json_body(optional=True)
    options = check.mapping(body, "options")
    password = _password(body)
    with services().transaction() as conn:
        source = registry.stored_source(conn, check.path_id(source_id, "Source"))
    registry.check_password_kind(source["kind"], password)
    merged = registry.check_options(source["kind"], {**source["options"], **options})
    if password is None and source["sealed_secret"]:
        password = credentials.unseal_password(services().settings, source["source_id"], source["sealed_secret"])
    return _tested(source["kind"], source["name"], merged, password)
