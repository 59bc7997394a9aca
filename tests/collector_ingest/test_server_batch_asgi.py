"""`POST /collect/server` as `analytics up` serves it (gunicorn, uvicorn workers, answered in the
event loop by collect_api/server_asgi.py), over real HTTP: every answer is the Flask route's, byte
for byte, and what it stores is the same."""
from __future__ import annotations

import json
import time

import requests

from tests.collector_ingest.conftest import events_of
from tests.collector_ingest.test_access_log import collector  # noqa: F401 (fixture)

PAGEVIEW = {"type": "pageview", "url": "https://shop.example.com/pricing?utm_source=news",
            "ip": "203.0.113.9", "user_agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"}
PURCHASE = {"type": "event", "name": "purchase", "props": {"value": 49.5, "currency": "EUR", "transaction_id": "T1"}}


def _served(base: str, body: bytes, headers: dict):
    response = requests.post(base + "/collect/server", data=body, timeout=30,
                             headers={"Content-Type": "application/json", **headers})
    return response.status_code, response.content, response.headers


def _direct(client, body: bytes, headers: dict):
    response = client.post("/collect/server", data=body, headers={"Content-Type": "application/json", **headers})
    return response.status_code, response.get_data(), response.headers


def _body(events) -> bytes:
    return json.dumps({"events": events}).encode()


def test_every_answer_is_the_flask_routes(collector, client, make_site, db):  # noqa: F811
    base, _, _ = collector
    served_site, direct_site = make_site(name="Served"), make_site(name="Direct")
    cases = {
        "accepted, one refused": (_body([PAGEVIEW, PURCHASE, {"type": "pageview", "colour": "red"}]), {}),
        "not JSON": (b"{nope", {}),
        "not UTF-8": (b"\xff\xfe", {}),
        "no events list": (b'{"events": {}}', {}),
        "unknown top-level field": (b'{"events": [], "\\ud800": 1}', {}),
        "too many events": (_body([{"type": "pageview"}] * 101), {}),
        "a refused field named with a lone surrogate": (b'{"events": [{"type": "pageview", "\\udc00": 1}]}', {}),
        "bad idempotency key": (_body([PAGEVIEW]), {"Idempotency-Key": "has space"}),
    }
    for name, (body, extra) in cases.items():
        served = _served(base, body, {**served_site.auth, **extra})
        direct = _direct(client, body, {**direct_site.auth, **extra})
        assert served[:2] == direct[:2], name
        assert served[2]["Content-Type"] == "application/json", name
        assert served[2]["Content-Length"] == str(len(served[1])) and "Transfer-Encoding" not in served[2], name
    served_rows = events_of(db, served_site.site_id)
    direct_rows = events_of(db, direct_site.site_id)
    assert len(served_rows) == len(direct_rows) == 2
    volatile = {"event_id", "site_id", "received_at", "occurred_at", "visitor_id"}
    assert [{k: v for k, v in row.items() if k not in volatile} for row in served_rows] == \
        [{k: v for k, v in row.items() if k not in volatile} for row in direct_rows]
    assert not any("203.0.113.9" in str(value) for row in served_rows for value in row.values())


def test_keys_and_their_refusals_answer_as_the_flask_route(collector, client, make_site):  # noqa: F811
    base, _, _ = collector
    site = make_site()
    for authorization in (None, "Basic abc", "Bearer sk_unknownkeyunknownkeyunknownkeyunknownkey12"):
        headers = {} if authorization is None else {"Authorization": authorization}
        served, direct = _served(base, _body([PAGEVIEW]), headers), _direct(client, _body([PAGEVIEW]), headers)
        assert served[:2] == direct[:2], authorization
        assert served[0] == 401 and served[2]["WWW-Authenticate"] == direct[2]["WWW-Authenticate"], authorization
    # A body past the limit is refused by its declared length, before anything is read.
    too_large = b" " * (8 * 1024 * 1024 + 1)
    served, direct = _served(base, too_large, site.auth), _direct(client, too_large, site.auth)
    assert served[:2] == direct[:2] and served[0] == 413


def test_rate_limit_and_idempotency_answer_as_the_flask_route(collector, client, make_site, db):  # noqa: F811
    base, _, _ = collector
    served_site, direct_site = make_site(rate_limit_per_minute=150), make_site(rate_limit_per_minute=150)
    hundred = _body([{"type": "pageview"}] * 100)
    keyed = {"Idempotency-Key": f"order-{time.time_ns()}"}
    answers = {}
    for site, send in ((served_site, lambda b, h: _served(base, b, h)),
                       (direct_site, lambda b, h: _direct(client, b, h))):
        answers[site.site_id] = [
            send(hundred, {**site.auth, **keyed}),  # stored
            send(hundred, {**site.auth, **keyed}),  # replayed
            send(_body([{"type": "pageview"}]), {**site.auth, **keyed}),  # the key with another body
            send(hundred, site.auth),  # past 150 events this minute
        ]
    for served, direct in zip(answers[served_site.site_id], answers[direct_site.site_id]):
        assert served[:2] == direct[:2]
    first, replayed, reused, limited = answers[served_site.site_id]
    assert first[0] == replayed[0] == 202 and replayed[2]["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first[2]
    assert reused[0] == 422 and limited[0] == 429 and int(limited[2]["Retry-After"]) >= 1
    assert len(events_of(db, served_site.site_id)) == len(events_of(db, direct_site.site_id)) == 100
