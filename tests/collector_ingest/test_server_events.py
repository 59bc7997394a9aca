"""POST /collect/server through HTTP against the real database: validation of every field and
limit, what lands in raw.events, visitor kinds, partial batches."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.collector_ingest.conftest import events_of

IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
             "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
DESKTOP_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/131.0.0.0 Safari/537.36")
COOKIE = "0123456789abcdefghijklmnop"


def post(client, site, *events, headers=None):
    return client.post("/collect/server", json={"events": list(events)}, headers={**site.auth, **(headers or {})})


def iso(moment: datetime) -> str:
    return moment.isoformat()


def test_pageview_is_stored_with_derived_fields(client, site, db):
    r = post(client, site, {
        "type": "pageview", "url": "https://shop.example/shoes?utm_source=news&utm_medium=email&gclid=SECRETCLICK",
        "referrer": "https://www.google.com/search?q=shoes", "title": "Shoes", "language": "fr-FR",
        "ip": "81.2.69.160", "user_agent": IPHONE_UA})
    assert r.status_code == 202
    assert r.json == {"accepted": 1, "rejected": []}
    (row,) = events_of(db, site.site_id)
    assert row["source"] == "server" and row["event_type"] == "pageview" and row["event_name"] == "pageview"
    assert row["visitor_kind"] == "hash" and len(row["visitor_id"]) == 64
    assert row["hostname"] == "shop.example" and row["path"] == "/shoes"
    assert row["utm_source"] == "news" and row["utm_medium"] == "email"
    assert row["click_id_kind"] == "gclid" and "SECRETCLICK" not in row["url"]
    assert row["referrer_host"] == "www.google.com" and row["title"] == "Shoes" and row["language"] == "fr-FR"
    assert row["country"] == "GB"
    assert (row["browser"], row["os"], row["device_class"]) == ("Mobile Safari", "iOS", "mobile")
    assert row["props"] == {} and row["items"] is None
    assert abs(row["occurred_at"] - datetime.now(timezone.utc)) < timedelta(seconds=30)


def test_valid_events_are_stored_when_others_are_refused(client, site, db):
    r = post(client, site, {"type": "pageview"}, {"type": "click"}, {"type": "event", "name": "signup"},
             {"type": "event"})
    assert r.status_code == 202
    assert r.json["accepted"] == 2
    assert [(x["index"], x["code"]) for x in r.json["rejected"]] == [(1, "invalid_value"), (3, "missing_field")]
    assert all(x["message"] for x in r.json["rejected"])
    assert sorted(row["event_name"] for row in events_of(db, site.site_id)) == ["pageview", "signup"]


def test_all_refused_is_still_202_and_stores_nothing(client, site, db):
    r = post(client, site, {"type": "event"})
    assert r.status_code == 202 and r.json["accepted"] == 0 and len(r.json["rejected"]) == 1
    assert events_of(db, site.site_id) == []


NOW = datetime.now(timezone.utc)

INVALID_EVENTS = [
    ({}, "missing_field"),
    ("pageview", "invalid_type"),
    ({"type": "view"}, "invalid_value"),
    ({"type": 1}, "invalid_value"),
    ({"type": "event"}, "missing_field"),
    ({"type": "event", "name": ""}, "invalid_value"),
    ({"type": "event", "name": "x" * 65}, "invalid_value"),
    ({"type": "event", "name": "sign up"}, "invalid_value"),
    ({"type": "event", "name": "pageview"}, "invalid_value"),
    ({"type": "event", "name": 5}, "invalid_type"),
    ({"type": "pageview", "name": "home"}, "invalid_value"),
    # Moments relative to the time the test runs (minutes may pass between collection and run).
    (lambda: {"type": "pageview", "at": iso(datetime.now(timezone.utc) - timedelta(hours=73))}, "too_old"),
    (lambda: {"type": "pageview", "at": iso(datetime.now(timezone.utc) + timedelta(minutes=10))}, "in_future"),
    ({"type": "pageview", "at": "2026-01-01T10:00:00"}, "invalid_value"),
    ({"type": "pageview", "at": "yesterday"}, "invalid_value"),
    ({"type": "pageview", "at": 1700000000}, "invalid_type"),
    ({"type": "pageview", "url": "https://a.example/" + "x" * 2048}, "too_long"),
    ({"type": "pageview", "referrer": "r" * 2049}, "too_long"),
    ({"type": "pageview", "title": "t" * 501}, "too_long"),
    ({"type": "pageview", "url": 5}, "invalid_type"),
    ({"type": "pageview", "url": ""}, "invalid_value"),
    ({"type": "pageview", "title": "a\x00b"}, "invalid_value"),
    ({"type": "pageview", "title": "\ud800"}, "invalid_value"),
    ({"type": "pageview", "props": []}, "invalid_type"),
    ({"type": "pageview", "props": {f"p{i}": i for i in range(31)}}, "too_many"),
    ({"type": "pageview", "props": {"k" * 65: 1}}, "invalid_value"),
    ({"type": "pageview", "props": {"": 1}}, "invalid_value"),
    ({"type": "pageview", "props": {"v": "x" * 501}}, "too_long"),
    ({"type": "pageview", "props": {"nested": {"a": 1}}}, "invalid_type"),
    ({"type": "pageview", "props": {"list": [1]}}, "invalid_type"),
    ({"type": "pageview", "props": {"missing": None}}, "null_value"),
    ({"type": "event", "name": "purchase", "props": {"transaction_id": 42}}, "invalid_type"),
    ({"type": "event", "name": "purchase", "props": {"value": "12.5"}}, "invalid_type"),
    ({"type": "event", "name": "purchase", "props": {"value": 1e13}}, "invalid_value"),
    ({"type": "event", "name": "purchase", "props": {"currency": "euro"}}, "invalid_value"),
    ({"type": "event", "name": "purchase", "items": {"id": "a"}}, "invalid_type"),
    ({"type": "event", "name": "purchase", "items": [{"id": str(i)} for i in range(51)]}, "too_many"),
    ({"type": "event", "name": "purchase", "items": ["sku-1"]}, "invalid_type"),
    ({"type": "event", "name": "purchase", "items": [{"price": 3}]}, "missing_field"),
    ({"type": "event", "name": "purchase", "items": [{"id": "a", "colour": "red"}]}, "unknown_field"),
    ({"type": "event", "name": "purchase", "items": [{"id": "a", "price": "3"}]}, "invalid_type"),
    ({"type": "event", "name": "purchase", "items": [{"id": "a", "quantity": True}]}, "invalid_type"),
    ({"type": "event", "name": "purchase", "items": [{"id": "a", "name": None}]}, "null_value"),
    ({"type": "event", "name": "purchase", "items": [{"id": "x" * 201}]}, "too_long"),
    ({"type": "pageview", "visitor": "short"}, "invalid_value"),
    ({"type": "pageview", "visitor": "has spaces in it and is long"}, "invalid_value"),
    ({"type": "pageview", "ip": "300.1.1.1"}, "invalid_value"),
    ({"type": "pageview", "ip": 17}, "invalid_value"),
    ({"type": "pageview", "user_agent": "u" * 1001}, "too_long"),
    ({"type": "pageview", "language": "french!"}, "invalid_value"),
    ({"type": "pageview", "language": "fr-FR", "url": None}, "null_value"),
    ({"type": "pageview", "title": None}, "null_value"),
    ({"type": "pageview", "colour": "red"}, "unknown_field"),
    ({"type": "pageview", "ts": 1}, "unknown_field"),
]


@pytest.mark.parametrize("event, code", INVALID_EVENTS, ids=[f"{i}-{c}" for i, (_, c) in enumerate(INVALID_EVENTS)])
def test_invalid_event_is_refused_with_its_code(client, site, db, event, code):
    r = post(client, site, {"type": "pageview"}, event() if callable(event) else event)
    assert r.status_code == 202
    assert r.json["accepted"] == 1
    (refused,) = r.json["rejected"]
    assert refused["index"] == 1 and refused["code"] == code and refused["message"]
    assert len(events_of(db, site.site_id)) == 1


def test_refusal_messages_never_echo_the_ip_or_user_agent(client, site):
    r = post(client, site, {"type": "pageview", "ip": "203.0.113.250x", "user_agent": "SecretAgent/" + "z" * 1000})
    message = r.json["rejected"][0]["message"]
    assert "203.0.113" not in message and "SecretAgent" not in message


def test_unknown_field_is_named(client, site):
    r = post(client, site, {"type": "pageview", "colour": "red"})
    assert "colour" in r.json["rejected"][0]["message"]


def test_event_time_window(client, site, db):
    moments = [NOW - timedelta(hours=71), NOW + timedelta(minutes=2)]
    r = post(client, site, *({"type": "event", "name": "late", "at": iso(m)} for m in moments),
             {"type": "pageview", "at": (NOW - timedelta(hours=1)).astimezone(timezone(timedelta(hours=5))).isoformat()},
             {"type": "pageview", "at": (NOW - timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%SZ")})
    assert r.json == {"accepted": 4, "rejected": []}
    stored = sorted(row["occurred_at"] for row in events_of(db, site.site_id))
    expected = sorted([*moments, NOW - timedelta(hours=1), (NOW - timedelta(hours=2)).replace(microsecond=0)])
    assert all(abs(a - b) < timedelta(milliseconds=1) for a, b in zip(stored, expected))


def test_commerce_props_and_items(client, site, db):
    items = [{"id": "sku-1", "name": "Shoe", "price": 49.5, "quantity": 2}, {"name": "Sock"}]
    r = post(client, site, {"type": "event", "name": "purchase", "items": items,
                            "props": {"transaction_id": "T-1", "value": 99, "currency": "EUR", "coupon": "X",
                                      "first": True, "ratio": 0.5}})
    assert r.json == {"accepted": 1, "rejected": []}
    (row,) = events_of(db, site.site_id)
    assert row["transaction_id"] == "T-1" and row["revenue"] == 99 and row["currency"] == "EUR"
    assert row["items"] == items
    assert row["props"] == {"transaction_id": "T-1", "value": 99, "currency": "EUR", "coupon": "X",
                            "first": True, "ratio": 0.5}


def test_property_values_keep_their_text_and_size(client, site, db):
    """orjson writes the properties; an integer past 64 bits, which it refuses, still goes through."""
    props = {"big": 10**20, "small": -(2**63), "tiny": 1e-7, "text": "é\u2028\x1f\"\\", "flag": False}
    r = post(client, site, {"type": "event", "name": "sized", "props": props, "items": [{"id": "ü", "quantity": 3}]})
    assert r.json == {"accepted": 1, "rejected": []}
    (row,) = events_of(db, site.site_id)
    assert row["props"] == props and row["items"] == [{"id": "ü", "quantity": 3}]


def test_limits_at_their_maximum_are_accepted(client, site, db):
    event = {"type": "event", "name": "n" * 64, "url": "https://a.example/" + "u" * 2030, "title": "t" * 500,
             "props": {f"{i:02d}" + "k" * 62: "v" * 500 for i in range(30)},
             "items": [{"id": "i" * 200, "name": "n" * 200, "price": 1, "quantity": 1}] * 50}
    r = post(client, site, event)
    assert r.json == {"accepted": 1, "rejected": []}


def test_visitor_kinds(client, make_site, db):
    site = make_site(accept_user_id=True)
    r = post(client, site,
             {"type": "pageview"},
             {"type": "pageview", "visitor": COOKIE, "ip": "81.2.69.160", "user_agent": DESKTOP_UA},
             {"type": "pageview", "ip": "81.2.69.160", "user_agent": DESKTOP_UA},
             {"type": "pageview", "user_id": "customer-42", "visitor": COOKIE},
             {"type": "pageview", "user_agent": DESKTOP_UA})
    assert r.json["accepted"] == 5
    rows = {row["path"] for row in events_of(db, site.site_id)}
    kinds = [(row["visitor_kind"], row["visitor_id"], row["user_id"]) for row in events_of(db, site.site_id)]
    assert rows == {None}
    assert sorted(k for k, _, _ in kinds) == ["cookie", "hash", "none", "none", "user"]
    assert ("cookie", COOKIE, None) in kinds and ("user", COOKIE, "customer-42") in kinds
    assert ("none", None, None) in kinds


def test_user_id_is_refused_where_the_site_does_not_accept_it(client, site, db):
    r = post(client, site, {"type": "pageview", "user_id": "customer-42"}, {"type": "pageview"})
    assert r.json["accepted"] == 1
    assert r.json["rejected"] == [{"index": 0, "code": "user_id_not_accepted", "message": r.json["rejected"][0]["message"]}]
    assert [row["user_id"] for row in events_of(db, site.site_id)] == [None]


def test_daily_hash_depends_on_site_ip_and_user_agent(client, make_site, db):
    a, b = make_site(name="A"), make_site(name="B")
    base = {"type": "pageview", "ip": "81.2.69.160", "user_agent": DESKTOP_UA}
    post(client, a, base, base, {**base, "ip": "81.2.69.161"}, {**base, "user_agent": IPHONE_UA})
    post(client, b, base)
    hashes_a = [row["visitor_id"] for row in events_of(db, a.site_id)]
    (hash_b,) = [row["visitor_id"] for row in events_of(db, b.site_id)]
    assert hashes_a.count(hashes_a[0]) == 2 and len(set(hashes_a)) == 3
    assert hash_b not in hashes_a
    # One salt, created on demand for today (and tomorrow ahead of midnight).
    days = [d for (d,) in db.execute("select salt_day from collect.daily_salts order by 1")]
    today = datetime.now(timezone.utc).date()
    assert days == [today, today + timedelta(days=1)]
