"""Every administration route: a non-administrator gets 403, and a browser session without the
CSRF token changes nothing (403 csrf_failed), whatever the body.

The routes are found in the application itself (every view that begins with `require_admin()`),
so a new administration route is covered the day it is added.
"""
from __future__ import annotations

import ast
import inspect
import re
import textwrap

import pytest

from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, Api, ok
from workbench_app.api.authentication import SAFE_METHODS


def _begins_with_require_admin(view) -> bool:
    """Whether a view's first statement (after its docstring) requires an administrator. Views
    that require one only for part of their answer (`GET /tokens?all=true`) are tested apart."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(view)))
    except (OSError, TypeError, SyntaxError):  # not a function written in a module (a static file route)
        return False
    function = next((node for node in tree.body if isinstance(node, ast.FunctionDef)), None)
    if function is None:
        return False
    body = function.body
    first = body[1] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else body[0]
    return "require_admin()" in ast.unparse(first)


def admin_routes(app) -> list[tuple[str, str]]:
    routes = []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        if not _begins_with_require_admin(view):
            continue
        path = re.sub(r"<(?:int:)?[a-z_]+>", "1", rule.rule)
        routes += [(method, path) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return routes


def test_the_administration_routes_are_found(app):
    found = set(admin_routes(app))
    # A sample of each area: if the discovery breaks, this says so instead of testing nothing.
    assert {("GET", "/api/v1/users"), ("POST", "/api/v1/sources/test"), ("POST", "/api/v1/users/1/password-link"),
            ("PUT", "/api/v1/groups/1/catalogs"), ("GET", "/api/v1/audit"),
            ("GET", "/api/v1/settings/sso"), ("PATCH", "/api/v1/settings/sso")} <= found
    assert len(found) >= 25


def test_a_non_administrator_gets_403_on_every_administration_route(app, admin, analyst):
    user = Api(app.test_client(), analyst[1])
    for method, path in admin_routes(app):
        answer = user.client.open(path, method=method, json={}, headers={"Authorization": f"Bearer {user.token}"})
        assert answer.status_code == 403, (method, path, answer.status_code)
        assert answer.get_json()["error"]["code"] == "forbidden", (method, path)


def test_an_administrators_session_without_the_csrf_token_changes_nothing(app, admin):
    client = app.test_client()
    ok(client.post("/api/v1/session", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}), 201)
    before = ok(admin.get("/audit"))["entries"]
    for method, path in admin_routes(app):
        if method in SAFE_METHODS:
            continue
        answer = client.open(path, method=method, json={"name": "x", "kind": "files", "options": {"path": "/tmp"}})
        assert answer.status_code == 403, (method, path, answer.status_code)
        assert answer.get_json()["error"]["code"] == "csrf_failed", (method, path)
    after = ok(admin.get("/audit"))["entries"]
    assert [e for e in after if e["action"] != "sign_in.succeeded"] == [
        e for e in before if e["action"] != "sign_in.succeeded"]


@pytest.mark.parametrize("method, path", [("GET", "/api/v1/users"), ("POST", "/api/v1/sources/test")])
def test_without_any_credential_the_answer_is_401(app, method, path):
    assert app.test_client().open(path, method=method, json={}).status_code == 401
