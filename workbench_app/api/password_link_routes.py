"""One-time password links: an administrator issues one (invitation or reset); the person, with
only the link's token, reads whose it is and sets a password, which signs them in."""
from __future__ import annotations

from flask import Blueprint, jsonify

from workbench_app import input_checks as check
from workbench_app.accounts import password_links
from workbench_app.accounts.shapes import NewPassword, PasswordLinkRequest
from workbench_app.api.authentication import json_body, require_admin, services
from workbench_app.api.public_views import public
from workbench_app.api.session_routes import open_browser_session, require_json
from workbench_app.request_shapes import validated

blueprint = Blueprint("password_links", __name__)


@blueprint.post("/users/<user_id>/password-link")
def issue_password_link(user_id):
    actor = require_admin()
    body = json_body()  # an object, as for every write; `{}` asks for a reset link
    purpose = validated(PasswordLinkRequest, body).purpose
    with services().transaction() as conn:
        link = password_links.issue(conn, actor, check.path_id(user_id, "User"), purpose)
    return jsonify(link), 201


@public
@blueprint.post("/password-link/check")
def check_password_link():
    """Whose link this is (the page greets them by e-mail address) — public, the token is the credential."""
    require_json()
    body = json_body()
    with services().transaction() as conn:
        link = password_links.check(conn, body.get("token"))
    return jsonify({"email": link["email"], "purpose": link["purpose"]})


@public
@blueprint.post("/password-link")
def use_password_link():
    require_json()
    body = json_body()
    token = body.get("token")
    with services().transaction() as conn:
        # The link first: without it, nothing about the form is revealed.
        password_links.check(conn, token)
        user_id = password_links.set_password(conn, token, validated(NewPassword, body).password)
    return open_browser_session(user_id)
