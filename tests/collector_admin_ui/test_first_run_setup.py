"""The first-run setup of the administration pages, through HTTP against real PostgreSQL: the link
`analytics up` prints is the one way to the first administrator, refused in every other case."""
from __future__ import annotations

import datetime as dt
import threading

import psycopg
import pytest

from pipelines.admin import admin_setup, admin_users
from tests.collector_admin_ui.conftest import PASSWORD, Browser, csrf_of
from tests.lock_race import second_attempt_while_locked

FIELDS = {"email": "first@example.org", "password": PASSWORD, "locale": "fr"}
REFUSED = {403: "This setup link does not work", 410: "The collector has an administrator already"}


@pytest.fixture
def token(db) -> str:
    return admin_setup.issue(db)


def administrators(db) -> list[str]:
    return [row[0] for row in db.execute(
        "select email from collect.admin_users where is_administrator order by user_id")]


def refused(response, status: int) -> str:
    """A refusal is a page that says why, with its status: never a form."""
    html = response.get_data(as_text=True)
    assert response.status_code == status, (response.status_code, html[:2000])
    assert REFUSED[status] in html
    assert 'name="password"' not in html
    return html


def test_the_link_opens_the_form_then_creates_a_signed_in_administrator(app, db, token):
    client = app.test_client()
    form = client.get(f"/admin/setup?token={token}")
    assert form.status_code == 200
    html = form.get_data(as_text=True)
    assert "Create the collector's administrator" in html and f'name="token" value="{token}"' in html
    created = client.post("/admin/setup", data={"token": token, **FIELDS})
    assert created.status_code == 303 and created.headers["Location"].endswith("/admin/sites")
    cookie = created.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/admin" in cookie
    # Signed in as the sign-in form does: the pages open, in the chosen language, and forms work.
    sites_page = client.get("/admin/sites", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'lang="fr"' in sites_page
    signed_in = Browser(client)
    signed_in.csrf = csrf_of(sites_page)
    assert signed_in.post("/admin/sites/new", {"name": "Boutique", "tracking_mode": "cookie"}).status_code == 303
    assert administrators(db) == ["first@example.org"]
    stored = db.execute("select password_hash, locale from collect.admin_users").fetchone()
    assert stored[0].startswith("$argon2id$") and stored[1] == "fr"
    assert db.execute("select count(*) from collect.admin_setup_link").fetchone()[0] == 0
    actions = [row for row in db.execute("select actor, action from collect.audit_log order by audit_id")]
    assert actions[:2] == [("setup-link", "admin_user.created"), ("setup-link", "admin_user.setup_completed")]
    # The password typed is the account's: signing in with it works.
    assert Browser(app.test_client()).sign_in("first@example.org").status_code == 303


def test_a_link_used_twice_is_gone_for_good(app, db, token):
    client = app.test_client()
    assert client.post("/admin/setup", data={"token": token, **FIELDS}).status_code == 303
    other = app.test_client()
    refused(other.get(f"/admin/setup?token={token}"), 410)
    refused(other.post("/admin/setup", data={"token": token, **FIELDS, "email": "second@example.org"}), 410)
    assert administrators(db) == ["first@example.org"]
    # A later `analytics up` prints no link once an administrator exists, and any link is refused.
    assert admin_setup.issue(db) is None
    refused(other.get("/admin/setup?token=anything"), 410)
    html = refused(other.get("/admin/setup"), 410)
    assert 'href="/admin/sign-in"' in html


def test_a_wrong_forged_missing_or_expired_link_is_refused(app, db, token):
    client = app.test_client()
    refused(client.get("/admin/setup?token=" + token[:-2] + "xx"), 403)
    refused(client.get("/admin/setup"), 403)
    refused(client.get("/admin/setup?token=" + "x" * 5000), 403)
    refused(client.post("/admin/setup", data=FIELDS), 403)
    refused(client.post("/admin/setup", data={**FIELDS, "token": "forged"}), 403)
    db.execute("update collect.admin_setup_link set expires_at = now() - interval '1 second'")
    refused(client.get(f"/admin/setup?token={token}"), 403)
    refused(client.post("/admin/setup", data={"token": token, **FIELDS}), 403)
    assert administrators(db) == []


def test_a_new_link_replaces_the_previous_one(app, db, token):
    newer = admin_setup.issue(db)
    client = app.test_client()
    refused(client.get(f"/admin/setup?token={token}"), 403)
    assert client.get(f"/admin/setup?token={newer}").status_code == 200
    expires = db.execute("select expires_at - now() from collect.admin_setup_link").fetchone()[0]
    assert dt.timedelta(hours=23) < expires <= dt.timedelta(hours=24)


def test_an_administrator_made_by_the_command_line_closes_the_setup(app, db, token):
    admin_users.create_user(db, email="script@example.org", password=PASSWORD, actor="cli")
    refused(app.test_client().get(f"/admin/setup?token={token}"), 410)
    refused(app.test_client().post("/admin/setup", data={"token": token, **FIELDS}), 410)
    assert administrators(db) == ["script@example.org"]


def test_an_account_without_the_administrator_flag_leaves_the_setup_open(app, db, token):
    admin_users.create_user(db, email="viewer@example.org", password=PASSWORD, is_administrator=False)
    assert app.test_client().get(f"/admin/setup?token={token}").status_code == 200


@pytest.mark.parametrize("change, field, label", [
    ({"email": "not an address"}, "email", "E-mail address"),
    ({"password": "short"}, "password", "Password"),
    ({"locale": "de"}, "locale", "Language"),
])
def test_bad_fields_name_the_field_keep_the_input_and_the_link(app, db, token, change, field, label):
    client = app.test_client()
    response = client.post("/admin/setup", data={"token": token, **FIELDS, **change},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert f"Check the field “{label}”." in html and f'name="token" value="{token}"' in html
    if field != "email":
        assert 'value="first@example.org"' in html
    assert PASSWORD not in html  # a password is never sent back
    assert administrators(db) == []
    assert client.get(f"/admin/setup?token={token}").status_code == 200


def test_the_setup_page_in_french_and_spanish(app, token):
    client = app.test_client()
    french = client.get(f"/admin/setup?token={token}", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert 'lang="fr"' in french and "Créer l'administrateur du collecteur" in french
    spanish = client.get("/admin/setup?token=forged", headers={"Accept-Language": "es"}).get_data(as_text=True)
    assert 'lang="es"' in spanish and "Este enlace de configuración no funciona" in spanish


def test_the_setup_page_forbids_framing_and_is_never_cached(app, token):
    response = app.test_client().get(f"/admin/setup?token={token}")
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Cache-Control"] == "no-store"
    # The token must not leave in a Referer header to another site.
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_the_sign_in_page_points_to_the_setup_until_an_administrator_exists(app, db):
    hint = "This collector has no administrator yet"
    assert hint in app.test_client().get("/admin/sign-in").get_data(as_text=True)
    admin_users.create_user(db, email="owner@example.org", password=PASSWORD, actor="tests")
    assert hint not in app.test_client().get("/admin/sign-in").get_data(as_text=True)


def test_two_concurrent_setups_create_one_administrator(database_url, db, token):
    """Two transactions racing on the same link: the row lock lets one through, the other finds the
    setup done."""
    first, second = psycopg.connect(database_url), psycopg.connect(database_url)
    try:
        admin_setup.create_first_administrator(first, token, **FIELDS)  # holds the row lock, not committed
        outcome = second_attempt_while_locked(
            db, first, second,
            lambda conn: admin_setup.create_first_administrator(conn, token, **{**FIELDS, "email": "other@example.org"}))
    finally:
        first.close()
        second.close()
    assert outcome == "setup_done"
    assert administrators(db) == ["first@example.org"]


def test_two_concurrent_forms_through_http_create_one_administrator(app, db, token):
    """The same race through the pages: two people submit the form at once."""
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def submit(email: str):
        client = app.test_client()
        barrier.wait()
        statuses.append(client.post("/admin/setup", data={"token": token, **FIELDS, "email": email}).status_code)

    racers = [threading.Thread(target=submit, args=(email,)) for email in ("a@example.org", "b@example.org")]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(timeout=60)
    assert sorted(statuses) == [303, 410]
    assert len(administrators(db)) == 1
