"""The web application's session: cookie, CSRF, rotation, expiry, throttled failures, languages."""
from __future__ import annotations

from tests.workbench_api.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, ok

COOKIE = "wb_session"


def sign_in(client, email=ADMIN_EMAIL, password=ADMIN_PASSWORD, **headers):
    return client.post("/api/v1/session", json={"email": email, "password": password}, headers=headers)


def cookie_header(response) -> str:
    return next(value for name, value in response.headers.items()
                if name == "Set-Cookie" and value.startswith(f"{COOKIE}="))


def test_sign_in_sets_an_http_only_lax_cookie_and_answers_the_csrf_token(app, admin_token):
    client = app.test_client()
    answer = sign_in(client)
    body = ok(answer, 201)
    assert body["user"]["email"] == ADMIN_EMAIL and body["csrf_token"]
    header = cookie_header(answer)
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Secure" not in header
    assert ok(client.get("/api/v1/session"))["csrf_token"] == body["csrf_token"]
    assert ok(client.get("/api/v1/me"))["email"] == ADMIN_EMAIL


def test_secure_cookie_behind_https(app, admin_token):
    answer = app.test_client().post("/api/v1/session", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                                    base_url="https://workbench.example")
    assert "Secure" in cookie_header(answer)


def test_a_state_changing_request_needs_the_csrf_token(app, admin_token):
    client = app.test_client()
    csrf = ok(sign_in(client), 201)["csrf_token"]
    refused = client.post("/api/v1/folders", json={"name": "No token"})
    assert refused.status_code == 403 and refused.get_json()["error"]["code"] == "csrf_failed"
    wrong = client.post("/api/v1/folders", json={"name": "Wrong"}, headers={"X-CSRF-Token": csrf[:-1] + "x"})
    assert wrong.status_code == 403
    names = [f["name"] for f in ok(client.get("/api/v1/folders"))["folders"]]
    assert "No token" not in names and "Wrong" not in names
    ok(client.post("/api/v1/folders", json={"name": "With token"}, headers={"X-CSRF-Token": csrf}), 201)


def test_bearer_tokens_need_no_csrf_token(admin):
    ok(admin.post("/folders", {"name": "From a program"}), 201)


def test_sign_in_rotates_the_session_and_sign_out_ends_it(app, admin_token):
    client = app.test_client()
    first = cookie_header(sign_in(client)).split(";")[0]
    second = cookie_header(sign_in(client)).split(";")[0]
    assert first != second
    stale = app.test_client()
    stale.set_cookie(COOKIE, first.split("=", 1)[1])
    assert stale.get("/api/v1/me").status_code == 401
    csrf = ok(client.get("/api/v1/session"))["csrf_token"]
    assert client.delete("/api/v1/session", headers={"X-CSRF-Token": csrf}).status_code == 204
    expired = client.get("/api/v1/me")
    assert expired.status_code == 401 and expired.get_json()["error"]["code"] in ("session_expired", "unauthorized")


def test_an_idle_session_expires(app, admin_token, workbench_db):
    client = app.test_client()
    ok(sign_in(client), 201)
    workbench_db.execute("update web_sessions set last_seen_at = now() - interval '9 hours'")
    answer = client.get("/api/v1/me")
    assert answer.status_code == 401 and answer.get_json()["error"]["code"] == "session_expired"


def test_a_deactivated_person_is_refused_at_once(app, admin, workbench_db):
    ok(admin.post("/users", {"email": "leaving@example.org", "password": "a long enough password"}), 201)
    client = app.test_client()
    ok(sign_in(client, "leaving@example.org", "a long enough password"), 201)
    user_id = workbench_db.execute("select user_id from users where email = 'leaving@example.org'").fetchone()[0]
    ok(admin.patch(f"/users/{user_id}", {"is_active": False}))
    assert client.get("/api/v1/me").status_code == 401
    assert workbench_db.execute("select count(*) from web_sessions where user_id = %s", (user_id,)).fetchone()[0] == 0


def test_sign_in_needs_json(app, admin_token):
    answer = app.test_client().post("/api/v1/session", data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert answer.status_code == 415


def test_repeated_failures_are_slowed_down_with_a_clear_message(app, admin_token, workbench_db):
    client = app.test_client()
    answers = [sign_in(client, password="wrong password!") for _ in range(6)]
    assert [a.status_code for a in answers[:4]] == [401] * 4
    slowed = answers[-1]
    assert slowed.status_code == 429
    assert int(slowed.headers["Retry-After"]) > 0
    assert "wait" in slowed.get_json()["error"]["message"]
    # Even the right password waits its turn, from this address and for this account.
    assert sign_in(client).status_code == 429
    failures = workbench_db.execute("select count(*) from audit_log where action = 'sign_in.failed'").fetchone()[0]
    assert failures >= 5
    stored = workbench_db.execute("select string_agg(t::text, ' ') from audit_log t").fetchone()[0]
    assert "127.0.0.1" not in stored


def test_messages_in_the_accounts_language_else_the_browsers(app, admin, workbench_db):
    client = app.test_client()
    answer = sign_in(client, password="wrong password!", **{"Accept-Language": "fr-FR,fr;q=0.9"})
    assert answer.get_json()["error"]["message"] == "Adresse e-mail ou mot de passe incorrect."
    ok(admin.patch("/me", {"locale": "es"}))
    answer = admin.get("/schema/tables/warehouse.analytics.nothing")
    assert answer.status_code == 404 and answer.get_json()["error"]["message"] == "Tabla no encontrada."


def test_the_web_application_is_served_for_app_routes_only(app):
    client = app.test_client()
    for route in ("/", "/sql", "/questions/12"):
        page = client.get(route)
        if page.status_code == 503:  # not built in this checkout
            assert b"make frontend" in page.data
            continue
        assert page.status_code == 200 and b'<div id="root">' in page.data
        assert page.headers["Cache-Control"] == "no-store"
        assert page.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    missing = client.get("/api/v1/no-such-thing")
    assert missing.status_code in (401, 404) and missing.is_json
    assert client.post("/api/v1/no-such-thing").is_json


def test_hashed_assets_are_compressed_and_cached_for_a_year(app):
    from workbench_app.page_shell.web_app import BUILD

    built = sorted((BUILD / "assets").glob("*.js")) if (BUILD / "assets").is_dir() else []
    if not built:
        return  # not built in this checkout: the browser tests cover the built app
    client = app.test_client()
    answer = client.get(f"/assets/{built[0].name}", headers={"Accept-Encoding": "gzip, br"})
    assert answer.status_code == 200 and answer.headers["Content-Encoding"] == "gzip"
    assert "immutable" in answer.headers["Cache-Control"] and "max-age=31536000" in answer.headers["Cache-Control"]
    import gzip as gz

    assert gz.decompress(answer.data) == built[0].read_bytes()
    plain = client.get(f"/assets/{built[0].name}")
    assert "Content-Encoding" not in plain.headers and plain.data == built[0].read_bytes()
    assert client.get("/assets/nothing-here.js").status_code == 404


def test_the_audit_log_is_filtered_by_kind_person_and_day(app, admin, workbench_db):
    client = app.test_client()
    sign_in(client, "nobody@example.org", "wrong password!")
    workbench_db.execute("insert into audit_log (actor, action, at) values ('old@example.org', 'token.created', "
                         "'2020-01-02 10:00+00')")
    entries = ok(admin.get("/audit?action=sign_in&actor=NOBODY"))["entries"]
    assert [e["action"] for e in entries] == ["sign_in.failed"]
    old = ok(admin.get("/audit?since=2020-01-02&until=2020-01-02"))["entries"]
    assert [e["actor"] for e in old] == ["old@example.org"]
    assert ok(admin.get("/audit?since=2020-01-03&actor=old@"))["entries"] == []
    refused = admin.get("/audit?since=yesterday")
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "since"
