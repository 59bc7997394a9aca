"""The first-run setup: create the first administrator through the link `analytics up` printed.

Both calls are public; the link's token is the credential. Once an administrator exists they
answer 410 `setup_done` whatever the token; a wrong or expired token is 403 `setup_link_invalid`.
A successful setup signs the new administrator in exactly as `POST /session` does.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app.accounts import setup_link
from workbench_app.accounts.shapes import FirstAdministrator
from workbench_app.api.authentication import json_body, services
from workbench_app.api.public_views import public
from workbench_app.api.session_routes import open_browser_session, require_json
from workbench_app.request_shapes import validated

blueprint = Blueprint("setup", __name__)


@public
@blueprint.get("/setup")
def read_setup():
    with services().transaction() as conn:
        setup_link.check(conn, request.args.get("token"))
    return jsonify({"state": "open"})


@public
@blueprint.post("/setup")
def complete_setup():
    require_json()
    body = json_body()
    token = body.get("token")
    with services().transaction() as conn:
        # The link is checked before the fields: without it, nothing about the form is revealed.
        setup_link.check(conn, token)
        fields = validated(FirstAdministrator, body).model_dump(exclude={"token"})
        user = setup_link.create_first_administrator(conn, token, **fields)
    return open_browser_session(user["user_id"])
