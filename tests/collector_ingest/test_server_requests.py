"""POST /collect/server and /collect/server/erase as requests: malformed bodies, keys and their
scope, revocation, body size, rate limit, idempotency, erasure requests."""
from __future__ import annotations

import contextlib
import json
import threading

import pytest

from collector_app.database import get_pool
from pipelines.admin.server_keys import revoke_server_key
from pipelines.ingest.events import MAX_EVENTS_PER_REQUEST
from tests.collector_ingest.conftest import events_of

PAGEVIEW = {"type": "pageview"}


def assert_error(response, status, code=None):
    assert response.status_code == status, response.data
    error = response.json["error"]
    assert set(error) == {"code", "message", "details"} and error["message"]
    if code:
        assert error["code"] == code


@pytest.mark.parametrize("body", [b"not json", b"{", b'{"events": [NaN]}', b"\xff\xfe", b""])
def test_body_that_is_not_json_is_400(client, site, body):
    r = client.post("/collect/server", data=body, headers={**site.auth, "Content-Type": "application/json"})
    assert_error(r, 400, "invalid_json")


@pytest.mark.parametrize("body", [
    [], [PAGEVIEW], {"event": [PAGEVIEW]}, {"events": PAGEVIEW}, {"events": None}, {"events": []},
    {"events": [PAGEVIEW] * (MAX_EVENTS_PER_REQUEST + 1)}, {"events": [PAGEVIEW], "site": "x"}, "events",
])
def test_malformed_request_is_400_and_stores_nothing(client, site, db, body):
    r = client.post("/collect/server", json=body, headers=site.auth)
    assert_error(r, 400, "invalid_request")
    assert events_of(db, site.site_id) == []


def test_one_hundred_events_are_accepted(client, site, db):
    r = client.post("/collect/server", json={"events": [PAGEVIEW] * 100}, headers=site.auth)
    assert r.status_code == 202 and r.json["accepted"] == 100
    assert len(events_of(db, site.site_id)) == 100


@pytest.mark.parametrize("header", [None, "", "Bearer", "Basic abc", "Bearer sk_unknownkeyunknownkeyunknownkeyunknownkey12",
                                    "Bearer not-a-key"])
def test_missing_or_unknown_key_is_401(client, site, db, header):
    headers = {} if header is None else {"Authorization": header}
    r = client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=headers)
    assert_error(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    assert db.execute("select count(*) from raw.events").fetchone()[0] == 0


def test_revoked_key_is_401_at_once(client, site, db):
    assert client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=site.auth).status_code == 202
    with db.transaction():
        revoke_server_key(db, site.site_id, site.key_id, actor="test")
    r = client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=site.auth)
    assert_error(r, 401, "unauthorized")
    assert_error(client.post("/collect/server/erase", json={"user_id": "u"}, headers=site.auth), 401)
    assert len(events_of(db, site.site_id)) == 1


def test_a_key_writes_only_to_its_site(client, make_site, db):
    a, b = make_site(name="A"), make_site(name="B")
    client.post("/collect/server", json={"events": [{"type": "event", "name": "from_a"}]}, headers=a.auth)
    client.post("/collect/server", json={"events": [{"type": "event", "name": "from_b"}] * 2}, headers=b.auth)
    assert [row["event_name"] for row in events_of(db, a.site_id)] == ["from_a"]
    assert [row["event_name"] for row in events_of(db, b.site_id)] == ["from_b", "from_b"]


def maximal_event() -> dict:
    return {"type": "event", "name": "n" * 64, "at": "2026-01-01T00:00:00.000000+00:00",
            "url": "https://a.example/" + "u" * 2030, "referrer": "https://r.example/" + "r" * 2030,
            "title": "t" * 500, "props": {f"{i:02d}" + "k" * 62: "v" * 500 for i in range(30)},
            "items": [{"id": "i" * 200, "name": "n" * 200, "price": 123456.789, "quantity": 1000}] * 50,
            "visitor": "v" * 64, "user_id": "x" * 200, "ip": "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
            "user_agent": "a" * 1000, "language": "zh-Hant-TW-x1234567"}


def test_body_limit_admits_one_hundred_maximal_events_and_refuses_more(client, site):
    body = json.dumps({"events": [maximal_event()] * 100}).encode()
    r = client.post("/collect/server", data=body, headers={**site.auth, "Content-Type": "application/json"})
    # Reaches validation (the events themselves are refused for their old date and user id).
    assert r.status_code == 202 and len(r.json["rejected"]) == 100
    too_big = b'{"events": [' + b'{"type": "pageview", "title": "' + b"x" * (9 * 1024 * 1024) + b'"}]}'
    r = client.post("/collect/server", data=too_big, headers={**site.auth, "Content-Type": "application/json"})
    assert_error(r, 413, "payload_too_large")


def test_rate_limit_per_key_answers_429_with_retry_after(client, make_site, db):
    limited, other = make_site(name="Limited", rate_limit_per_minute=150), make_site(name="Other")
    assert client.post("/collect/server", json={"events": [PAGEVIEW] * 100}, headers=limited.auth).status_code == 202
    r = client.post("/collect/server", json={"events": [PAGEVIEW] * 100}, headers=limited.auth)
    assert_error(r, 429, "rate_limited")
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    # What remains of the minute is still usable, and other keys are not affected.
    assert client.post("/collect/server", json={"events": [PAGEVIEW] * 50}, headers=limited.auth).status_code == 202
    assert client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=limited.auth).status_code == 429
    assert client.post("/collect/server", json={"events": [PAGEVIEW] * 100}, headers=other.auth).status_code == 202
    assert len(events_of(db, limited.site_id)) == 150


def test_rate_limit_counter_is_shared_through_the_database(client, make_site, db):
    limited = make_site(rate_limit_per_minute=100)
    db.execute("insert into collect.server_key_usage values (%s, date_trunc('minute', now()), 95)", (limited.key_id,))
    assert client.post("/collect/server", json={"events": [PAGEVIEW] * 6}, headers=limited.auth).status_code == 429
    assert client.post("/collect/server", json={"events": [PAGEVIEW] * 5}, headers=limited.auth).status_code == 202


def test_idempotency_key_makes_a_retry_store_nothing_twice(client, site, db):
    body = {"events": [PAGEVIEW, {"type": "event", "name": "signup"}, {"type": "nope"}]}
    headers = {**site.auth, "Idempotency-Key": "order-7781-attempt"}
    first = client.post("/collect/server", json=body, headers=headers)
    second = client.post("/collect/server", json=body, headers=headers)
    assert first.status_code == second.status_code == 202
    assert first.json == second.json and first.json["accepted"] == 2
    assert "Idempotent-Replayed" not in first.headers and second.headers["Idempotent-Replayed"] == "true"
    assert len(events_of(db, site.site_id)) == 2
    # Another body under the same key is a client error, not a silent replay.
    r = client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=headers)
    assert_error(r, 422, "idempotency_key_reused")
    # Without the header, the same body is stored again.
    client.post("/collect/server", json=body, headers=site.auth)
    assert len(events_of(db, site.site_id)) == 4


def test_idempotency_keys_are_per_server_key(client, make_site, db):
    a, b = make_site(name="A"), make_site(name="B")
    for site in (a, b):
        r = client.post("/collect/server", json={"events": [PAGEVIEW]}, headers={**site.auth, "Idempotency-Key": "same"})
        assert r.status_code == 202 and "Idempotent-Replayed" not in r.headers
    assert len(events_of(db, a.site_id)) == len(events_of(db, b.site_id)) == 1


def test_concurrent_twins_store_once(app, site, db):
    body = {"events": [PAGEVIEW] * 10}
    headers = {**site.auth, "Idempotency-Key": "twins"}
    answers = []

    def send():
        answers.append(app.test_client().post("/collect/server", json=body, headers=headers))

    # The pool opens with one connection and grows while requests wait, at most a second each
    # (Ingestion.POOL_WAIT_SECONDS): on a loaded machine eight at once got a 503 once. The twins
    # race for the key here, not for connections.
    with contextlib.ExitStack() as held:
        for _ in range(8):
            held.enter_context(get_pool(app).connection(timeout=30))
    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [202] * 8
    assert {json.dumps(a.json, sort_keys=True) for a in answers} == {json.dumps({"accepted": 10, "rejected": []})}
    assert sum("Idempotent-Replayed" in a.headers for a in answers) == 7
    assert len(events_of(db, site.site_id)) == 10


@pytest.mark.parametrize("key", ["", "x" * 256, "has space", "é"])
def test_malformed_idempotency_key_is_400(client, site, key):
    r = client.post("/collect/server", json={"events": [PAGEVIEW]}, headers={**site.auth, "Idempotency-Key": key})
    assert_error(r, 400, "invalid_idempotency_key")


@pytest.mark.parametrize("kind, value", [("user_id", "customer-42"), ("visitor", "0123456789abcdefghijklmnop")])
def test_erasure_request_is_recorded_for_the_key_site(client, make_site, db, kind, value):
    site, other = make_site(name="A"), make_site(name="B")
    r = client.post("/collect/server/erase", json={kind: value}, headers=site.auth)
    assert r.status_code == 202
    request_id = r.json["id"]
    row = db.execute("""select site_id::text, kind, subject_kind, state, requested_by
                          from collect.privacy_requests where request_id = %s""", (request_id,)).fetchone()
    assert row == (site.site_id, "erasure", kind, "pending", f"server-key:{site.key_id}")
    audit = db.execute("select actor, details from collect.audit_log where action = 'privacy_request.created' and target = %s",
                       (request_id,)).fetchone()
    assert audit[0] == f"server-key:{site.key_id}" and value not in json.dumps(audit[1])
    assert db.execute("select count(*) from collect.privacy_requests where site_id = %s", (other.site_id,)).fetchone()[0] == 0


@pytest.mark.parametrize("body", [
    {}, {"user_id": "a", "visitor": "b"}, {"user_id": "a", "extra": 1}, {"user_id": None}, {"user_id": 42},
    {"visitor": ""}, {"visitor": "   "}, {"user_id": "x" * 501}, [], "user_id", {"email": "a@b.c"},
])
def test_erasure_body_must_hold_exactly_one_subject(client, site, db, body):
    r = client.post("/collect/server/erase", json=body, headers=site.auth)
    assert_error(r, 400, "invalid_request")
    assert db.execute("select count(*) from collect.privacy_requests").fetchone()[0] == 0


def test_erasure_needs_a_key(client, site):
    assert_error(client.post("/collect/server/erase", json={"user_id": "u"}), 401, "unauthorized")
    r = client.post("/collect/server/erase", data=b"nope", headers={**site.auth, "Content-Type": "application/json"})
    assert_error(r, 400, "invalid_json")


# A key this process has authenticated before is checked and counted in the writer's group query,
# with its rows (ServerBatches.begin_cached); whatever that query does not confirm is answered by
# the request's own check, as before. These tests hold the answers to what a check in a statement
# of its own per request gave.


def _own_checks(app, monkeypatch) -> list:
    """Counts the requests that took their own key check (Ingestion.begin_server_request)."""
    from collector_app.collect_api.context import ingestion

    service, calls = ingestion(app), []
    own = service.begin_server_request

    def counted(*args, **kwargs):
        calls.append(args)
        return own(*args, **kwargs)

    monkeypatch.setattr(service, "begin_server_request", counted)
    return calls


def test_a_known_key_is_checked_and_counted_in_the_writers_group(app, client, make_site, db, monkeypatch):
    limited = make_site(rate_limit_per_minute=1000)
    own_checks = _own_checks(app, monkeypatch)
    for n in (3, 4, 5):
        assert client.post("/collect/server", json={"events": [PAGEVIEW] * n}, headers=limited.auth).status_code == 202
    # The first request checked its key on its own; the next two went with their rows.
    assert len(own_checks) == 1
    assert db.execute("select events from collect.server_key_usage where key_id = %s",
                      (limited.key_id,)).fetchone()[0] == 12
    assert len(events_of(db, limited.site_id)) == 12
    # Events all refused: nothing to write, but the key is still checked and counted.
    r = client.post("/collect/server", json={"events": [{"type": "nope"}]}, headers=limited.auth)
    assert r.status_code == 202 and r.json["accepted"] == 0 and len(own_checks) == 1
    assert db.execute("select events from collect.server_key_usage where key_id = %s",
                      (limited.key_id,)).fetchone()[0] == 13
    assert db.execute("select last_used_at is not null from collect.server_keys where key_id = %s",
                      (limited.key_id,)).fetchone()[0]


def test_a_known_key_revoked_since_is_401_and_writes_nothing(app, client, site, db, monkeypatch):
    assert client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=site.auth).status_code == 202
    own_checks = _own_checks(app, monkeypatch)
    with db.transaction():
        revoke_server_key(db, site.site_id, site.key_id, actor="test")
    r = client.post("/collect/server", json={"events": [PAGEVIEW] * 3, "x": 1}, headers=site.auth)
    assert_error(r, 400, "invalid_request")  # the body's refusal first, as before
    r = client.post("/collect/server", json={"events": [PAGEVIEW] * 3}, headers=site.auth)
    assert_error(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert len(own_checks) == 1  # the group did not confirm the key: the request's own check answered
    assert len(events_of(db, site.site_id)) == 1


def test_a_site_that_stops_accepting_user_ids_refuses_them_at_once(client, make_site, db):
    site = make_site(accept_user_id=True)
    signed_in = {"type": "pageview", "user_id": "u-1"}
    assert client.post("/collect/server", json={"events": [signed_in]}, headers=site.auth).json["accepted"] == 1
    db.execute("update collect.sites set accept_user_id = false where site_id = %s", (site.site_id,))
    r = client.post("/collect/server", json={"events": [signed_in, PAGEVIEW]}, headers=site.auth)
    assert r.status_code == 202
    assert r.json == {"accepted": 1, "rejected": [{"index": 0, "code": "user_id_not_accepted",
                                                  "message": "this site does not accept signed-in visitors: omit user_id"}]}
    assert [row["user_id"] for row in events_of(db, site.site_id)] == ["u-1", None]


def test_concurrent_batches_of_one_known_key_keep_the_limit_per_request(app, client, make_site, db):
    limited = make_site(rate_limit_per_minute=150)
    assert client.post("/collect/server", json={"events": [PAGEVIEW]}, headers=limited.auth).status_code == 202
    statuses, start = [], threading.Barrier(2)

    def send():
        own = app.test_client()
        start.wait()
        statuses.append(own.post("/collect/server", json={"events": [PAGEVIEW] * 100}, headers=limited.auth))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Together over the limit (1 + 200 > 150): one request fits, the other is refused, whether
    # the writer took them in one group or not.
    assert sorted(r.status_code for r in statuses) == [202, 429]
    assert_error(next(r for r in statuses if r.status_code == 429), 429, "rate_limited")
    assert len(events_of(db, limited.site_id)) == 101
    assert db.execute("select events from collect.server_key_usage where key_id = %s",
                      (limited.key_id,)).fetchone()[0] == 101
