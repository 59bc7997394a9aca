"""The workbench's settings (administrators)."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app.accounts import instance_settings
from workbench_app.accounts.shapes import SettingsChange
from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.request_shapes import validated
from workbench_app.single_sign_on import configuration as single_sign_on


def _with_sign_in_methods(conn, answer: dict) -> dict:
    sso = single_sign_on.effective(conn, services().settings)
    return {**answer, "sign_in_methods": {"password": sso.password_sign_in, "oidc": sso.enabled}}

blueprint = Blueprint("settings", __name__)


@blueprint.get("/settings")
def read_settings():
    require_admin()
    with services().transaction() as conn:
        return jsonify(_with_sign_in_methods(conn, instance_settings.read(conn)))


@blueprint.patch("/settings")
def update_settings():
    actor = require_admin()
    change = validated(SettingsChange, json_body()).model_dump()
    locale = change.pop("default_locale")
    sharing = change  # public_sharing, external_recipients and the limits (None: unchanged)
    with services().transaction() as conn:
        return jsonify(_with_sign_in_methods(conn, instance_settings.update(conn, actor, locale, sharing)))
