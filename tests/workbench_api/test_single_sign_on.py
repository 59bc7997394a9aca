"""Single sign-on with OpenID Connect, against a real provider (oidc-provider, started by the test)
and a hand-made one for the ID tokens a certified provider never issues. The workbench is the real
application through its HTTP interface; the person's steps at the provider go through its pages.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from tests.oidc_provider.servers import (CLIENT_ID, CLIENT_SECRET, forged_provider, provider_sign_in,
                                         real_provider)
from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, Api, ok
from tests.workbench_sources.servers import free_port

pytestmark = pytest.mark.slow
CALLBACK = "http://localhost/api/v1/sso/callback"
NORA = {"email": "nora@example.org", "name": "Nora North", "groups": ["analysts", "fin-team"],
        "region": "north", "customer_id": "c-17"}


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    with real_provider({"nora": NORA}, [CALLBACK], tmp_path_factory.mktemp("directory")) as running:
        yield running


@pytest.fixture
def directory(provider):
    provider.set_directory({"nora": NORA})
    return provider


def configure(admin: Api, issuer: str, **extra) -> dict:
    return ok(admin.patch("/settings/sso", {
        "issuer": issuer, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
        "scopes": "openid email profile groups directory", "display_name": "Test Directory",
        "attribute_claims": {"region": "region", "customer_id": "customer_id"},
        "group_mapping": {"fin-team": "Finance"}, **extra}))


def start(browser) -> str:
    answer = browser.get("/api/v1/sso/start?next=/sql")
    assert answer.status_code == 303, answer.get_data(as_text=True)
    return answer.headers["Location"]


def callback(browser, callback_url: str):
    parts = urlsplit(callback_url)
    return browser.get(f"{parts.path}?{parts.query}")


def refusal(answer) -> str:
    assert answer.status_code == 303, answer.get_data(as_text=True)
    location = urlsplit(answer.headers["Location"])
    assert location.path == "/sign-in", answer.headers["Location"]
    return parse_qs(location.query)["sso_error"][0]


def sign_in_by_sso(app, login: str = "nora"):
    """A new browser signs in through the provider's pages; the callback's answer."""
    browser = app.test_client()
    return browser, callback(browser, provider_sign_in(start(browser), login, CALLBACK))


def person(workbench_db, email: str) -> dict:
    user_id, active = workbench_db.execute("select user_id, is_active from users where email = %s", (email,)).fetchone()
    attributes = dict(workbench_db.execute("select name, value from user_attributes where user_id = %s", (user_id,)))
    groups = {row[0] for row in workbench_db.execute(
        "select g.name from group_members m join groups g using (group_id) where m.user_id = %s", (user_id,))}
    return {"user_id": user_id, "active": active, "attributes": attributes, "groups": groups}


def test_the_configuration_keeps_the_client_secret_sealed_and_never_answers_it(admin, workbench_db, directory):
    answer = configure(admin, directory.issuer)
    assert answer["enabled"] and answer["client_secret_set"] and answer["source"] == "settings"
    assert CLIENT_SECRET not in str(answer) and CLIENT_SECRET not in admin.get("/settings/sso").get_data(as_text=True)
    sealed = workbench_db.execute("select client_secret_sealed from sso_provider").fetchone()[0]
    assert sealed and CLIENT_SECRET not in sealed
    assert ok(admin.get("/sso", token="")) == {"enabled": True, "display_name": "Test Directory"}
    assert ok(admin.get("/settings"))["sign_in_methods"] == {"password": True, "oidc": True}
    cleared = ok(admin.patch("/settings/sso", {"client_secret": None}))
    assert cleared["client_secret_set"] is False
    entries = ok(admin.get("/audit?action=settings.sso_updated"))["entries"]
    assert entries and CLIENT_SECRET not in str(entries)


def test_first_sign_in_creates_the_account_and_every_sign_in_follows_the_directory(app, admin, workbench_db,
                                                                                   directory):
    analysts = ok(admin.post("/groups", {"name": "analysts"}), 201)["group_id"]
    ok(admin.post("/groups", {"name": "Finance"}), 201)
    ok(admin.post("/groups", {"name": "Kept by hand"}), 201)
    configure(admin, directory.issuer)

    browser, answer = sign_in_by_sso(app)
    assert answer.status_code == 303 and answer.headers["Location"] == "/sql"
    session = ok(browser.get("/api/v1/session"))
    assert session["user"]["email"] == "nora@example.org" and session["user"]["display_name"] == "Nora North"
    nora = person(workbench_db, "nora@example.org")
    assert nora["attributes"] == {"region": "north", "customer_id": "c-17"}
    assert nora["groups"] == {"analysts", "Finance"}  # by name, and by the explicit table
    audit = ok(admin.get("/audit?action=sign_in"))["entries"]
    assert audit[0]["action"] == "sign_in.succeeded" and audit[0]["details"] == {"method": "oidc"}

    # An administrator adds Nora to a group by hand; the directory moves her and drops fin-team.
    kept = [g for g in ok(admin.get("/groups"))["groups"] if g["name"] == "Kept by hand"][0]["group_id"]
    ok(admin.put(f"/groups/{kept}/members/{nora['user_id']}"))
    directory.set_directory({"nora": {**NORA, "region": "south", "groups": ["analysts"], "customer_id": None}})
    sign_in_by_sso(app)
    again = person(workbench_db, "nora@example.org")
    assert again["user_id"] == nora["user_id"]
    assert again["attributes"] == {"region": "south"}
    assert again["groups"] == {"analysts", "Kept by hand"}

    # Out of every directory group: the groups single sign-on gave go; the hand-made membership stays.
    directory.set_directory({"nora": {**NORA, "groups": []}})
    sign_in_by_sso(app)
    assert person(workbench_db, "nora@example.org")["groups"] == {"Kept by hand"}
    assert analysts not in ok(admin.get(f"/users/{nora['user_id']}"))["groups"]


def test_a_wrong_state_or_another_browsers_state_signs_nobody_in(app, admin, directory):
    configure(admin, directory.issuer)
    browser = app.test_client()
    returned = provider_sign_in(start(browser), "nora", CALLBACK)
    code = parse_qs(urlsplit(returned).query)["code"][0]
    assert refusal(browser.get(f"/api/v1/sso/callback?state=forged&code={code}")) == "state_mismatch"
    # The right state, but in a browser that did not start the sign-in (login CSRF).
    assert refusal(callback(app.test_client(), returned)) == "state_mismatch"
    # The state was used by that attempt: the starting browser cannot use it any more either.
    assert refusal(callback(browser, returned)) == "state_mismatch"
    assert browser.get("/api/v1/session").status_code == 401
    failed = ok(admin.get("/audit?action=sign_in.failed"))["entries"]
    assert [entry["details"]["reason"] for entry in failed[:3]] == ["state_mismatch"] * 3


def test_a_replayed_code_is_refused_by_the_provider(app, admin, directory):
    configure(admin, directory.issuer)
    browser = app.test_client()
    returned = provider_sign_in(start(browser), "nora", CALLBACK)
    assert callback(browser, returned).status_code == 303
    used_code = parse_qs(urlsplit(returned).query)["code"][0]
    # A new sign-in in the same browser, its callback carrying the code already exchanged.
    state = parse_qs(urlsplit(start(browser)).query)["state"][0]
    assert refusal(browser.get(f"/api/v1/sso/callback?state={state}&code={used_code}")) == "code_refused"


def test_an_id_token_for_another_nonce_is_refused(app, admin, workbench_db, directory):
    configure(admin, directory.issuer)
    browser = app.test_client()
    returned = provider_sign_in(start(browser), "nora", CALLBACK)
    # The token will carry the nonce sent to the provider; the sign-in now expects another one.
    workbench_db.execute("update sso_sign_in_requests set nonce = 'another-nonce'")
    assert refusal(callback(browser, returned)) == "nonce_mismatch"
    assert browser.get("/api/v1/session").status_code == 401


def test_the_provider_refusing_the_person_comes_back_as_a_clear_error(app, admin, directory):
    configure(admin, directory.issuer)
    browser = app.test_client()
    state = parse_qs(urlsplit(start(browser)).query)["state"][0]
    assert refusal(browser.get(f"/api/v1/sso/callback?state={state}&error=access_denied")) == "provider_refused"


def test_account_creation_turned_off_refuses_a_stranger_clearly(app, admin, directory):
    configure(admin, directory.issuer, create_accounts=False)
    _, answer = sign_in_by_sso(app)
    assert refusal(answer) == "account_missing"
    assert not any(user["email"] == "nora@example.org" for user in ok(admin.get("/users"))["users"])
    failed = ok(admin.get("/audit?action=sign_in.failed"))["entries"][0]
    assert failed["details"]["reason"] == "account_missing" and failed["details"]["method"] == "oidc"


def test_a_deactivated_person_cannot_sign_in_by_sso(app, admin, directory):
    configure(admin, directory.issuer)
    browser, _ = sign_in_by_sso(app)
    user_id = ok(browser.get("/api/v1/session"))["user"]["user_id"]
    ok(admin.patch(f"/users/{user_id}", {"is_active": False}))
    assert browser.get("/api/v1/session").status_code == 401
    _, answer = sign_in_by_sso(app)
    assert refusal(answer) == "account_inactive"


def test_an_existing_local_account_is_linked_by_its_email(app, admin, directory):
    user = ok(admin.post("/users", {"email": "Nora@Example.org", "password": "a long enough password"}), 201)
    configure(admin, directory.issuer)
    browser, _ = sign_in_by_sso(app)
    assert ok(browser.get("/api/v1/session"))["user"]["user_id"] == user["user_id"]


def test_a_provider_that_is_down_is_a_clear_error_and_passwords_still_work(app, admin):
    configure(admin, f"http://127.0.0.1:{free_port()}")
    browser = app.test_client()
    assert refusal(browser.get("/api/v1/sso/start")) == "provider_unreachable"
    signed_in = browser.post("/api/v1/session", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert signed_in.status_code == 201


def test_an_issuer_other_than_the_configured_one_is_refused(app, admin, directory):
    # The same provider under another name: its discovery document names another issuer.
    configure(admin, directory.issuer.replace("127.0.0.1", "localhost"))
    assert refusal(app.test_client().get("/api/v1/sso/start")) == "issuer_mismatch"


def test_password_sign_in_can_be_kept_for_the_break_glass_administrator_only(app, admin, analyst, directory):
    refused = admin.patch("/settings/sso", {"password_sign_in": False})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "break_glass_email"
    configure(admin, directory.issuer, password_sign_in=False, break_glass_email=ADMIN_EMAIL)
    answer = app.test_client().post("/api/v1/session", json={"email": "analyst@example.org",
                                                             "password": "a long enough password"})
    assert answer.status_code == 403 and answer.get_json()["error"]["code"] == "password_sign_in_off"
    token = app.test_client().post("/api/v1/auth/token", json={"email": "analyst@example.org",
                                                               "password": "a long enough password"})
    assert token.status_code == 403
    assert app.test_client().post("/api/v1/session", json={"email": ADMIN_EMAIL,
                                                           "password": ADMIN_PASSWORD}).status_code == 201
    assert ok(admin.get("/settings"))["sign_in_methods"] == {"password": False, "oidc": True}
    french = app.test_client().post("/api/v1/session", json={"email": "analyst@example.org", "password": "x"},
                                    headers={"Accept-Language": "fr"})
    assert "Password" not in french.get_json()["error"]["message"]


# ID tokens that only a broken or hostile provider sends: a hand-made provider over real HTTP.

@pytest.fixture
def forged(admin):
    with forged_provider() as provider:
        configure(admin, provider.issuer, scopes="openid email")
        yield provider


def forged_sign_in(app):
    browser = app.test_client()
    location = start(browser)
    # The hand-made provider answers the authorization request at once with a code.
    returned = requests.get(location, allow_redirects=False, timeout=10).headers["Location"]
    return browser, callback(browser, returned)


def test_the_hand_made_provider_signs_in_when_its_token_is_right(app, forged):
    browser, answer = forged_sign_in(app)
    assert answer.status_code == 303 and answer.headers["Location"] == "/sql"
    assert ok(browser.get("/api/v1/session"))["user"]["email"] == "forged@example.org"


@pytest.mark.parametrize("claims, expected", [
    ({"exp": 1_000_000_000, "iat": 999_999_000}, "token_invalid"),  # expired in 2001
    ({"aud": "another-client"}, "token_invalid"),
    ({"iss": "http://127.0.0.1:1"}, "issuer_mismatch"),
])
def test_an_expired_or_misaddressed_id_token_is_refused(app, forged, claims, expected):
    forged.token_claims = claims
    browser, answer = forged_sign_in(app)
    assert refusal(answer) == expected
    assert browser.get("/api/v1/session").status_code == 401


def test_an_id_token_signed_by_a_key_the_provider_does_not_publish_is_refused(app, forged):
    forged.signing_key = forged.new_key("forged-key-1")  # the published kid, another key
    assert refusal(forged_sign_in(app)[1]) == "token_invalid"
    forged.signing_key = forged.new_key("unpublished")
    assert refusal(forged_sign_in(app)[1]) == "token_invalid"


def test_a_key_rotation_is_followed_without_restart(app, forged):
    assert forged_sign_in(app)[1].status_code == 303
    fetches = forged.jwks_fetches
    rotated = forged.new_key("forged-key-2")
    forged.published.append(rotated)
    forged.signing_key = rotated
    browser, answer = forged_sign_in(app)
    assert answer.status_code == 303, answer.headers.get("Location")
    assert forged.jwks_fetches == fetches + 1  # fetched again for the unknown key id, once


def test_the_environment_configures_single_sign_on_when_no_administrator_did(workbench_settings, warehouse, directory):
    from dataclasses import replace

    from pipelines.settings import Settings
    from workbench_app.app import create_app

    read = Settings.from_env({"ANALYTICS_OIDC_ISSUER": directory.issuer + "/", "ANALYTICS_OIDC_CLIENT_ID": CLIENT_ID,
                              "ANALYTICS_OIDC_CLIENT_SECRET": CLIENT_SECRET,
                              "ANALYTICS_OIDC_SCOPES": "openid email profile",
                              "ANALYTICS_OIDC_PROVIDER_NAME": "Env Directory"})
    assert read.oidc_issuer == directory.issuer and CLIENT_SECRET not in repr(read)
    configured = replace(workbench_settings, **{name: getattr(read, name) for name in (
        "oidc_issuer", "oidc_client_id", "oidc_client_secret", "oidc_scopes", "oidc_display_name")})
    application = create_app(configured)
    try:
        assert ok(Api(application.test_client()).get("/sso")) == {"enabled": True, "display_name": "Env Directory"}
        browser, answer = sign_in_by_sso(application)
        assert answer.status_code == 303
        assert ok(browser.get("/api/v1/session"))["user"]["email"] == "nora@example.org"
    finally:
        application.wsgi_app.close()
        application.extensions["workbench"].close()
