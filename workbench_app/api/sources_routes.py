"""Sources (administrators): connect, change, remove; each becomes a catalog in every worker."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app import input_checks as check
from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.i18n import translate
from workbench_app.request_shapes import validated
from workbench_app.sources import connection_test, credentials, registry
from workbench_app.sources.shapes import NewSource, SourceChange, SourceProbe, SourceRetest


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


@blueprint.get("/sources")
def list_sources():
    require_admin()
    with services().transaction() as conn:
        return jsonify({"sources": _with_status(conn, registry.list_sources(conn))})


@blueprint.post("/sources")
def create_source():
    actor = require_admin()
    new = validated(NewSource, json_body())
    with services().transaction() as conn:
        source = registry.create_source(conn, services().settings, actor, name=new.name, kind=new.kind,
                                        options=new.options, password=new.password)
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
    change = validated(SourceChange, json_body())
    with services().transaction() as conn:
        source = registry.update_source(conn, services().settings, actor, check.path_id(source_id, "Source"),
                                        options=change.options, password=change.password,
                                        clear_password=change.clear_password)
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
    probe = validated(SourceProbe, json_body())
    options = registry.check_options(probe.kind, probe.options)
    registry.check_password_kind(probe.kind, probe.password)
    return _tested(probe.kind, "probe", options, probe.password)


@blueprint.post(SOURCE + "/test")
def test_saved_source(source_id):
    """Reach a saved source, with changed options or a new password if the form has them (not saved)."""
    require_admin()
    retest = validated(SourceRetest, json_body(optional=True))
    options, password = retest.options, retest.password
    with services().transaction() as conn:
        source = registry.stored_source(conn, check.path_id(source_id, "Source"))
    registry.check_password_kind(source["kind"], password)
    merged = registry.check_options(source["kind"], {**source["options"], **options})
    if password is None and source["sealed_secret"]:
        password = credentials.unseal_password(services().settings, source["source_id"], source["sealed_secret"])
    return _tested(source["kind"], source["name"], merged, password)
