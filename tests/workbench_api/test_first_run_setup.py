"""The first-run setup link: the one way to the first administrator, refused in every other case."""
from __future__ import annotations

import datetime as dt

import psycopg
import pytest

from workbench_app import metadata_database
from workbench_app.accounts import setup_link
from tests.lock_race import second_attempt_while_locked
from tests.workbench_api.conftest import ok

FIELDS = {"email": "first@example.org", "password": "a long enough password", "display_name": "First",
          "locale": "fr"}


@pytest.fixture
def token(workbench_db) -> str:
    return setup_link.issue(workbench_db)


def refusal(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    error = response.get_json()["error"]
    assert error["code"] == code and error["message"]
    return error


def admins(workbench_db) -> int:
    return workbench_db.execute("select count(*) from users where is_admin").fetchone()[0]


def test_the_link_opens_the_setup_and_creates_a_signed_in_administrator(app, workbench_db, token):
    client = app.test_client()
    assert ok(client.get(f"/api/v1/setup?token={token}")) == {"state": "open"}
    body = ok(client.post("/api/v1/setup", json={"token": token, **FIELDS}), 201)
    assert body["user"]["email"] == "first@example.org" and body["user"]["is_admin"]
    assert body["user"]["locale"] == "fr" and body["user"]["display_name"] == "First"
    # Signed in exactly as POST /session: the cookie works, the CSRF token is the session's.
    assert ok(client.get("/api/v1/session"))["csrf_token"] == body["csrf_token"]
    ok(client.post("/api/v1/folders", json={"name": "Mine"}, headers={"X-CSRF-Token": body["csrf_token"]}), 201)
    actions = [row[0] for row in workbench_db.execute("select action from audit_log order by entry_id")]
    assert "user.created" in actions and "setup.completed" in actions
    assert workbench_db.execute("select count(*) from setup_link").fetchone()[0] == 0


def test_a_link_used_twice_is_gone_for_good(app, workbench_db, token):
    client = app.test_client()
    ok(client.post("/api/v1/setup", json={"token": token, **FIELDS}), 201)
    refusal(client.get(f"/api/v1/setup?token={token}"), 410, "setup_done")
    again = {"token": token, **FIELDS, "email": "second@example.org"}
    refusal(client.post("/api/v1/setup", json=again), 410, "setup_done")
    assert admins(workbench_db) == 1
    # A later `analytics up` issues no new link once an administrator exists.
    assert setup_link.issue(workbench_db) is None
    refusal(client.get("/api/v1/setup?token=anything"), 410, "setup_done")


def test_a_wrong_missing_or_expired_token_is_refused(app, workbench_db, token):
    client = app.test_client()
    refusal(client.get("/api/v1/setup?token=" + token[:-2] + "xx"), 403, "setup_link_invalid")
    refusal(client.get("/api/v1/setup"), 403, "setup_link_invalid")
    refusal(client.post("/api/v1/setup", json={**FIELDS, "token": 42}), 403, "setup_link_invalid")
    workbench_db.execute("update setup_link set expires_at = now() - interval '1 second'")
    refusal(client.get(f"/api/v1/setup?token={token}"), 403, "setup_link_invalid")
    refusal(client.post("/api/v1/setup", json={"token": token, **FIELDS}), 403, "setup_link_invalid")
    assert admins(workbench_db) == 0


def test_a_new_link_replaces_the_previous_one(app, workbench_db, token):
    newer = setup_link.issue(workbench_db)
    client = app.test_client()
    refusal(client.get(f"/api/v1/setup?token={token}"), 403, "setup_link_invalid")
    assert ok(client.get(f"/api/v1/setup?token={newer}")) == {"state": "open"}
    expires = workbench_db.execute("select expires_at - now() from setup_link").fetchone()[0]
    assert dt.timedelta(hours=23) < expires <= dt.timedelta(hours=24)


def test_an_administrator_made_otherwise_closes_the_setup(app, admin_token, workbench_db):
    # A link issued earlier (say by `analytics up`) stops working once create-admin made one.
    workbench_db.execute("insert into setup_link (token_hash, expires_at) values ('\\x00', now() + interval '1 hour')")
    refusal(app.test_client().get("/api/v1/setup?token=whatever"), 410, "setup_done")


@pytest.mark.parametrize("change, field", [
    ({"email": "not an address"}, "email"), ({"password": "short"}, "password"), ({"locale": "de"}, "locale"),
    ({"email": None}, "email"), ({"display_name": 5}, "display_name"),
])
def test_bad_fields_name_the_field_and_keep_the_link(app, workbench_db, token, change, field):
    client = app.test_client()
    error = refusal(client.post("/api/v1/setup", json={"token": token, **FIELDS, **change}), 400, "invalid_input")
    assert error["details"]["field"] == field
    assert admins(workbench_db) == 0
    ok(client.get(f"/api/v1/setup?token={token}"))


def test_only_json_is_accepted(app, token):
    answer = app.test_client().post("/api/v1/setup", data={"token": token, **FIELDS})
    refusal(answer, 415, "unsupported_media_type")


def test_two_concurrent_setups_create_one_administrator(workbench_settings, workbench_db, token):
    """Two transactions racing on the same link: the row lock lets one through, the other sees it done."""
    url = metadata_database.metadata_url(workbench_settings)
    first = psycopg.connect(url)
    second = psycopg.connect(url)
    try:
        setup_link.create_first_administrator(first, token, **FIELDS)  # holds the row lock, not committed
        outcome = second_attempt_while_locked(
            workbench_db, first, second,
            lambda conn: setup_link.create_first_administrator(conn, token, **{**FIELDS, "email": "other@example.org"}))
    finally:
        first.close()
        second.close()
    assert outcome == "setup_done"
    assert admins(workbench_db) == 1
