"""Sign-in, sessions, CSRF, the refusal of non-administrators, headers, escaping, languages."""
from __future__ import annotations

import re

from collector_app.admin_ui.security import PUBLIC_ENDPOINTS
from pipelines.admin import admin_users, annotations, sites
from tests.collector_admin_ui.conftest import PASSWORD, Browser


def audit_actions(db) -> list[str]:
    return [row[0] for row in db.execute("select action from collect.audit_log order by audit_id")]


def test_pages_need_a_session(app):
    response = app.test_client().get("/admin/sites")
    assert response.status_code == 302 and "/admin/sign-in" in response.headers["Location"]


def test_sign_in_sets_a_strict_cookie_and_is_audited(app, admin, db):
    client = app.test_client()
    response = client.post("/admin/sign-in", data={"email": "owner@example.org", "password": PASSWORD})
    assert response.status_code == 303
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/admin" in cookie
    assert "Secure" not in cookie  # plain HTTP here; over HTTPS the flag is set (below)
    assert client.get("/admin/sites").status_code == 200
    assert client.post("/admin/sign-in", data={"email": "owner@example.org", "password": "wrong password"}).status_code == 401
    assert audit_actions(db)[-2:] == ["admin_user.signed_in", "admin_user.sign_in_failed"]
    secure = app.test_client().post("/admin/sign-in", base_url="https://localhost",
                                    data={"email": "owner@example.org", "password": PASSWORD})
    assert "Secure" in secure.headers["Set-Cookie"]


def test_each_sign_in_opens_a_new_session(app, admin, db):
    first, second = Browser(app.test_client()), Browser(app.test_client())
    first.sign_in()
    planted = first.client.get_cookie("collector_admin", path="/admin").value
    second.client.set_cookie("collector_admin", planted, path="/admin")
    second.sign_in()
    assert second.client.get_cookie("collector_admin", path="/admin").value != planted
    # The planted session was closed by the sign-in that replaced it.
    assert first.get("/admin/sites").status_code == 302


def test_repeated_failures_are_slowed_down_with_a_clear_wait(app, admin):
    client = app.test_client()
    for _ in range(6):
        client.post("/admin/sign-in", data={"email": "owner@example.org", "password": "not the password"})
    response = client.post("/admin/sign-in", data={"email": "owner@example.org", "password": PASSWORD})
    assert response.status_code == 429
    assert re.search(r"Wait \d+ seconds", response.get_data(as_text=True))


def test_a_form_without_its_csrf_token_changes_nothing(browser, db):
    response = browser.client.post("/admin/sites/new", data={"name": "Forged", "tracking_mode": "cookie"})
    assert response.status_code == 403
    response = browser.client.post("/admin/sites/new", data={"name": "Forged", "csrf_token": "guess"})
    assert response.status_code == 403
    assert sites.list_sites(db) == []
    assert browser.post("/admin/sites/new", {"name": "Real", "tracking_mode": "cookie"}).status_code == 303
    assert [site["name"] for site in sites.list_sites(db)] == ["Real"]


def test_a_non_administrator_gets_403_on_every_route(app, db, site):
    admin_users.create_user(db, email="viewer@example.org", password=PASSWORD, is_administrator=False)
    viewer = Browser(app.test_client())
    assert viewer.sign_in("viewer@example.org").status_code == 303
    site_id = site["id"]
    paths = [rule.rule.replace("<site_id>", str(site_id)).replace("<key_id>", str(site_id))
             .replace("<section>", "zones").replace("<path:item>", "x").replace("<request_id>", str(site_id))
             .replace("<extension>", "json")
             for rule in app.url_map.iter_rules() if rule.endpoint.startswith("admin_ui.")
             and rule.endpoint not in PUBLIC_ENDPOINTS]  # the setup's refusals: test_first_run_setup.py
    assert len(paths) > 15
    for path in paths:
        assert viewer.get(path).status_code in (403, 405), path
        assert viewer.client.post(path, data={"csrf_token": "x"}).status_code in (403, 405), path


def test_pages_forbid_framing_and_inline_script(browser, site):
    response = browser.get(f"/admin/sites/{site['id']}/settings")
    csp = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>(?!</script>)", html.replace("&lt;script", ""))


def test_user_text_is_escaped(browser, db, site):
    payload = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    sites.update_site(db, site["id"], {"name": payload}, actor="tests")
    annotations.create_annotation(db, site["id"], {"date": "2026-01-02", "text": payload}, actor="tests")
    for path in ("/admin/sites", f"/admin/sites/{site['id']}/metadata", "/admin/audit"):
        html = browser.get(path).get_data(as_text=True)
        assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "&lt;img src=x" in html or "\\u003cimg" in html, path


def test_a_form_error_keeps_what_was_typed_and_names_the_field(browser):
    response = browser.post("/admin/sites/new", {"name": "Kept name", "domains": "good.example.com\nhttp://bad/",
                                                 "tracking_mode": "cookie", "retention_months": "25"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'value="Kept name"' in html and "http://bad/" in html
    assert "Check the field “Allowed domains”." in html and 'aria-invalid="true"' in html


def test_language_from_the_browser_then_from_the_account(browser, db, admin):
    assert 'lang="fr"' in browser.get("/admin/sites", headers={"Accept-Language": "fr-FR,fr;q=0.9"}).get_data(as_text=True)
    assert "Sitios" in browser.get("/admin/sites", headers={"Accept-Language": "es"}).get_data(as_text=True)
    browser.post("/admin/account/language", {"locale": "es", "next": "/admin/sites"})
    html = browser.get("/admin/sites", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert 'lang="es"' in html and "Nuevo sitio" in html


def test_tokens_stylesheet_is_served_as_it_is(browser):
    from collector_app.admin_ui import TOKENS_CSS
    response = browser.get("/admin/static/tokens.css")
    assert response.status_code == 200 and response.data == TOKENS_CSS.read_bytes()


def test_no_ip_address_in_pages_or_tables(browser, db, site):
    browser.get("/admin/sites", environ_base={"REMOTE_ADDR": "203.0.113.77"})
    browser.client.post("/admin/sign-in", data={"email": "x@example.org", "password": "nope nope nope"},
                        environ_base={"REMOTE_ADDR": "203.0.113.77"})
    dump = " ".join(str(row) for row in db.execute("select * from collect.audit_log"))
    assert "203.0.113.77" not in dump
    assert "203.0.113.77" not in browser.get("/admin/audit").get_data(as_text=True)


def test_metadata_created_then_edited_through_the_same_functions(browser, db, site):
    base = f"/admin/sites/{site['id']}/metadata"
    created = browser.post(f"{base}/events", {"name": "sign_up", "label": "Sign-up", "description": "",
                                              "property_name": ["plan", ""], "property_type": ["string", "string"],
                                              "property_label": ["Plan", ""], "property_description": ["", ""]})
    assert created.status_code == 303
    form = browser.get(f"{base}/events/sign_up/edit").get_data(as_text=True)
    assert 'value="Sign-up"' in form and 'value="plan"' in form
    edited = browser.post(f"{base}/events/sign_up/edit", {
        "label": "Account created", "description": "A visitor opened an account",
        "property_name": ["plan", "seats"], "property_type": ["string", "number"],
        "property_label": ["Plan", "Seats"], "property_description": ["", ""]})
    assert edited.status_code == 303
    from pipelines.admin import declared_events
    event = declared_events.get_event(db, site["id"], "sign_up")
    assert event["label"] == "Account created" and [p["name"] for p in event["properties"]] == ["plan", "seats"]
    refused = browser.post(f"{base}/events/sign_up/edit", {"label": "", "description": "kept text"})
    assert refused.status_code == 422 and "kept text" in refused.get_data(as_text=True)
    assert declared_events.get_event(db, site["id"], "sign_up")["label"] == "Account created"
    assert browser.get(f"{base}/events/unknown/edit").status_code == 404
