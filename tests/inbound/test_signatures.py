"""Signature conformance of both receivers: the cases of the spec and of issue 6."""
from __future__ import annotations

import json
import time

import pytest

from pipelines.inbound import signatures
from tests.inbound.fakes.chat_service import conversation, message



def chat_body(n: int = 1) -> bytes:
    conv = conversation()
    events = [{"id": f"evt-{i}-{time.time_ns()}", "type": "message.created",
               "occurredAt": "2026-11-21T10:00:00.000Z", "conversation": conv, "message": message()}
              for i in range(n)]
    return json.dumps({"events": events}, separators=(",", ":")).encode()


def header(secret: str, body: bytes, t: int | None = None) -> str:
    return signatures.signature_header(secret, body, t)


def post(client, source, body: bytes, sig: str | None, *, name: str = "X-Msg-Signature", extra=None):
    kind = "chat" if source["kind"] == "chat_webhook" else "db"
    headers = {"Content-Type": "application/json"}
    if sig is not None:
        headers[name] = sig
    headers.update(extra or {})
    return client.post(f"/ingest/{kind}/{source['id']}", data=body, headers=headers)


def inbox_count(db) -> int:
    return db.execute("select count(*) from raw.inbound_inbox").fetchone()[0]


def test_valid_delivery_is_stored_and_answered_202(client, chat_source, chat_secret, db):
    body = chat_body(3)
    response = post(client, chat_source, body, header(chat_secret, body),
                    extra={"X-Msg-Delivery-Id": "d-1"})
    assert response.status_code == 202
    assert response.get_json()["received"] == 3
    row = db.execute("select event_count, delivery_id, body, processed_at from raw.inbound_inbox").fetchone()
    assert row[0] == 3 and row[1] == "d-1" and bytes(row[2]) == body and row[3] is None


def test_one_byte_changed_is_refused_counted_and_quarantined(client, chat_source, chat_secret, db):
    body = chat_body()
    sig = header(chat_secret, body)
    tampered = body.replace(b"Hello", b"Jello", 1)
    response = post(client, chat_source, tampered, sig)
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "invalid_signature"
    assert inbox_count(db) == 0
    assert db.execute("select reason, count from collect.inbound_refusals").fetchall() == [("signature_mismatch", 1)]
    reason, kept = db.execute("select reason, body from raw.inbound_quarantine").fetchone()
    assert reason == "signature_mismatch" and bytes(kept) == tampered


def test_reserialised_body_is_refused(client, chat_source, chat_secret, db):
    body = chat_body()
    sig = header(chat_secret, body)
    reserialised = json.dumps(json.loads(body)).encode()  # same JSON, other bytes (spaces)
    assert reserialised != body
    assert post(client, chat_source, reserialised, sig).status_code == 401


@pytest.mark.parametrize("make_secret", [lambda s: s + "x", lambda s: s[len("whsec_"):], lambda s: "whsec_" + "0" * 40])
def test_wrong_secret_or_secret_without_prefix(client, chat_source, chat_secret, make_secret):
    body = chat_body()
    assert post(client, chat_source, body, header(make_secret(chat_secret), body)).status_code == 401


@pytest.mark.parametrize("offset,status", [(299, 202), (-299, 202), (301, 401), (-301, 401)])
def test_timestamp_tolerance_both_ways(app, client, chat_source, chat_secret, offset, status, db):
    now = 1_795_000_000
    app.config["INBOUND_CLOCK"] = lambda: now
    body = chat_body()
    response = post(client, chat_source, body, header(chat_secret, body, now + offset))
    assert response.status_code == status
    if status == 401:
        assert response.get_json()["error"]["details"]["reason"] == "stale_timestamp"


def test_several_v1_in_either_order(client, chat_source, chat_secret):
    for flip in (False, True):
        body = chat_body()
        t = str(int(time.time()))
        good = signatures.compute(chat_secret, t, body)
        bad = "0" * 64
        entries = [bad, good] if flip else [good, bad]
        assert post(client, chat_source, body, f"t={t},v1={entries[0]},v1={entries[1]}").status_code == 202


def test_v0_only_is_refused(client, chat_source, chat_secret):
    body = chat_body()
    t = str(int(time.time()))
    assert post(client, chat_source, body, f"t={t},v0={signatures.compute(chat_secret, t, body)}").status_code == 401


def _malformed_headers(secret: str, body: bytes) -> list[str | None]:
    t = str(int(time.time()))
    good = signatures.compute(secret, t, body)
    return [
        None, "", "   ", "t=", f"v1={good}", f"t={t}", f"t={t},v1=", f"t=12a4,v1={good}", f"t=-{t},v1={good}",
        f"t={t}.5,v1={good}", f"t= {t}x,v1={good}", f"t={t},v1={good[:-1]}", f"t={t},v1={good}00",
        f"t={t},v1={'g' * 64}", f"t={t},v1={good[:-1]}é", f"t={t}é,v1={good}", "t=1,t=2,v1=" + good,
        f"t={'9' * 40},v1={good}", f"t=١٢٣,v1={good}", "garbage", ",,,,", "t" * 5000, f"t={t};v1={good}",
    ]


def test_missing_empty_and_malformed_headers_are_401_never_500(client, chat_source, chat_secret):
    body = chat_body()
    for value in _malformed_headers(chat_secret, body):
        response = post(client, chat_source, body, value)
        assert response.status_code == 401, value


def test_non_ascii_header_bytes_over_real_http(live_url, chat_source, chat_secret):
    import http.client
    from urllib.parse import urlsplit
    body = chat_body()
    t = str(int(time.time()))
    parts = urlsplit(live_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.putrequest("POST", f"/ingest/chat/{chat_source['id']}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(len(body)))
    conn.putheader("X-Msg-Signature", f"t={t},v1=".encode() + "é".encode("utf-8") * 32)
    conn.endheaders(body)
    assert conn.getresponse().status == 401


def test_signed_non_utf8_body_is_400(client, chat_source, chat_secret, db):
    body = b'{"events": [{"id": "\xff\xfe", "type": "x"}]}'
    response = post(client, chat_source, body, header(chat_secret, body))
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "invalid_encoding"
    assert inbox_count(db) == 0


def test_unsigned_non_utf8_body_is_401(client, chat_source):
    assert post(client, chat_source, b"\xff\xfe\x00garbage", "t=1,v1=" + "0" * 64).status_code == 401


@pytest.mark.parametrize("body", [b"not json", b"[]", b'{"events": {}}', b'{"events": []}', b'{"other": 1}',
                                  b'{"events": [1]}', b'{"events": [{"type": "x"}]}'])
def test_signed_malformed_bodies_are_400(client, chat_source, chat_secret, body, db):
    assert post(client, chat_source, body, header(chat_secret, body)).status_code == 400
    assert inbox_count(db) == 0


def test_0_and_51_events_are_400_and_50_accepted(client, chat_source, chat_secret):
    for n, status in ((0, 400), (51, 400), (50, 202), (1, 202)):
        body = json.dumps({"events": json.loads(chat_body(n))["events"] if n else []}).encode()
        assert post(client, chat_source, body, header(chat_secret, body)).status_code == status, n


def test_oversized_body_is_413_and_largest_batch_passes(client, chat_source, chat_secret):
    from pipelines.inbound.inbox import MAX_DELIVERY_BYTES
    # The largest legitimate batch: 50 events, each with a long message (100 KiB).
    conv = conversation()
    events = [{"id": f"big-{i}", "type": "message.created", "occurredAt": "2026-11-21T10:00:00.000Z",
               "conversation": conv, "message": message(body="x" * 100_000)} for i in range(50)]
    big = json.dumps({"events": events}).encode()
    assert len(big) < MAX_DELIVERY_BYTES
    assert post(client, chat_source, big, header(chat_secret, big)).status_code == 202
    oversized = b'{"events": [' + b" " * MAX_DELIVERY_BYTES + b"]}"
    response = post(client, chat_source, oversized, header(chat_secret, oversized))
    assert response.status_code == 413
    assert response.get_json()["error"]["code"] == "payload_too_large"


def test_oversized_chunked_body_is_413(live_url, chat_source, chat_secret):
    import requests
    from pipelines.inbound.inbox import MAX_DELIVERY_BYTES

    def chunks():
        for _ in range(MAX_DELIVERY_BYTES // (1024 * 1024) + 2):
            yield b" " * (1024 * 1024)
    response = requests.post(f"{live_url}/ingest/chat/{chat_source['id']}", data=chunks(),
                             headers={"X-Msg-Signature": "t=1,v1=" + "0" * 64}, timeout=30)
    assert response.status_code == 413


def test_rotation_accepts_every_active_secret(client, chat_source, chat_secret, database_url, key):
    import psycopg
    from pipelines.inbound import sources
    new = "whsec_" + "n" * 32
    with psycopg.connect(database_url) as conn:
        record = sources.add_secret(conn, key, chat_source["id"], {"secret": new}, actor="tests")
    for secret in (chat_secret, new):
        body = chat_body()
        assert post(client, chat_source, body, header(secret, body)).status_code == 202
    old_id = record["secrets"][0]["id"]
    with psycopg.connect(database_url) as conn:
        sources.retire_secret(conn, chat_source["id"], old_id, actor="tests")
    body = chat_body()
    assert post(client, chat_source, body, header(chat_secret, body)).status_code == 401
    assert post(client, chat_source, body, header(new, body)).status_code == 202


def test_database_receiver_uses_the_same_construction(client, db_source, db_secret, db):
    event = {"id": "e1", "type": "record.created", "occurred_at": "2026-11-21T10:00:00.000Z", "tenant": "acme",
             "base": "crm", "table": "deals", "record_id": "r1", "actor": {"kind": "user"}, "before": None,
             "after": {"id": "r1", "amount": 5}, "changed": ["amount"]}
    body = json.dumps({"events": [event]}).encode()
    sig = header(db_secret, body)
    assert post(client, db_source, body, sig, name="X-Db-Signature").status_code == 202
    # The chat header name is not the database service's.
    assert post(client, db_source, body, sig, name="X-Msg-Signature").status_code == 401
    assert post(client, db_source, body + b" ", sig, name="X-Db-Signature").status_code == 401


def test_unknown_source_kind_mismatch_and_no_redirect(client, chat_source, chat_secret, db_source):
    body = chat_body()
    sig = header(chat_secret, body)
    assert post(client, {"kind": "chat_webhook", "id": "not-a-uuid"}, body, sig).status_code == 404
    assert post(client, {"kind": "db_webhook", "id": chat_source["id"]}, body, sig).status_code == 404
    response = client.post(f"/ingest/chat/{chat_source['id']}/", data=body, headers={"X-Msg-Signature": sig})
    assert response.status_code not in (301, 302, 307, 308)
    assert client.get(f"/ingest/chat/{chat_source['id']}").status_code == 405


def test_storage_down_is_503_with_retry_after(tmp_path, chat_secret):
    from collector_app.database import close_pool
    from pipelines.settings import Settings
    from collector_app.app import create_app
    dead = Settings(home=tmp_path, database_url="postgresql://nobody@127.0.0.1:1/none?connect_timeout=1",
                    server_secret_value="x")
    app = create_app(dead)
    try:
        body = chat_body()
        response = app.test_client().post("/ingest/chat/00000000-0000-0000-0000-000000000001", data=body,
                                          headers={"X-Msg-Signature": header(chat_secret, body)})
        assert response.status_code == 503
        assert response.headers["Retry-After"].isdigit()
    finally:
        close_pool(app)


def _db_body() -> bytes:
    event = {"id": f"db-{time.time_ns()}", "type": "record.updated", "occurred_at": "2026-11-21T10:00:00.000Z",
             "tenant": "acme", "base": "crm", "table": "deals", "record_id": "r1", "actor": {"kind": "user"},
             "before": {"id": "r1", "amount": 1}, "after": {"id": "r1", "amount": 2}, "changed": ["amount"]}
    return json.dumps({"events": [event]}, separators=(",", ":")).encode()


@pytest.mark.parametrize("kind", ["chat", "db"])
def test_both_receivers_share_the_conformance_cases(app, client, kind, chat_source, chat_secret, db_source,
                                                   db_secret):
    now = 1_795_000_000
    app.config["INBOUND_CLOCK"] = lambda: now
    source, secret = (chat_source, chat_secret) if kind == "chat" else (db_source, db_secret)
    name = "X-Msg-Signature" if kind == "chat" else "X-Db-Signature"
    make = chat_body if kind == "chat" else _db_body
    body = make()
    assert post(client, source, body, header(secret, body, now), name=name).status_code == 202
    cases = [
        (body[:-2] + b" }", header(secret, body, now)),                 # one byte changed
        (make(), header(secret + "x", body, now)),                       # wrong secret
        (body, header(secret, body, now - 301)),                         # too old
        (body, header(secret, body, now + 301)),                         # too far ahead
        (body, f"t={now},v0={signatures.compute(secret, str(now), body)}"),  # v0 only
        (body, ""), (body, None), (body, f"t=x{now},v1={'0' * 64}"),     # empty, missing, malformed
    ]
    for payload, sig in cases:
        assert post(client, source, payload, sig, name=name).status_code == 401, sig
    for offset in (299, -299, 300, -300):
        fresh = make()
        assert post(client, source, fresh, header(secret, fresh, now + offset), name=name).status_code == 202


def test_verify_edges_and_bounds():
    body = b'{"events":[]}'
    secret = "whsec_abc12345"
    for offset, ok in ((300, True), (-300, True), (301, False), (-301, False), (0, True)):
        assert bool(signatures.verify(header(secret, body, 1000 + offset), body, [secret], now=1000)) is ok
    assert signatures.verify(header(secret, body, 1000), body, [], now=1000).reason == "no_secret"
    assert signatures.verify(header(secret, body, 1000), body, ["other_secret", secret], now=1000)
    # Uppercase hex from a sender is the same digest.
    t, digest = "1000", signatures.compute(secret, "1000", body)
    assert signatures.verify(f"t={t},v1={digest.upper()}", body, [secret], now=1000)
    # At most MAX_SIGNATURES entries are considered: the work of a hostile header is bounded.
    many = ",".join(["v1=" + "0" * 64] * 1000)
    assert signatures.verify(f"t=1000,{many}", body, [secret], now=1000).reason in ("mismatch", "malformed_header")


def test_secrets_sealed_under_another_server_secret_answer_503(settings, chat_source, chat_secret):
    """The server secret changed: the sender is asked to retry (503) while an operator restores it."""
    from dataclasses import replace
    from collector_app.app import create_app
    from collector_app.database import close_pool
    other = create_app(replace(settings, server_secret_value="a-different-server-secret"))
    try:
        body = chat_body()
        response = other.test_client().post(f"/ingest/chat/{chat_source['id']}", data=body,
                                            headers={"X-Msg-Signature": header(chat_secret, body)})
        assert response.status_code == 503
        assert response.get_json()["error"]["code"] == "secret_unreadable"
        assert response.headers["Retry-After"].isdigit()
    finally:
        close_pool(other)
