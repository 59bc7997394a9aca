"""Accounts, sign-in, API tokens (hashed, revocable, audited) and the create-admin command."""
from __future__ import annotations

import hashlib

from click.testing import CliRunner

from analytics_cli.main import main as analytics
from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, Api, ok


def test_sign_in_gives_a_token_and_failures_are_audited(app, admin):
    anonymous = Api(app.test_client())
    wrong = anonymous.post("/auth/token", {"email": ADMIN_EMAIL, "password": "not the password"})
    assert wrong.status_code == 401 and wrong.get_json()["error"]["code"] == "invalid_credentials"
    unknown = anonymous.post("/auth/token", {"email": "nobody@example.org", "password": "whatever it is"})
    assert unknown.get_json()["error"] == wrong.get_json()["error"]
    issued = ok(anonymous.post("/auth/token", {"email": ADMIN_EMAIL.upper(), "password": ADMIN_PASSWORD}), 201)
    assert issued["secret"].startswith("wbt_")
    assert ok(Api(app.test_client(), issued["secret"]).get("/me"))["email"] == ADMIN_EMAIL
    actions = [e["action"] for e in ok(admin.get("/audit?action=sign_in"))["entries"]]
    assert actions == ["sign_in.succeeded", "sign_in.failed", "sign_in.failed"]


def test_tokens_are_stored_hashed_and_listed_without_secrets(admin, workbench_db):
    created = ok(admin.post("/tokens", {"name": "notebook"}), 201)
    secret = created["secret"]
    stored = workbench_db.execute("select secret_hash from api_tokens where token_id = %s",
                                  (created["token"]["token_id"],)).fetchone()[0]
    assert bytes(stored) == hashlib.sha256(secret.encode()).digest()
    listed = ok(admin.get("/tokens"))["tokens"]
    assert secret not in str(listed) and {t["name"] for t in listed} == {"tests", "notebook"}


def test_a_token_carries_its_owners_rights_and_a_revoked_one_none(admin, analyst):
    user_id, token = analyst
    user = Api(admin.client, token)
    assert user.get("/users").status_code == 403  # not an administrator, whatever the token
    second = ok(user.post("/tokens", {"name": "second"}), 201)["secret"]
    assert ok(Api(admin.client, second).post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[3]]
    token_id = [t for t in ok(user.get("/tokens"))["tokens"] if t["name"] == "second"][0]["token_id"]
    assert ok(user.delete(f"/tokens/{token_id}"))["state"] == "revoked"
    assert Api(admin.client, second).get("/me").status_code == 401
    assert ok(user.get("/me"))["user_id"] == user_id  # the other token still works
    # Deactivating the owner stops every token of theirs.
    ok(admin.patch(f"/users/{user_id}", {"is_active": False}))
    assert user.get("/me").status_code == 401


def test_rights_change_applies_to_the_next_statement(admin, analyst, eu_analysts):
    user_id, token = analyst
    user = Api(admin.client, token)
    assert ok(user.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[3]]
    ok(admin.put(f"/users/{user_id}/attributes", {"attributes": {"region": "US"}}))
    assert ok(user.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[2]]
    assert ok(admin.delete(f"/groups/{eu_analysts}/members/{user_id}"))["members"] == []
    assert user.post("/sql", {"sql": "SELECT count(*) FROM page_views"}).status_code == 404
    actions = {e["action"] for e in ok(admin.get("/audit?action=permissions."))["entries"]}
    assert {"permissions.group_created", "permissions.rule_set", "permissions.attributes_set",
            "permissions.member_added", "permissions.member_removed"} <= actions


def test_catalog_grant_and_native_access_through_groups(admin):
    group = ok(admin.post("/groups", {"name": "everything"}), 201)
    ok(admin.put(f"/groups/{group['group_id']}/catalogs", {"catalogs": ["warehouse"]}))
    from tests.workbench_api.conftest import create_user_with_token
    _, token = create_user_with_token(admin, "wide@example.org", None, (group["group_id"],))
    result = ok(Api(admin.client, token).post("/sql", {"sql": "SELECT visitor_email FROM page_views ORDER BY 1 LIMIT 1"}))
    assert result["rows"] == [["ann@example.fr"]]


def test_create_admin_command(workbench_settings, workbench_db):
    env = {"ANALYTICS_HOME": str(workbench_settings.home), "ANALYTICS_DATABASE_URL": workbench_settings.database_url,
           "ANALYTICS_WORKBENCH_DATABASE_NAME": workbench_settings.workbench_database_name,
           "ANALYTICS_SECRET": workbench_settings.server_secret_value}
    result = CliRunner().invoke(analytics, ["workbench", "create-admin", "--email", "first@example.org",
                                            "--password", "a strong password", "--with-token"], env=env)
    assert result.exit_code == 0, result.output
    secret = result.stdout.strip().splitlines()[-1]
    assert secret.startswith("wbt_")
    row = workbench_db.execute("select is_admin, password_hash from users where email = 'first@example.org'").fetchone()
    assert row[0] is True and row[1].startswith("$argon2id$")
    again = CliRunner().invoke(analytics, ["workbench", "create-admin", "--email", "FIRST@example.org",
                                           "--password", "a strong password"], env=env)
    assert again.exit_code != 0 and "exists already" in again.output
    short = CliRunner().invoke(analytics, ["workbench", "create-admin", "--email", "x@example.org",
                                           "--password", "short"], env=env)
    assert short.exit_code != 0


def test_a_collector_admin_token_is_refused_with_a_message_naming_both_kinds(app):
    answer = app.test_client().get("/api/v1/me", headers={"Authorization": "Bearer at_abcdef"})
    assert answer.status_code == 401
    error = answer.get_json()["error"]
    assert "collector admin token (at_...)" in error["message"] and "(wbt_...)" in error["message"]
    assert error["details"] == {"expected": "wbt_", "received": "at_"}
