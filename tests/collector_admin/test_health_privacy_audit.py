"""Check figures, data subject requests and the audit log through the API."""
from __future__ import annotations

import json
from datetime import date

from pipelines.admin import privacy_requests
from pipelines.ingest.visitors import destroy_salts_before
from tests.collector_admin.conftest import assert_error


def _event(db, site_id, received_ago: str):
    db.execute("""insert into raw.events (site_id, occurred_at, received_at, source, event_type, event_name, visitor_kind)
                  values (%s, now() - %s::interval, now() - %s::interval, 'server', 'pageview', 'pageview', 'none')""",
               (site_id, received_ago, received_ago))


def test_health_of_a_silent_site(client, auth, site):
    health = client.get(f"/api/v1/sites/{site['id']}/health", headers=auth).get_json()
    assert health["events_last_24h"] == 0 and health["last_event_at"] is None
    assert health["seconds_since_last_event"] is None
    assert health["rejected_last_24h"] == 0 and health["rejected_last_24h_by_reason"] == {}


def test_health_figures(client, auth, site, make_site, db):
    other = make_site(name="Other")
    for ago in ("2 minutes", "1 hour", "23 hours", "30 hours", "40 days"):
        _event(db, site["id"], ago)
    _event(db, other["id"], "1 second")
    for reason, minute_ago, count in [("origin_not_allowed", "5 minutes", 3), ("origin_not_allowed", "2 hours", 4),
                                      ("bot", "10 minutes", 2), ("origin_not_allowed", "2 days", 100)]:
        db.execute("insert into collect.rejections (site_id, reason, minute, count) values "
                   "(%s, %s, date_trunc('minute', now() - %s::interval), %s)", (site["id"], reason, minute_ago, count))
    health = client.get(f"/api/v1/sites/{site['id']}/health", headers=auth).get_json()
    assert health["events_last_24h"] == 3
    assert 115 <= health["seconds_since_last_event"] <= 200
    assert health["rejected_last_24h_by_reason"] == {"bot": 2, "origin_not_allowed": 7}
    assert health["rejected_last_24h"] == 9

    # Quiet for more than a day: the last event is still found.
    db.execute("delete from raw.events where site_id = %s and received_at > now() - interval '24 hours'", (site["id"],))
    health = client.get(f"/api/v1/sites/{site['id']}/health", headers=auth).get_json()
    assert health["events_last_24h"] == 0
    assert 29 * 3600 < health["seconds_since_last_event"] < 31 * 3600


def test_privacy_request_lifecycle(client, auth, site, settings, db):
    base = f"/api/v1/sites/{site['id']}/privacy-requests"
    created = client.post(base, headers=auth, json={"kind": "export", "user_id": "customer-42"})
    assert created.status_code == 202
    request = created.get_json()
    assert (request["kind"], request["subject_kind"], request["state"]) == ("export", "user_id", "pending")
    assert "customer-42" not in created.get_data(as_text=True)
    assert created.headers["Location"].endswith(request["id"])
    assert client.get(f"{base}/{request['id']}", headers=auth).get_json()["state"] == "pending"
    erasure = client.post(base, headers=auth, json={"kind": "erasure", "visitor": "abcdefghijklmnopqrstuv"}).get_json()
    assert [r["id"] for r in client.get(base, headers=auth).get_json()["privacy_requests"]] == [erasure["id"], request["id"]]
    assert [r["id"] for r in client.get(f"{base}?state=pending", headers=auth).get_json()["privacy_requests"]] == [
        erasure["id"], request["id"]]
    assert client.get(f"{base}?state=done", headers=auth).get_json()["privacy_requests"] == []
    assert_error(client.get(f"{base}?state=finished", headers=auth), 400, "invalid_parameter")

    # The audit log names the request, never the person.
    audit = db.execute("select actor, details from collect.audit_log where action = 'privacy_request.created' "
                       "and target = %s", (request["id"],)).fetchone()
    assert audit[0].startswith("admin-token:") and "customer-42" not in json.dumps(audit[1])

    export = f"{base}/{request['id']}/export"
    assert_error(client.get(export, headers=auth), 409, "export_not_ready")
    assert_error(client.get(f"{base}/{erasure['id']}/export", headers=auth), 409, "not_an_export")

    # What the maintenance job does when it has processed the export.
    path = privacy_requests.export_path(settings, request["id"])
    assert path == settings.home / "exports" / f"{request['id']}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"event_name": "pageview"}\n{"event_name": "purchase"}\n')
    db.execute("""update collect.privacy_requests set state = 'done', completed_at = now(), subject_value = null,
                         result = %s where request_id = %s""",
               (json.dumps({"export_file": f"exports/{request['id']}.jsonl", "rows": 2}), request["id"]))
    download = client.get(export, headers=auth)
    assert download.status_code == 200
    assert download.mimetype == "application/x-ndjson"
    assert [json.loads(line)["event_name"] for line in download.get_data(as_text=True).splitlines()] == [
        "pageview", "purchase"]
    assert client.get(f"{base}/{request['id']}", headers=auth).get_json()["result"]["rows"] == 2
    path.unlink()
    assert_error(client.get(export, headers=auth), 410, "export_gone")


def test_privacy_request_validation(client, auth, site, db):
    base = f"/api/v1/sites/{site['id']}/privacy-requests"
    for body in ({"kind": "export"}, {"kind": "export", "user_id": "a", "visitor": "b"},
                 {"kind": "delete", "user_id": "a"}, {"user_id": "a"}, {"kind": "export", "user_id": ""},
                 {"kind": "export", "user_id": 42}, {"kind": "export", "user_id": "x" * 501},
                 {"kind": "export", "user_id": "a", "email": "a@example.com"}):
        assert_error(client.post(base, headers=auth, json=body), 422, "validation_failed")
    assert db.execute("select count(*) from collect.privacy_requests").fetchone()[0] == 0
    assert_error(client.get(f"{base}/00000000-0000-0000-0000-000000000000", headers=auth), 404)
    assert_error(client.post("/api/v1/sites/nope/privacy-requests", headers=auth,
                             json={"kind": "export", "user_id": "a"}), 404)


def test_audit_listing(client, auth, site, db):
    for index in range(5):
        client.post(f"/api/v1/sites/{site['id']}/server-keys", headers=auth, json={"name": f"k{index}"})
    first = client.get("/api/v1/audit?limit=3", headers=auth).get_json()
    assert len(first["entries"]) == 3 and first["next_before"] is not None
    ids = [entry["id"] for entry in first["entries"]]
    assert ids == sorted(ids, reverse=True)
    rest = client.get(f"/api/v1/audit?limit=3&before={first['next_before']}", headers=auth).get_json()
    assert all(entry["id"] < min(ids) for entry in rest["entries"])
    everything = client.get("/api/v1/audit?limit=500", headers=auth).get_json()
    assert everything["next_before"] is None
    assert {e["action"] for e in everything["entries"]} >= {"admin_token.created", "site.created", "server_key.created"}

    keys = client.get("/api/v1/audit?action=server_key.created", headers=auth).get_json()["entries"]
    assert len(keys) == 5 and all(e["action"] == "server_key.created" for e in keys)
    assert len(client.get("/api/v1/audit?action=server_key.*", headers=auth).get_json()["entries"]) == 5
    assert client.get("/api/v1/audit?since=2999-01-01T00:00:00Z", headers=auth).get_json()["entries"] == []
    assert len(client.get("/api/v1/audit?since=2000-01-01T00:00:00%2B00:00", headers=auth).get_json()["entries"]) >= 7
    for query in ("limit=0", "limit=501", "limit=x", "since=yesterday", "before=-1"):
        assert_error(client.get(f"/api/v1/audit?{query}", headers=auth), 400, "invalid_parameter")
    # Salt destruction by maintenance shows up like any other entry.
    destroy_salts_before(db, date(2026, 1, 1))
    assert client.get("/api/v1/audit?action=daily_salts.destroyed", headers=auth).get_json()["entries"][0]["actor"] == "maintenance"
