"""Accounts: password sign-in for a token, the caller, users (administrators), API tokens."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.accounts import api_tokens, instance_settings, users
from workbench_app.accounts.shapes import NewUser, ProfileChange, SignIn, TokenRequest, UserAttributes, UserChange, TokensQuery
from workbench_app.api.authentication import identity, json_body, password_sign_in, require_admin, services
from workbench_app.api.public_views import public
from workbench_app.request_shapes import validated, validated_query

blueprint = Blueprint("accounts", __name__)


@public
@blueprint.post("/auth/token")
def sign_in():
    """Exchange an e-mail address and password for a new API token (sign-in is audited)."""
    asked = validated(SignIn, json_body())
    who = password_sign_in(asked.email, asked.password)
    with services().transaction() as conn:
        record, secret = api_tokens.create_token(conn, who, asked.name)
    return jsonify({"token": record, "secret": secret}), 201


@blueprint.get("/me")
def me():
    with services().transaction() as conn:
        return jsonify(users.get_user(conn, identity().user_id))


@blueprint.patch("/me")
def update_me():
    """One's own display name and language (the language of the interface and of API messages)."""
    change = validated(ProfileChange, json_body())
    with services().transaction() as conn:
        return jsonify(users.update_profile(conn, identity(), change.display_name, change.locale))


@blueprint.get("/users")
def list_users():
    require_admin()
    with services().transaction() as conn:
        return jsonify({"users": users.list_users(conn)})


@blueprint.post("/users")
def create_user():
    actor = require_admin()
    new = validated(NewUser, json_body())
    with services().transaction() as conn:
        user = users.create_user(conn, actor, email=new.email, password=new.password, display_name=new.display_name,
                                 is_admin=new.is_admin, locale=new.locale or instance_settings.default_locale(conn))
    return jsonify(user), 201


@blueprint.get("/users/<user_id>")
def get_user(user_id):
    require_admin()
    with services().transaction() as conn:
        return jsonify(users.get_user(conn, check.path_id(user_id, "User")))


@blueprint.patch("/users/<user_id>")
def update_user(user_id):
    actor = require_admin()
    changes = validated(UserChange, json_body()).model_dump()
    with services().transaction() as conn:
        return jsonify(users.update_user(conn, actor, check.path_id(user_id, "User"), changes))


@blueprint.put("/users/<user_id>/attributes")
def set_attributes(user_id):
    actor = require_admin()
    values = validated(UserAttributes, json_body()).attributes
    with services().transaction() as conn:
        return jsonify({"attributes": users.set_attributes(conn, actor, check.path_id(user_id, "User"), values)})


@blueprint.get("/tokens")
def list_tokens():
    """The caller's tokens; with `all=true`, everyone's with their owner's e-mail (administrators)."""
    who = identity()
    if validated_query(TokensQuery, request.args).all != "true":
        with services().transaction() as conn:
            return jsonify({"tokens": api_tokens.list_tokens(conn, who.user_id)})
    require_admin()
    with services().transaction() as conn:
        tokens = api_tokens.list_tokens(conn, None)
        emails = {user["user_id"]: user["email"] for user in users.list_users(conn)}
    return jsonify({"tokens": [{**token, "owner_email": emails.get(token["user_id"])} for token in tokens]})


@blueprint.post("/tokens")
def create_token():
    """A new token for the caller; the secret is in this answer only."""
    name = validated(TokenRequest, json_body()).name
    with services().transaction() as conn:
        record, secret = api_tokens.create_token(conn, identity(), name)
    return jsonify({"token": record, "secret": secret}), 201


@blueprint.delete("/tokens/<token_id>")
def revoke_token(token_id):
    with services().transaction() as conn:
        return jsonify(api_tokens.revoke_token(conn, identity(), check.path_id(token_id, "Token")))
