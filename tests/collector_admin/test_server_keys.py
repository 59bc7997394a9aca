"""Server keys through the API: created active with a secret shown once, listed without it,
revoked in one call (idempotent), every step audited; revoked keys no longer authenticate."""
from __future__ import annotations

import hashlib
import re

from pipelines.admin.server_keys import authenticate_server_key
from tests.collector_admin.conftest import assert_error


def test_key_lifecycle(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/server-keys"
    response = client.post(base, headers=auth, json={"name": "backend", "rate_limit_per_minute": 600})
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    key = response.get_json()
    secret = key["secret"]
    assert re.fullmatch(r"sk_[A-Za-z0-9_-]{43}", secret)
    assert (key["state"], key["name"], key["rate_limit_per_minute"], key["secret_hint"], key["site_id"]) == (
        "active", "backend", 600, secret[-4:], site["id"])
    assert key["last_used_at"] is None and key["revoked_at"] is None

    stored = db.execute("select secret_hash from collect.server_keys where key_id = %s", (key["id"],)).fetchone()[0]
    assert bytes(stored) == hashlib.sha256(secret.encode()).digest()

    listed = client.get(base, headers=auth)
    assert secret not in listed.get_data(as_text=True)
    [entry] = listed.get_json()["server_keys"]
    assert entry["id"] == key["id"] and "secret" not in entry and entry["state"] == "active"
    assert secret not in client.get(f"{base}/{key['id']}", headers=auth).get_data(as_text=True)

    identity = authenticate_server_key(db, secret)
    assert str(identity.site_id) == site["id"] and identity.rate_limit_per_minute == 600
    assert client.get(base, headers=auth).get_json()["server_keys"][0]["last_used_at"] is not None

    revoked = client.delete(f"{base}/{key['id']}", headers=auth)
    assert revoked.status_code == 200 and revoked.get_json()["state"] == "revoked"
    assert authenticate_server_key(db, secret) is None
    again = client.delete(f"{base}/{key['id']}", headers=auth)
    assert again.status_code == 200 and again.get_json()["revoked_at"] == revoked.get_json()["revoked_at"]

    entries = db.execute("select action, actor, target, details from collect.audit_log "
                         "where action like 'server_key.%%' order by audit_id").fetchall()
    assert [(e[0], e[2]) for e in entries] == [("server_key.created", key["id"]), ("server_key.revoked", key["id"])]
    assert all(e[1].startswith("admin-token:") for e in entries)
    assert secret not in str(entries)
    audit_text = str(db.execute("select details from collect.audit_log").fetchall())
    assert secret not in audit_text and secret[-10:] not in audit_text


def test_key_defaults_and_empty_object(client, auth, site):
    base = f"/api/v1/sites/{site['id']}/server-keys"
    key = client.post(base, headers=auth, json={}).get_json()
    assert key["rate_limit_per_minute"] == 6000 and key["name"] == ""
    assert client.post(base, headers=auth).status_code == 422  # a body is required, even if every field is optional
    assert len(client.get(base, headers=auth).get_json()["server_keys"]) == 1


def test_invalid_key_requests(client, auth, site, make_site, db):
    base = f"/api/v1/sites/{site['id']}/server-keys"
    for body, field in [({"rate_limit_per_minute": 0}, "rate_limit_per_minute"),
                        ({"rate_limit_per_minute": "10"}, "rate_limit_per_minute"),
                        ({"rate_limit_per_minute": 10**9}, "rate_limit_per_minute"),
                        ({"name": 3}, "name"), ({"name": "x" * 201}, "name"), ({"name": "nul\u0000"}, "name"),
                        ({"name": "lone \ud800"}, "name"), ({"secret": "mine"}, "secret")]:
        assert assert_error(client.post(base, headers=auth, json=body), 422)["details"]["field"] == field
    assert_error(client.post(base, headers=auth, json=[]), 422)
    assert db.execute("select count(*) from collect.server_keys").fetchone()[0] == 0

    # A key is found only under its own site.
    other = make_site(name="Other")
    key = client.post(base, headers=auth, json={}).get_json()
    assert_error(client.delete(f"/api/v1/sites/{other['id']}/server-keys/{key['id']}", headers=auth), 404)
    assert_error(client.get(f"/api/v1/sites/{other['id']}/server-keys/{key['id']}", headers=auth), 404)
    assert_error(client.delete(f"{base}/not-a-uuid", headers=auth), 404)
    assert client.get(f"{base}/{key['id']}", headers=auth).get_json()["state"] == "active"


def test_change_rate_limit_and_name(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/server-keys"
    key = client.post(base, headers=auth, json={"name": "a"}).get_json()
    changed = client.patch(f"{base}/{key['id']}", headers=auth, json={"rate_limit_per_minute": 42})
    assert changed.status_code == 200
    assert (changed.get_json()["rate_limit_per_minute"], changed.get_json()["name"]) == (42, "a")
    assert authenticate_server_key(db, key["secret"]).rate_limit_per_minute == 42
    assert client.patch(f"{base}/{key['id']}", headers=auth, json={"name": "b"}).get_json()["name"] == "b"
    for body in ({"rate_limit_per_minute": None}, {"rate_limit_per_minute": -1}, {"secret": "x"}, [1]):
        assert_error(client.patch(f"{base}/{key['id']}", headers=auth, json=body), 422)
    assert client.get(f"{base}/{key['id']}", headers=auth).get_json()["rate_limit_per_minute"] == 42
    details = [row[0] for row in db.execute("select details from collect.audit_log where action = 'server_key.updated' "
                                            "order by audit_id")]
    assert details == [{"site_id": site["id"], "rate_limit_per_minute": 42}, {"site_id": site["id"], "name": "b"}]


def test_a_server_key_reads_nothing(client, auth, site):
    """A server key only sends: as a bearer of the administration API it is unknown."""
    key = client.post(f"/api/v1/sites/{site['id']}/server-keys", headers=auth, json={}).get_json()
    as_key = {"Authorization": f"Bearer {key['secret']}"}
    for path in ("/api/v1/sites", f"/api/v1/sites/{site['id']}", f"/api/v1/sites/{site['id']}/server-keys",
                 f"/api/v1/sites/{site['id']}/health", "/api/v1/audit"):
        assert_error(client.get(path, headers=as_key), 401, "invalid_token")


def test_authenticate_and_count_is_the_key_check_and_the_rate_count_in_one(db, site):
    from pipelines.admin.server_keys import authenticate_and_count, create_server_key, revoke_server_key

    db.autocommit = True
    key = create_server_key(db, site["id"], actor="test", rate_limit_per_minute=10)
    secret = key["secret"]
    assert authenticate_and_count(db, "not-a-key", 1) == (None, False)
    assert authenticate_and_count(db, secret + "x", 1) == (None, False)

    def counted() -> int:
        row = db.execute("select events from collect.server_key_usage where key_id = %s", (key["id"],)).fetchone()
        return row[0] if row else 0

    identity, allowed = authenticate_and_count(db, secret, 6)
    assert allowed and str(identity.site_id) == site["id"] and identity.rate_limit_per_minute == 10
    assert counted() == 6
    assert db.execute("select last_used_at is not null from collect.server_keys where key_id = %s",
                      (key["id"],)).fetchone() == (True,)
    assert authenticate_and_count(db, secret, 5)[1] is False  # 11 > 10: refused and not counted
    assert counted() == 6
    assert authenticate_and_count(db, secret, 11)[1] is False  # over the limit on its own
    assert authenticate_and_count(db, secret, 4)[1] is True and counted() == 10
    revoke_server_key(db, site["id"], key["id"], actor="test")
    assert authenticate_and_count(db, secret, 1) == (None, False)
