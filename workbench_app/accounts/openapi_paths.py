"""The accounts' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): sign-in,
the web session, the first-run setup, people, password links, tokens, groups, the settings; the
answer and request components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.accounts.shapes import (Credentials, FirstAdministrator, Group, GroupList, NewGroup, NewPassword,
                                           NewToken, NewUser, PasswordLink, PasswordLinkFor, PasswordLinkRequest,
                                           PasswordLinkToken, ProfileChange, Session, Settings, SettingsChange, SetupState,
                                           SignIn, Token, TokenList, TokenRequest, User, UserAttributes, UserAttributesSet,
                                           TokensQuery, UserChange, UserList)
from workbench_app.request_shapes import query_parameters

ANSWERS = (User, UserList, Group, GroupList, UserAttributesSet, Session, SetupState, Token, TokenList, NewToken,
           PasswordLink, PasswordLinkFor, Settings)
REQUESTS = (SignIn, Credentials, FirstAdministrator, PasswordLinkRequest, PasswordLinkToken, NewPassword, ProfileChange,
            NewUser, UserChange, UserAttributes, TokenRequest, SettingsChange, NewGroup)

_SLOWED_DOWN = ("429", "too_many_attempts: repeated failed sign-ins for this account or address; Retry-After "
                       "says how many seconds to wait")
_JSON_ONLY = ("415", "unsupported_media_type: the body must be application/json")
_LINK_REFUSED = ("403", "password_link_invalid: the link is wrong, used or expired, or its account is deactivated")


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""

    def _person_only(operation: dict[str, Any]) -> dict[str, Any]:
        """A change of an account that an embedding secret's own account refuses (it changes with its secret)."""
        return also(operation, ("403", "forbidden, or embedding_account: the account is an embedding secret's; "
                                       "change or revoke the secret instead"))

    def _people(operation: dict[str, Any]) -> dict[str, Any]:
        operation["description"] = "People only: the accounts that embedding secrets run as are not listed."
        return operation

    def _setup(operation: dict[str, Any]) -> dict[str, Any]:
        """The first-run setup's own refusals: 403 for a wrong or expired link, 410 once it is done."""
        return also(operation, ("403", "setup_link_invalid: the link is wrong or has expired"),
                    ("410", "setup_done: an administrator exists; the setup is over"))

    return {
        "/auth/token": {"post": also(op("Sign in for a token", "accounts", ok=201,
                                         result=_ref("NewToken"),
                                         body=model_body(SignIn)), _SLOWED_DOWN)},
        "/session": {
            "post": also(op("Sign in to the web application", "accounts", ok=201,
                            result=_ref("Session"), body=model_body(Credentials)), _SLOWED_DOWN, _JSON_ONLY),
            "get": op("Get the web session", "accounts", result=_ref("Session")),
            "delete": op("Sign out of the web application", "accounts", ok=204)},
        "/setup": {
            "get": _setup(op("Check the setup link", "accounts", result=_ref("SetupState"),
                             query={"token": {"type": "string"}})),
            "post": also(_setup(op("Create the first administrator", "accounts", ok=201,
                                   result=_ref("Session"), body=model_body(FirstAdministrator))), _JSON_ONLY)},
        "/me": {"get": op("Get the caller", "accounts", result=_ref("User")),
                "patch": op("Update my profile", "accounts", result=_ref("User"), body=model_body(ProfileChange))},
        "/users": {"get": _people(op("List users", "accounts", result=_ref("UserList"))),
                   "post": op("Create a user", "accounts", ok=201, result=_ref("User"), body=model_body(NewUser))},
        "/users/{user_id}": {"get": op("Get a user", "accounts", params=("user_id",), result=_ref("User")),
                             "patch": _person_only(op("Update a user", "accounts", params=("user_id",),
                                                      result=_ref("User"), body=model_body(UserChange)))},
        "/users/{user_id}/password-link": {"post": _person_only(op(
            "Issue a password link", "accounts", ok=201, params=("user_id",), result=_ref("PasswordLink"),
            body=model_body(PasswordLinkRequest)))},
        "/password-link/check": {"post": also(op(
            "Check a password link", "accounts", result=_ref("PasswordLinkFor"), body=model_body(PasswordLinkToken)),
            _LINK_REFUSED, _JSON_ONLY)},
        "/password-link": {"post": also(op(
            "Set a password with a link", "accounts", ok=201, result=_ref("Session"),
            body=model_body(NewPassword)),
            _LINK_REFUSED, _JSON_ONLY)},
        "/users/{user_id}/attributes": {"put": _person_only(op(
            "Set a user's attributes", "accounts", params=("user_id",), result=_ref("UserAttributesSet"),
            body=model_body(UserAttributes)))},
        "/tokens": {"get": op("List my tokens", "tokens", result=_ref("TokenList"), query=query_parameters(TokensQuery)),
                    "post": op("Create a token", "tokens", ok=201, result=_ref("NewToken"), body=model_body(TokenRequest))},
        "/settings": {"get": op("Get the settings", "settings", result=_ref("Settings")),
                      "patch": op("Update the settings", "settings", result=_ref("Settings"),
                                  body=model_body(SettingsChange))},
        "/tokens/{token_id}": {"delete": op("Revoke a token", "tokens", params=("token_id",), result=_ref("Token"))},
        "/groups": {"get": op("List groups", "permissions", result=_ref("GroupList")),
                    "post": op("Create a group", "permissions", ok=201, result=_ref("Group"),
                               body=model_body(NewGroup))},
        "/groups/{group_id}": {"get": op("Get a group", "permissions", params=("group_id",), result=_ref("Group")),
                               "delete": op("Delete a group", "permissions", ok=204, params=("group_id",))},
        "/groups/{group_id}/members/{user_id}": {
            "put": _person_only(op("Add a member", "permissions", params=("group_id", "user_id"), result=_ref("Group"))),
            "delete": _person_only(op("Remove a member", "permissions", params=("group_id", "user_id"),
                                      result=_ref("Group")))},
    }
