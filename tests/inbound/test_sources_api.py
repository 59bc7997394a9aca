"""/api/v1/inbound-sources: configuration of the three kinds, sealing, and never showing secrets."""
from __future__ import annotations

import json

import pytest

from pipelines.inbound import sources
from pipelines.sealing import unseal


def create(client, headers, body, status=201):
    response = client.post("/api/v1/inbound-sources", json=body, headers=headers)
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


def test_requires_an_admin_token(client):
    assert client.get("/api/v1/inbound-sources").status_code == 401
    assert client.get("/api/v1/inbound-sources", headers={"Authorization": "Bearer at_nope"}).status_code == 401


def test_chat_source_secrets_sealed_and_never_shown(client, admin_headers, db, settings):
    secret_a, secret_b = "whsec_" + "a" * 40, "whsec_" + "b" * 40
    record = create(client, admin_headers, {"kind": "chat_webhook", "name": "Support chat",
                                            "secrets": [secret_a, secret_b]})
    assert record["endpoint"] == f"/ingest/chat/{record['id']}"
    assert [s["hint"] for s in record["secrets"]] == ["whsec_…aaaa", "whsec_…bbbb"]
    for response in (client.get("/api/v1/inbound-sources", headers=admin_headers),
                     client.get(f"/api/v1/inbound-sources/{record['id']}", headers=admin_headers)):
        assert secret_a not in response.get_data(as_text=True) and "a" * 20 not in response.get_data(as_text=True)
    rows = db.execute("select secret_id, sealed from collect.inbound_secrets order by created_at").fetchall()
    assert all(secret_a not in sealed and sealed.startswith("v1:") for _, sealed in rows)
    # AES-256-GCM under the derived key, bound to the row: it opens only where it was stored.
    key = sources.sealing_key(settings)
    opened = {unseal(key, sealed, f"inbound-source:{record['id']}:{sid}:signing") for sid, sealed in rows}
    assert opened == {secret_a, secret_b}
    audit = db.execute("select action, details::text from collect.audit_log where action like 'inbound%%'").fetchall()
    assert audit[0][0] == "inbound_source.created" and secret_a not in audit[0][1]


@pytest.mark.parametrize("body,field", [
    ({"kind": "chat_webhook", "secret": "a" * 40}, "secret"),  # no whsec_ prefix
    ({"kind": "chat_webhook"}, "secret"),
    ({"kind": "nope", "secret": "x" * 20}, "kind"),
    ({"kind": "chat_webhook", "secrets": []}, "secrets"),
    ({"kind": "chat_webhook", "secret": "whsec_" + "a" * 20, "tables": ["x"]}, "tables"),
    ({"kind": "db_stream", "base_url": "ftp://x", "tenant": "a", "base": "b", "tables": ["t"], "token": "t" * 20}, "base_url"),
    ({"kind": "db_stream", "base_url": "https://u:p@x", "tenant": "a", "base": "b", "tables": ["t"], "token": "t" * 20}, "base_url"),
    ({"kind": "db_stream", "base_url": "https://x", "tenant": "a/b", "base": "b", "tables": ["t"], "token": "t" * 20}, "tenant"),
    ({"kind": "db_stream", "base_url": "https://x", "tenant": "a", "base": "b", "tables": [], "token": "t" * 20}, "tables"),
    ({"kind": "db_stream", "base_url": "https://x", "tenant": "a", "base": "b", "tables": ["t"]}, "token"),
    ({"kind": "db_stream", "base_url": "https://x", "tenant": "a", "base": "b", "tables": ["t"], "token": "t" * 20,
      "poll_seconds": 1}, "poll_seconds"),
    ({"kind": "db_stream", "base_url": "https://x", "tenant": "a", "base": "b", "tables": ["t"], "token": "t" * 20,
      "read_path": "/rows/{id}"}, "read_path"),
    ({"kind": "chat_webhook", "secret": "whsec_" + "a" * 20, "site_id": "00000000-0000-0000-0000-000000000009"}, "site_id"),
])
def test_invalid_bodies_name_their_field(client, admin_headers, body, field):
    response = client.post("/api/v1/inbound-sources", json=body, headers=admin_headers)
    assert response.status_code in (404, 422), response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert field in json.dumps(error["details"]) or field in error["message"]


def test_stream_follower_settings_default_read_path_and_token_replacement(client, admin_headers, db):
    record = create(client, admin_headers, {
        "kind": "db_stream", "name": "CRM", "base_url": "https://db.example.org/", "tenant": "acme", "base": "crm",
        "tables": ["deals", "contacts"], "token": "it_secret_token_123456"})
    settings = record["settings"]
    assert settings["base_url"] == "https://db.example.org"
    assert settings["read_path"] == sources.DEFAULT_READ_PATH == "/api/v1/{tenant}/{base}/tables/{table}/records"
    assert settings["use_stream"] is True and settings["poll_seconds"] is None
    assert "it_secret_token_123456" not in json.dumps(record)
    db.execute("insert into raw.db_follow_state (source_id, table_name, state, last_error) values (%s, 'deals', 'stopped', 'refused')",
               (record["id"],))
    response = client.patch(f"/api/v1/inbound-sources/{record['id']}", json={"token": "it_new_token_abcdefgh",
                                                                            "poll_seconds": 30},
                            headers=admin_headers)
    assert response.status_code == 200
    assert response.get_json()["settings"]["poll_seconds"] == 30
    assert db.execute("select state, last_error from raw.db_follow_state").fetchone() == ("running", None)
    tokens = db.execute("select retired_at is null from collect.inbound_secrets order by created_at").fetchall()
    assert tokens == [(False,), (True,)]


def test_polling_follower_gets_a_default_period(client, admin_headers):
    record = create(client, admin_headers, {"kind": "db_stream", "base_url": "http://127.0.0.1:9", "tenant": "a",
                                            "base": "b", "tables": ["t"], "token": "tok_12345678", "use_stream": False})
    assert record["settings"]["poll_seconds"] == sources.DEFAULT_POLL_SECONDS


def test_site_scoped_source_rotation_figures_and_delete(client, admin_headers, db):
    site_id = db.execute("insert into collect.sites (name) values ('Shop') returning site_id").fetchone()[0]
    record = create(client, admin_headers, {"kind": "db_webhook", "site_id": str(site_id), "secret": "dbsecret_1234"})
    assert record["site_id"] == str(site_id)
    added = client.post(f"/api/v1/inbound-sources/{record['id']}/secrets", json={"secret": "dbsecret_5678"},
                        headers=admin_headers)
    assert added.status_code == 201 and len(added.get_json()["secrets"]) == 2
    first = added.get_json()["secrets"][0]["id"]
    assert client.delete(f"/api/v1/inbound-sources/{record['id']}/secrets/{first}",
                         headers=admin_headers).status_code == 200
    last = added.get_json()["secrets"][1]["id"]
    assert client.delete(f"/api/v1/inbound-sources/{record['id']}/secrets/{last}",
                         headers=admin_headers).status_code == 422  # never left without a secret
    figures = client.get(f"/api/v1/inbound-sources/{record['id']}/figures", headers=admin_headers).get_json()
    assert figures["deliveries_last_24h"] == 0 and figures["refused_last_24h"] == 0
    assert client.delete(f"/api/v1/inbound-sources/{record['id']}", headers=admin_headers).status_code == 204
    assert client.get(f"/api/v1/inbound-sources/{record['id']}", headers=admin_headers).status_code == 404


def test_quarantine_is_readable_by_an_operator(client, admin_headers, chat_source):
    client.post(f"/ingest/chat/{chat_source['id']}", data=b'{"events": []}', headers={"X-Msg-Signature": "t=1,v1=00"})
    response = client.get(f"/api/v1/inbound-sources/{chat_source['id']}/quarantine", headers=admin_headers)
    item = response.get_json()["quarantined"][0]
    assert item["reason"] == "signature_malformed_header" and item["body_text"] == '{"events": []}'
    figures = client.get(f"/api/v1/inbound-sources/{chat_source['id']}/figures", headers=admin_headers).get_json()
    assert figures["refused_last_24h_by_reason"] == {"signature_malformed_header": 1}


def test_paused_source_receives_nothing(client, admin_headers, chat_source, chat_secret):
    from pipelines.inbound.signatures import signature_header
    client.patch(f"/api/v1/inbound-sources/{chat_source['id']}", json={"state": "paused"}, headers=admin_headers)
    body = b'{"events":[{"id":"1","type":"webhook.ping"}]}'
    response = client.post(f"/ingest/chat/{chat_source['id']}", data=body,
                           headers={"X-Msg-Signature": signature_header(chat_secret, body)})
    assert response.status_code == 404
