"""The browser endpoints through HTTP: GET /a.js, GET /collect?site=, POST /collect (origin check,
bot filter, refusal counts, CORS, client address, renamed paths). End-to-end browser tests are in
tests/tracker."""
from __future__ import annotations

import gzip
import json
from dataclasses import replace

import pytest

from collector_app.app import create_app
from collector_app.collect_api.context import ingestion
from collector_app.database import close_pool
from collector_app.tracker import tracker_asset
from pipelines.ingest.browser import UNKNOWN_SITE_ID, AddressRateLimit, client_ip
from pipelines.ingest.writer import stop_writer
from tests.collector_ingest.conftest import events_of
from tests.collector_ingest.test_privacy import pg_dump

DESKTOP_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/131.0.0.0 Safari/537.36")
ORIGIN = "https://shop.example.com"
PAGE_ID = "0123456789abcdefghijklmnop"
COOKIE = "abcdefghijklmnopqrstuv0123"


def pageview(**extra) -> dict:
    return {"type": "pageview", "url": f"{ORIGIN}/p?utm_source=news", "title": "P", "language": "fr-FR",
            "screen": "desktop", "page_id": PAGE_ID, "ts": 1795300000000, **extra}


def beacon(client, payload, origin=ORIGIN, ua=DESKTOP_UA, ip="81.2.69.160", path="/collect", headers=None):
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    sent = {"Content-Type": "text/plain;charset=UTF-8", **(headers or {})}
    if origin:
        sent["Origin"] = origin
    if ua is not None:
        sent["User-Agent"] = ua
    return client.post(path, data=body, headers=sent, environ_base={"REMOTE_ADDR": ip})


def rejections(db) -> dict[tuple[str, str], int]:
    return {(str(site), reason): int(n) for site, reason, n in
            db.execute("select site_id, reason, sum(count) from collect.rejections group by 1, 2")}


@pytest.fixture
def shop(make_site):
    return make_site(name="Shop", domains=["shop.example.com", "*.blog.example.com"])


def test_script_is_served_with_strong_etag_cache_control_and_gzip(client):
    asset = tracker_asset("/collect")
    plain = client.get("/a.js")
    assert plain.status_code == 200 and plain.data == asset.body
    assert plain.headers["ETag"] == asset.etag and not plain.headers["ETag"].startswith("W/")
    assert plain.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert "max-age" in plain.headers["Cache-Control"] and "Accept-Encoding" in plain.headers["Vary"]
    zipped = client.get("/a.js", headers={"Accept-Encoding": "gzip, br"})
    assert zipped.headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped.data) == asset.body
    assert zipped.headers["ETag"] == asset.gzip_etag != asset.etag
    again = client.get("/a.js", headers={"Accept-Encoding": "gzip", "If-None-Match": asset.gzip_etag})
    assert again.status_code == 304 and again.data == b""
    assert client.get("/a.js", headers={"If-None-Match": '"other"'}).status_code == 200


def test_config_answers_cors_only_to_allowed_origins(client, shop, db):
    db.execute("insert into collect.zones (site_id, name, selector, label) values (%s, 'hero', '#hero', 'Hero')",
               (shop.site_id,))
    r = client.get(f"/collect?site={shop.site_id}", headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert r.json == {"mode": "cookieless", "zones": [{"name": "hero", "selector": "#hero"}],
                      "downloads": r.json["downloads"], "search_params": ["q", "s", "search", "query"],
                      "consent_granted_default": False}
    assert "pdf" in r.json["downloads"]
    assert r.headers["Access-Control-Allow-Origin"] == ORIGIN and "Origin" in r.headers["Vary"]
    other = client.get(f"/collect?site={shop.site_id}", headers={"Origin": "https://evil.example"})
    assert other.status_code == 200 and "Access-Control-Allow-Origin" not in other.headers
    for site, status in (("not-a-uuid", 400), ("", 400), (UNKNOWN_SITE_ID, 404)):
        r = client.get(f"/collect?site={site}", headers={"Origin": ORIGIN})
        assert r.status_code == status
        assert r.json["error"]["code"] == ("unknown_site" if status == 404 else "invalid_site")
        assert "Access-Control-Allow-Origin" not in r.headers


def test_beacon_is_stored_with_cors_for_its_origin(client, shop, db):
    r = beacon(client, {"site": shop.site_id, "events": [
        pageview(referrer="https://www.google.com/"),
        {"type": "event", "name": "purchase", "url": f"{ORIGIN}/checkout", "page_id": PAGE_ID, "screen": "mobile",
         "ts": 1, "props": {"transaction_id": "T-1", "value": 59.8, "currency": "EUR"},
         "items": [{"id": "SKU-1", "name": "Mug", "price": 19.9, "quantity": 2}]}]})
    assert r.status_code == 204
    assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
    rows = sorted(events_of(db, shop.site_id), key=lambda row: row["event_type"], reverse=True)
    assert [row["event_name"] for row in rows] == ["pageview", "purchase"]
    view, purchase = rows
    assert view["source"] == "browser" and view["visitor_kind"] == "hash" and view["page_id"] == PAGE_ID
    assert view["screen_class"] == "desktop" and view["utm_source"] == "news" and view["country"] == "GB"
    assert view["browser"] == "Chrome" and view["device_class"] == "desktop"
    assert view["referrer_host"] == "www.google.com"
    assert purchase["revenue"] is not None and purchase["items"][0]["id"] == "SKU-1"
    assert purchase["visitor_id"] == view["visitor_id"]
    assert rejections(db) == {}


@pytest.mark.parametrize("mode, kind", [("cookieless", "hash"), ("cookie", "cookie"), ("consent", "cookie")])
def test_cookie_value_counts_only_where_the_mode_allows_it(client, make_site, db, mode, kind):
    site = make_site(mode=mode, domains=["shop.example.com"])
    assert beacon(client, {"site": site.site_id, "visitor": COOKIE, "events": [pageview()]}).status_code == 204
    (row,) = events_of(db, site.site_id)
    assert row["visitor_kind"] == kind and (row["visitor_id"] == COOKIE) == (kind == "cookie")


@pytest.mark.parametrize("origin", [None, "null", "https://evil.example", "https://shop.example.com.evil.example",
                                    "https://blog.example.com", "https://example.com", "file://"])
def test_origin_not_allowed_is_refused_and_counted(client, shop, db, origin):
    r = beacon(client, {"site": shop.site_id, "events": [pageview(), pageview()]}, origin=origin)
    assert r.status_code == 403 and r.json["error"]["code"] == "origin_not_allowed"
    assert "Access-Control-Allow-Origin" not in r.headers
    assert events_of(db, shop.site_id) == []
    assert rejections(db) == {(shop.site_id, "origin_not_allowed"): 2}


@pytest.mark.parametrize("origin", ["https://shop.example.com:8443", "http://shop.example.com",
                                    "https://a.blog.example.com", "https://x.y.blog.example.com"])
def test_allowed_origins_exact_and_wildcard(client, shop, db, origin):
    r = beacon(client, {"site": shop.site_id, "events": [pageview()]}, origin=origin)
    assert r.status_code == 204 and r.headers["Access-Control-Allow-Origin"] == origin


@pytest.mark.parametrize("ua", ["", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
                                "curl/8.5.0"])
def test_bots_are_filtered_and_counted(client, shop, db, ua):
    r = beacon(client, {"site": shop.site_id, "events": [pageview()] * 3}, ua=ua)
    assert r.status_code == 204
    assert events_of(db, shop.site_id) == []
    assert rejections(db) == {(shop.site_id, "bot"): 3}


def test_invalid_payloads_are_refused_and_counted(client, shop, db):
    assert beacon(client, b"not json").status_code == 400
    assert beacon(client, b"[1, 2]").status_code == 400
    assert beacon(client, {"site": shop.site_id, "events": [pageview()] * 51}).status_code == 400
    assert beacon(client, {"site": shop.site_id, "events": []}).status_code == 400
    assert beacon(client, {"site": shop.site_id, "events": [pageview()], "extra": 1}).status_code == 400
    assert beacon(client, {"site": shop.site_id, "visitor": "bad cookie", "events": [pageview()]}).status_code == 400
    # One bad event among good ones: the good ones are stored, the bad one counted.
    r = beacon(client, {"site": shop.site_id, "events": [pageview(), pageview(screen="huge"), pageview(ip="1.2.3.4"),
                                                         pageview(title=None)]})
    assert r.status_code == 204
    assert len(events_of(db, shop.site_id)) == 1
    assert rejections(db) == {(UNKNOWN_SITE_ID, "invalid_payload"): 2, (shop.site_id, "invalid_payload"): 51 + 1 + 1 + 1 + 3}


def test_unknown_site_is_refused_and_counted(client, db):
    for site in ("nope", UNKNOWN_SITE_ID, 42):
        r = beacon(client, {"site": site, "events": [pageview(), pageview()]})
        assert r.status_code == 404 and r.json["error"]["code"] == "unknown_site"
    assert rejections(db) == {(UNKNOWN_SITE_ID, "unknown_site"): 6}


def test_rate_limit_per_address(app, client, shop, db):
    ingestion(app).address_limit = AddressRateLimit(per_minute=5)
    assert beacon(client, {"site": shop.site_id, "events": [pageview()] * 4}).status_code == 204
    r = beacon(client, {"site": shop.site_id, "events": [pageview()] * 2})
    assert r.status_code == 429 and r.json["error"]["code"] == "rate_limited" and r.headers["Retry-After"] == "60"
    assert beacon(client, {"site": shop.site_id, "events": [pageview()] * 2}, ip="81.2.69.161").status_code == 204
    assert rejections(db) == {(shop.site_id, "rate_limited"): 2}
    assert len(events_of(db, shop.site_id)) == 6


def test_forwarded_address_is_believed_only_from_trusted_proxies(client, shop, db):
    beacon(client, {"site": shop.site_id, "events": [pageview()]}, ip="127.0.0.1",
           headers={"X-Forwarded-For": "203.0.113.9, 81.2.69.160"})
    beacon(client, {"site": shop.site_id, "events": [pageview()]}, ip="81.2.69.160")
    beacon(client, {"site": shop.site_id, "events": [pageview()]}, ip="198.51.100.7",
           headers={"X-Forwarded-For": "81.2.69.160"})
    first, direct, untrusted = events_of(db, shop.site_id)
    assert first["visitor_id"] == direct["visitor_id"] and first["country"] == "GB"
    assert untrusted["visitor_id"] != direct["visitor_id"] and untrusted["country"] is None


@pytest.mark.parametrize("remote, forwarded, expected", [
    ("81.2.69.160", None, "81.2.69.160"),
    ("81.2.69.160", "1.1.1.1", "81.2.69.160"),
    ("127.0.0.1", "1.1.1.1", "1.1.1.1"),
    ("127.0.0.1", "9.9.9.9, 1.1.1.1, 127.0.0.1", "1.1.1.1"),
    ("::1", "2001:db8::0001", "2001:db8::1"),
    ("127.0.0.1", "garbage, 1.1.1.1", "1.1.1.1"),
    ("127.0.0.1", "1.1.1.1, garbage", "127.0.0.1"),
    ("127.0.0.1", "127.0.0.1", "127.0.0.1"),
    (None, None, None),
])
def test_client_ip(remote, forwarded, expected):
    assert client_ip(remote, forwarded, ("127.0.0.1", "::1")) == expected


def test_paths_are_renamable(settings, db, make_site):
    site = make_site(domains=["shop.example.com"])
    renamed = replace(settings, script_path="/s.js", collect_path="/ingest/v1")
    app = create_app(renamed)
    try:
        client = app.test_client()
        script = client.get("/s.js")
        assert script.status_code == 200 and script.data == tracker_asset("/ingest/v1").body
        assert b'"/ingest/v1"' in script.data
        assert client.get("/a.js").status_code == 404
        assert client.get(f"/ingest/v1?site={site.site_id}", headers={"Origin": ORIGIN}).status_code == 200
        assert beacon(client, {"site": site.site_id, "events": [pageview()]}, path="/ingest/v1").status_code == 204
        assert len(events_of(db, site.site_id)) == 1
    finally:
        stop_writer(renamed)
        close_pool(app)


def test_browser_ip_and_user_agent_reach_no_table(client, shop, db, database_url):
    ua = DESKTOP_UA + " Zq9BrowserProbe/1.0"
    for ip in ("198.51.100.201", "2001:db8:feed::42"):
        assert beacon(client, {"site": shop.site_id, "visitor": COOKIE, "events": [pageview()]}, ip=ip, ua=ua).status_code == 204
        assert beacon(client, {"site": shop.site_id, "events": [pageview()]}, ip=ip, ua=ua,
                      origin="https://evil.example").status_code == 403
    dump = pg_dump(database_url)
    assert shop.site_id in dump
    for needle in ("198.51.100.201", "2001:db8:feed", "Zq9BrowserProbe"):
        assert needle not in dump


def test_browser_text_past_its_limit_is_cut_not_refused(client, shop, db):
    """A page with a long title or URL, a link with a long address, a long product name: the
    visitor's browser cannot shorten them and nobody reads a beacon's answer, so the collector
    keeps the event and cuts the text to its limit (server events are refused instead)."""
    long_url = f"{ORIGIN}/p?ref=" + "a" * 2100
    r = beacon(client, {"site": shop.site_id, "events": [
        pageview(url=long_url, referrer=long_url, title="T" * 600),
        {"type": "event", "name": "outbound_click", "url": long_url, "title": "T" * 600, "page_id": PAGE_ID,
         "props": {"url": "https://partner.example/" + "b" * 600, "domain": "partner.example"}},
        {"type": "event", "name": "purchase", "url": f"{ORIGIN}/checkout", "page_id": PAGE_ID,
         "props": {"transaction_id": "T-1", "value": 5, "currency": "EUR"},
         "items": [{"id": "I" * 250, "name": "N" * 250, "price": 5, "quantity": 1}]}]})
    assert r.status_code == 204
    rows = {row["event_name"]: row for row in events_of(db, shop.site_id)}
    assert set(rows) == {"pageview", "outbound_click", "purchase"}
    view, outbound, purchase = rows["pageview"], rows["outbound_click"], rows["purchase"]
    assert view["url"] == long_url[:2048] and view["referrer"] == long_url[:2048] and view["title"] == "T" * 500
    assert outbound["props"] == {"url": ("https://partner.example/" + "b" * 600)[:500], "domain": "partner.example"}
    assert purchase["items"] == [{"id": "I" * 200, "name": "N" * 200, "price": 5, "quantity": 1}]
    assert rejections(db) == {}


def test_a_body_past_the_limit_is_refused_with_413_and_counted(client, shop, db):
    from collector_app.collect_api.beacon import BROWSER_BODY_LIMIT

    padding = "x" * BROWSER_BODY_LIMIT
    r = beacon(client, {"site": shop.site_id, "events": [pageview(title=padding)]})
    assert r.status_code == 413 and r.json["error"]["code"] == "payload_too_large"
    assert set(r.json["error"]) == {"code", "message", "details"}
    assert events_of(db, shop.site_id) == []
    assert rejections(db) == {(UNKNOWN_SITE_ID, "invalid_payload"): 1}


def test_events_of_one_beacon_keep_their_order_on_the_server_clock(client, shop, db):
    """The script stamps each event (`ts`, the visitor's clock): the differences place the events
    of one beacon before its time of receipt, in order; a stamp far older is capped at 30 minutes,
    an event without one is placed at the time of receipt."""
    base = 1795300000000
    r = beacon(client, {"site": shop.site_id, "events": [
        pageview(ts=base),
        {"type": "event", "name": "click", "url": f"{ORIGIN}/p", "page_id": PAGE_ID, "ts": base + 2500},
        {"type": "event", "name": "scroll", "url": f"{ORIGIN}/p", "page_id": PAGE_ID, "ts": base + 4000},
        {"type": "event", "name": "stale", "url": f"{ORIGIN}/p", "page_id": PAGE_ID, "ts": base - 86_400_000},
        {"type": "event", "name": "unstamped", "url": f"{ORIGIN}/p", "page_id": PAGE_ID}]})
    assert r.status_code == 204
    rows = {row["event_name"]: row for row in events_of(db, shop.site_id)}
    received = rows["pageview"]["received_at"]
    assert all(row["received_at"] == received for row in rows.values())
    offsets = {name: (received - row["occurred_at"]).total_seconds() for name, row in rows.items()}
    assert offsets == {"pageview": 4.0, "click": 1.5, "scroll": 0.0, "stale": 1800.0, "unstamped": 0.0}


def test_events_neither_committed_nor_spooled_answer_503_and_a_failure_500(app, client, shop, monkeypatch):
    """The two answers that acknowledge nothing: the writer could neither commit nor spool
    (503, retry later, CORS kept for the page's origin), and an unforeseen failure (500); both
    in the structured shape."""
    from pipelines.ingest.writer import WriterUnavailable

    service = ingestion(app)

    def unavailable(*args, **kwargs):
        raise WriterUnavailable("neither committed nor spooled")

    monkeypatch.setattr(service, "store", unavailable)
    r = beacon(client, {"site": shop.site_id, "events": [pageview()]})
    assert r.status_code == 503 and r.json["error"]["code"] == "database_unavailable"
    assert r.headers["Retry-After"] == "5" and r.headers["Access-Control-Allow-Origin"] == ORIGIN

    def broken(*args, **kwargs):
        raise RuntimeError("unforeseen")

    monkeypatch.setattr(service, "browser_rows", broken)
    r = beacon(client, {"site": shop.site_id, "events": [pageview()]})
    assert r.status_code == 500 and r.json == {"error": {
        "code": "internal_error", "message": "Something went wrong on our side; the request was not applied.",
        "details": {}}}
