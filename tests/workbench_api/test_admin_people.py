"""People administration through the API: invitations and resets by one-time link, deactivation
that stops sessions and tokens at once, all audited without secrets."""
from __future__ import annotations

import json

from tests.workbench_api.conftest import Api, ok


def _session(app, email: str, password: str):
    client = app.test_client()
    body = ok(client.post("/api/v1/session", json={"email": email, "password": password}), 201)
    return client, body["csrf_token"]


def test_an_invitation_link_lets_the_person_set_a_password_once_and_signs_them_in(app, admin):
    user = ok(admin.post("/users", {"email": "new@example.org", "locale": "fr"}), 201)
    link = ok(admin.post(f"/users/{user['user_id']}/password-link", {"purpose": "invite"}), 201)
    token = link["path"].split("#", 1)[1]
    assert link["path"].startswith("/set-password#") and token == link["token"] and link["purpose"] == "invite"
    visitor = app.test_client()
    assert ok(visitor.post("/api/v1/password-link/check", json={"token": token})) == {
        "email": "new@example.org", "purpose": "invite"}
    short = visitor.post("/api/v1/password-link", json={"token": token, "password": "short"})
    assert short.status_code == 400 and short.get_json()["error"]["details"]["field"] == "password"
    session = ok(visitor.post("/api/v1/password-link", json={"token": token, "password": "a brand new password"}), 201)
    assert session["user"]["email"] == "new@example.org" and session["csrf_token"]
    assert ok(visitor.get("/api/v1/me"))["email"] == "new@example.org"
    # Spent: the same link opens nothing again.
    again = app.test_client().post("/api/v1/password-link", json={"token": token, "password": "another password!"})
    assert again.status_code == 403 and again.get_json()["error"]["code"] == "password_link_invalid"
    _session(app, "new@example.org", "a brand new password")
    audit = json.dumps(ok(admin.get("/audit", query_string={"action": "user"}))["entries"])
    assert "user.password_link_invite" in audit and "user.password_set_by_link" in audit
    assert token not in audit and "a brand new password" not in audit


def test_a_reset_link_replaces_the_previous_one_and_a_wrong_token_says_nothing(app, admin, analyst):
    first = ok(admin.post(f"/users/{analyst[0]}/password-link"), 201)
    second = ok(admin.post(f"/users/{analyst[0]}/password-link"), 201)
    assert first["purpose"] == second["purpose"] == "reset"
    visitor = app.test_client()
    for token in (first["token"], "not-a-token", "", None, 42):
        refused = visitor.post("/api/v1/password-link/check", json={"token": token})
        assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "password_link_invalid"
    ok(visitor.post("/api/v1/password-link", json={"token": second["token"], "password": "reset password 123"}), 201)
    _session(app, "analyst@example.org", "reset password 123")


def test_a_deactivated_persons_link_session_and_token_stop_at_once(app, admin, analyst):
    user_id, token = analyst
    client, csrf = _session(app, "analyst@example.org", "a long enough password")
    link = ok(admin.post(f"/users/{user_id}/password-link"), 201)
    assert ok(client.get("/api/v1/me"))["user_id"] == user_id
    assert ok(Api(admin.client, token).get("/me"))["user_id"] == user_id
    ok(admin.patch(f"/users/{user_id}", {"is_active": False}))
    assert client.get("/api/v1/me").status_code == 401
    assert client.post("/api/v1/folders", json={"name": "x"}, headers={"X-CSRF-Token": csrf}).status_code == 401
    assert Api(admin.client, token).get("/me").status_code == 401
    refused = app.test_client().post("/api/v1/password-link/check", json={"token": link["token"]})
    assert refused.status_code == 403
    # Reactivated: the old token, session and link stay dead; the person signs in again.
    ok(admin.patch(f"/users/{user_id}", {"is_active": True}))
    assert Api(admin.client, token).get("/me").status_code == 401
    assert client.get("/api/v1/me").status_code == 401
    assert app.test_client().post("/api/v1/password-link/check", json={"token": link["token"]}).status_code == 403
    _session(app, "analyst@example.org", "a long enough password")


def test_a_link_is_refused_in_the_persons_language(app):
    refused = app.test_client().post("/api/v1/password-link/check", json={"token": "nope"},
                                     headers={"Accept-Language": "es"})
    assert refused.get_json()["error"]["message"].startswith("Este enlace es incorrecto")


def test_the_link_routes_take_only_json(app):
    refused = app.test_client().post("/api/v1/password-link", data="token=x&password=y",
                                     content_type="application/x-www-form-urlencoded")
    assert refused.status_code == 415
