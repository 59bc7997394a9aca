"""Sites through /api/v1/sites: validation, CRUD, authentication, audit."""
from __future__ import annotations

from tests.collector_admin.conftest import assert_error

UNKNOWN = "00000000-0000-0000-0000-000000000000"


def test_every_admin_endpoint_needs_a_valid_token(client, auth, site, db):
    for method, path in [("get", "/api/v1/sites"), ("post", "/api/v1/sites"),
                         ("get", f"/api/v1/sites/{site['id']}"), ("delete", f"/api/v1/sites/{site['id']}"),
                         ("get", f"/api/v1/sites/{site['id']}/server-keys"), ("get", "/api/v1/audit"),
                         ("put", f"/api/v1/sites/{site['id']}/channel-rules")]:
        assert_error(getattr(client, method)(path), 401, "unauthorized")
        assert_error(getattr(client, method)(path, headers={"Authorization": "Bearer at_nope"}), 401, "invalid_token")
        assert_error(getattr(client, method)(path, headers={"Authorization": "Basic abc"}), 401)
    response = client.get("/api/v1/sites", headers={"Authorization": "Bearer wrong"})
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    # A revoked token is refused; the site still exists.
    db.execute("update collect.admin_tokens set revoked_at = now()")
    assert_error(client.get("/api/v1/sites", headers=auth), 401, "invalid_token")
    assert db.execute("select count(*) from collect.sites").fetchone()[0] == 1


def test_token_last_use_is_recorded(client, auth, db):
    assert db.execute("select last_used_at from collect.admin_tokens").fetchone()[0] is None
    assert client.get("/api/v1/sites", headers=auth).status_code == 200
    assert db.execute("select last_used_at from collect.admin_tokens").fetchone()[0] is not None


def test_create_site_normalizes_and_returns_it(client, auth, db):
    response = client.post("/api/v1/sites", headers=auth, json={
        "name": "  Shop  ", "domains": ["Shop.Example.com", "*.example.com", "shop.example.com.", "bücher.de"],
        "tracking_mode": "consent", "accept_user_id": True, "retention_months": 13,
        "timezone": "Europe/Paris", "currency": "usd"})
    assert response.status_code == 201
    site = response.get_json()
    assert response.headers["Location"] == f"/api/v1/sites/{site['id']}"
    assert site["name"] == "Shop"
    assert site["domains"] == ["*.example.com", "shop.example.com", "xn--bcher-kva.de"]
    assert (site["tracking_mode"], site["accept_user_id"], site["retention_months"], site["timezone"],
            site["currency"]) == ("consent", True, 13, "Europe/Paris", "USD")
    assert site["channel_rules_version"] == 1
    assert client.get(f"/api/v1/sites/{site['id']}", headers=auth).get_json() == site
    assert [s["id"] for s in client.get("/api/v1/sites", headers=auth).get_json()["sites"]] == [site["id"]]
    action, actor, details = db.execute("select action, actor, details from collect.audit_log "
                                        "where action like 'site.%%'").fetchone()
    assert action == "site.created" and actor.startswith("admin-token:") and details["name"] == "Shop"


def test_site_defaults(client, auth):
    site = client.post("/api/v1/sites", headers=auth, json={"name": "Blog"}).get_json()
    assert (site["domains"], site["tracking_mode"], site["accept_user_id"], site["retention_months"],
            site["timezone"], site["currency"]) == ([], "cookieless", False, 25, "UTC", "EUR")


INVALID_SITES = [
    ({}, "name"),
    ({"name": ""}, "name"),
    ({"name": "x" * 201}, "name"),
    ({"name": 5}, "name"),
    ({"name": "S", "domains": "example.com"}, "domains"),
    ({"name": "S", "domains": ["https://example.com"]}, "domains[0]"),
    ({"name": "S", "domains": ["example.com", "exa mple.com"]}, "domains[1]"),
    ({"name": "S", "domains": ["-bad.com"]}, "domains[0]"),
    ({"name": "S", "domains": ["*.com"]}, "domains[0]"),
    ({"name": "S", "domains": ["a.*.com"]}, "domains[0]"),
    ({"name": "S", "domains": ["example.com:8080"]}, "domains[0]"),
    ({"name": "S", "domains": [""]}, "domains[0]"),
    ({"name": "S", "domains": [3]}, "domains[0]"),
    ({"name": "S", "domains": ["a" * 64 + ".com"]}, "domains[0]"),
    ({"name": "S", "tracking_mode": "always"}, "tracking_mode"),
    ({"name": "S", "accept_user_id": "yes"}, "accept_user_id"),
    ({"name": "S", "retention_months": 0}, "retention_months"),
    ({"name": "S", "retention_months": 121}, "retention_months"),
    ({"name": "S", "retention_months": 12.5}, "retention_months"),
    ({"name": "S", "retention_months": True}, "retention_months"),
    ({"name": "S", "timezone": "Mars/Olympus"}, "timezone"),
    ({"name": "S", "timezone": "../../etc/passwd"}, "timezone"),
    ({"name": "S", "currency": "EURO"}, "currency"),
    ({"name": "S", "currency": "XYZ"}, "currency"),
    ({"name": "S", "colour": "red"}, "colour"),
]


def test_invalid_sites_are_refused_and_nothing_written(client, auth, db):
    # One database for every case: each case is a separate request, and none may write anything.
    for body, field in INVALID_SITES:
        error = assert_error(client.post("/api/v1/sites", headers=auth, json=body), 422, "validation_failed")
        assert error["details"]["field"] == field, (body, error)
    assert db.execute("select count(*) from collect.sites").fetchone()[0] == 0
    assert db.execute("select count(*) from collect.audit_log where action like 'site.%%'").fetchone()[0] == 0


def test_malformed_bodies_are_400(client, auth):
    assert_error(client.post("/api/v1/sites", headers=auth, data="{not json", content_type="application/json"),
                 400, "invalid_json")
    assert_error(client.post("/api/v1/sites", headers=auth), 422, "validation_failed")
    assert_error(client.post("/api/v1/sites", headers=auth, json=[1, 2]), 422, "validation_failed")
    too_big = {"name": "x" * (2 * 1024 * 1024)}
    assert_error(client.post("/api/v1/sites", headers=auth, json=too_big), 413)


def test_patch_site(client, auth, site, db):
    path = f"/api/v1/sites/{site['id']}"
    response = client.patch(path, headers=auth, json={"tracking_mode": "cookie", "domains": ["b.example.com", "a.example.com"]})
    assert response.status_code == 200
    changed = response.get_json()
    assert changed["tracking_mode"] == "cookie" and changed["domains"] == ["a.example.com", "b.example.com"]
    assert changed["name"] == site["name"] and changed["updated_at"] > site["updated_at"]
    assert client.patch(path, headers=auth, json={"domains": []}).get_json()["domains"] == []
    # A refused patch changes nothing, even its valid fields.
    error = assert_error(client.patch(path, headers=auth, json={"name": "New", "currency": "ABCD"}), 422)
    assert error["details"]["field"] == "currency"
    assert_error(client.patch(path, headers=auth, json={"name": None}), 422)
    assert client.get(path, headers=auth).get_json()["name"] == "Shop"
    updates = db.execute("select details from collect.audit_log where action = 'site.updated' order by audit_id").fetchall()
    assert [row[0] for row in updates] == [{"tracking_mode": "cookie", "domains": ["b.example.com", "a.example.com"]},
                                           {"domains": []}]


def test_unknown_and_malformed_site_ids_are_404(client, auth):
    for path in (f"/api/v1/sites/{UNKNOWN}", "/api/v1/sites/not-a-uuid", f"/api/v1/sites/{UNKNOWN}/health",
                 f"/api/v1/sites/{UNKNOWN}/server-keys", f"/api/v1/sites/{UNKNOWN}/goals"):
        assert_error(client.get(path, headers=auth), 404, "not_found")
    assert_error(client.patch(f"/api/v1/sites/{UNKNOWN}", headers=auth, json={"name": "x"}), 404)
    assert_error(client.delete(f"/api/v1/sites/{UNKNOWN}", headers=auth), 404)
    assert_error(client.get("/api/v1/nothing-here", headers=auth), 404)


def test_delete_site_removes_everything_of_it(client, auth, site, make_site, db):
    other = make_site(name="Other")
    path = f"/api/v1/sites/{site['id']}"
    client.post(f"{path}/server-keys", headers=auth, json={})
    client.post(f"{path}/zones", headers=auth, json={"name": "hero", "selector": ".hero", "label": "Hero"})
    for target in (site["id"], other["id"]):
        db.execute("""insert into raw.events (site_id, occurred_at, source, event_type, event_name, visitor_kind)
                      values (%s, now(), 'server', 'pageview', 'pageview', 'none')""", (target,))
    assert client.delete(path, headers=auth).status_code == 204
    assert_error(client.get(path, headers=auth), 404)
    for table in ("collect.sites", "collect.server_keys", "collect.zones", "collect.channel_rules", "raw.events"):
        assert db.execute(f"select count(*) from {table} where site_id = %s", (site["id"],)).fetchone()[0] == 0
    assert db.execute("select count(*) from raw.events where site_id = %s", (other["id"],)).fetchone()[0] == 1
    assert db.execute("select count(*) from collect.audit_log where action = 'site.deleted' and target = %s",
                      (site["id"],)).fetchone()[0] == 1


def test_a_workbench_token_is_refused_with_a_message_naming_both_kinds(client):
    assert_error(client.get("/api/v1/sites", headers={"Authorization": "Bearer wbt_abc"}), 401, "invalid_token")
    response = client.get("/api/v1/sites", headers={"Authorization": "Bearer wbt_abc"})
    message = response.get_json()["error"]["message"]
    assert "workbench API token (wbt_...)" in message and "admin token (at_...)" in message
