"""Groups, memberships and data permissions (administrators only; every change is audited)."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app import input_checks as check
from workbench_app.accounts import groups, users
from workbench_app.accounts.identity import Identity
from workbench_app.accounts.shapes import NewGroup
from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.i18n import translate
from workbench_app.permissions import permission_rules, rule_check
from workbench_app.permissions.shapes import CatalogGrants, PreviewStatement, RuleToCheck, TableRule
from workbench_app.request_shapes import validated
from workbench_app.statements import preview_as

blueprint = Blueprint("permissions", __name__)


@blueprint.get("/groups")
def list_groups():
    require_admin()
    with services().transaction() as conn:
        return jsonify({"groups": groups.list_groups(conn)})


@blueprint.post("/groups")
def create_group():
    actor = require_admin()
    group = validated(NewGroup, json_body())
    with services().transaction() as conn:
        return jsonify(groups.create_group(conn, actor, group.name, group.description)), 201


@blueprint.get("/groups/<group_id>")
def get_group(group_id):
    require_admin()
    with services().transaction() as conn:
        return jsonify(groups.get_group(conn, check.path_id(group_id, "Group")))


@blueprint.delete("/groups/<group_id>")
def delete_group(group_id):
    actor = require_admin()
    with services().transaction() as conn:
        groups.delete_group(conn, actor, check.path_id(group_id, "Group"))
    return "", 204


@blueprint.put("/groups/<group_id>/members/<user_id>")
def add_member(group_id, user_id):
    actor = require_admin()
    with services().transaction() as conn:
        return jsonify(groups.add_member(conn, actor, check.path_id(group_id, "Group"), check.path_id(user_id, "User")))


@blueprint.delete("/groups/<group_id>/members/<user_id>")
def remove_member(group_id, user_id):
    actor = require_admin()
    with services().transaction() as conn:
        return jsonify(groups.remove_member(conn, actor, check.path_id(group_id, "Group"),
                                            check.path_id(user_id, "User")))


@blueprint.get("/groups/<group_id>/permissions")
def group_permissions(group_id):
    require_admin()
    with services().transaction() as conn:
        return jsonify(permission_rules.group_permissions(conn, check.path_id(group_id, "Group")))


@blueprint.put("/groups/<group_id>/catalogs")
def set_catalogs(group_id):
    actor = require_admin()
    catalogs = validated(CatalogGrants, json_body()).catalogs
    with services().transaction() as conn:
        return jsonify(permission_rules.set_catalog_grants(conn, actor, check.path_id(group_id, "Group"), catalogs))


@blueprint.post("/groups/<group_id>/rules")
def put_rule(group_id):
    """Create or replace the group's rule for one table."""
    actor = require_admin()
    rule = validated(TableRule, json_body()).model_dump(by_alias=True)
    with services().transaction() as conn:
        saved = permission_rules.put_table_rule(conn, actor, check.path_id(group_id, "Group"), rule)
        engine = services().catalogs.current(conn)
    saved["problems"] = permission_rules.rule_problems_now(engine, saved)
    saved["warnings"] = _answered(rule_check.quoted_placeholder_warnings(saved["row_filter"]))
    return jsonify(saved), 201


def _answered(notes) -> list[dict]:
    return [{**note.as_dict(), "message": translate(note.message)} for note in notes]


@blueprint.post("/rules/check")
def check_rule():
    """Check a rule as it is typed: the row filter against the table's columns, quoted placeholders."""
    require_admin()
    rule = validated(RuleToCheck, json_body())
    with services().transaction() as conn:
        engine = services().catalogs.current(conn)
    verdict = rule_check.check_rule(engine, rule.catalog, rule.schema_, rule.table, rule.row_filter)
    return jsonify({**verdict, "problems": _answered(verdict["problems"]), "warnings": _answered(verdict["warnings"])})


@blueprint.delete("/groups/<group_id>/rules/<rule_id>")
def delete_rule(group_id, rule_id):
    actor = require_admin()
    with services().transaction() as conn:
        permission_rules.delete_table_rule(conn, actor, check.path_id(group_id, "Group"), check.path_id(rule_id, "Rule"))
    return "", 204


@blueprint.post("/users/<user_id>/preview")
def preview_as_user(user_id):
    """"View as": run a sample statement as this person; their rows, columns and deciding grants."""
    actor = require_admin()
    sql = validated(PreviewStatement, json_body()).sql
    with services().transaction() as conn:
        person = users.get_user(conn, check.path_id(user_id, "User"))
    who = Identity(person["user_id"], person["email"], person["is_admin"], locale=person["locale"])
    return jsonify(preview_as.preview(services(), actor, who, sql))
