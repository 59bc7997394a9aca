"""The administration API and the server endpoint together: a key made through the API sends
for its site only, the site's settings apply at once, revocation stops the key, and the health
figures count what arrived."""
from __future__ import annotations

from tests.collector_admin.conftest import assert_error


def _send(client, secret, *events):
    return client.post("/collect/server", headers={"Authorization": f"Bearer {secret}"},
                       json={"events": list(events)})


def test_key_from_the_api_sends_for_its_site_until_revoked(client, auth, make_site, db):
    site = make_site(name="Shop")
    other = make_site(name="Other")
    key = client.post(f"/api/v1/sites/{site['id']}/server-keys", headers=auth, json={"name": "backend"}).get_json()

    sent = _send(client, key["secret"], {"type": "pageview", "url": "https://shop.example.com/"},
                 {"type": "event", "name": "signup", "user_id": "u-1"})
    assert sent.status_code == 202
    body = sent.get_json()
    assert body["accepted"] == 1 and [r["index"] for r in body["rejected"]] == [1]  # user ids not accepted yet

    # Accepting signed-in visitors takes effect on the next request.
    assert client.patch(f"/api/v1/sites/{site['id']}", headers=auth, json={"accept_user_id": True}).status_code == 200
    assert _send(client, key["secret"], {"type": "event", "name": "signup", "user_id": "u-1"}).get_json()["accepted"] == 1

    counts = dict(db.execute("select site_id::text, count(*) from raw.events group by site_id").fetchall())
    assert counts == {site["id"]: 2}
    health = client.get(f"/api/v1/sites/{site['id']}/health", headers=auth).get_json()
    assert health["events_last_24h"] == 2 and health["seconds_since_last_event"] is not None
    assert client.get(f"/api/v1/sites/{other['id']}/health", headers=auth).get_json()["events_last_24h"] == 0
    listed = client.get(f"/api/v1/sites/{site['id']}/server-keys", headers=auth).get_json()["server_keys"]
    assert listed[0]["last_used_at"] is not None

    assert client.delete(f"/api/v1/sites/{site['id']}/server-keys/{key['id']}", headers=auth).status_code == 200
    assert_error(_send(client, key["secret"], {"type": "pageview"}), 401)


def test_erasure_through_the_server_key_appears_in_the_api(client, auth, site):
    key = client.post(f"/api/v1/sites/{site['id']}/server-keys", headers=auth, json={}).get_json()
    erase = client.post("/collect/server/erase", headers={"Authorization": f"Bearer {key['secret']}"},
                        json={"user_id": "u-9"})
    assert erase.status_code == 202
    requests = client.get(f"/api/v1/sites/{site['id']}/privacy-requests", headers=auth).get_json()["privacy_requests"]
    assert [(r["id"], r["kind"], r["requested_by"]) for r in requests] == [
        (erase.get_json()["id"], "erasure", f"server-key:{key['id']}")]
