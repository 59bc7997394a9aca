"""How events travel: sendBeacon with a text/plain body (no preflight), fetch keepalive as the
fallback, renamed paths, request size. No OPTIONS request may reach the collector (checked after
every test by conftest.no_preflight_and_plain_text)."""
from __future__ import annotations

import pytest

from tests.tracker.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("mode", MODES)
def test_send_beacon_with_text_plain(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.click("#buy")
    v.wait("click")
    posts = [r for r in v.collector.requests_for(v.site) if r.method == "POST"]
    assert len(posts) == 2
    for post in posts:
        assert post.path == "/collect"
        assert post.headers["content-type"].lower() == "text/plain;charset=utf-8"
        assert post.headers["sec-fetch-mode"] == "no-cors"  # a beacon of a safelisted type
        assert post.headers["origin"] == v.pages.base_url
    assert not [r for r in v.collector.requests if r.method == "OPTIONS"]
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_fetch_keepalive_when_the_beacon_is_refused(visit, mode):
    v = visit(mode)
    # A browser refuses a beacon past its quota: sendBeacon returns false.
    v.page.add_init_script("Navigator.prototype.sendBeacon = function () { window.__refused = (window.__refused || 0) + 1; return false; }")
    v.open("basic.html")
    v.page.click("#buy")
    v.page.goto(v.url("page2.html"))  # keepalive carries the request through the unload
    v.wait("pageview", count=2)
    v.wait("click")
    posts = [r for r in v.collector.requests_for(v.site) if r.method == "POST"]
    assert len(posts) >= 3
    for post in posts:
        assert post.headers["content-type"].lower() == "text/plain;charset=utf-8"
        assert post.headers["sec-fetch-mode"] == "cors"
        assert "cookie" not in post.headers  # credentials omitted
    v.check_identity()


def test_renamed_script_and_endpoint_paths(visit):
    v = visit("cookieless")
    v.page.goto(v.url("renamed.html"))
    v.wait("pageview")
    requests = v.collector.requests_for(v.site)
    assert [(r.method, r.path) for r in requests] == [("GET", "/ingest/v1"), ("POST", "/ingest/v1")]


def test_at_most_fifty_events_per_request(visit):
    v = visit("cookieless")
    v.open("page2.html")
    v.page.evaluate("for (let i = 0; i < 120; i++) audience.track('bulk', {i})")
    bulk = v.wait("bulk", count=120)
    # Three requests leave at once and may arrive in any order.
    assert sorted(e["props"]["i"] for e in bulk) == list(range(120))
    sizes = [len(p["events"]) for p in v.collector.payloads(v.site)]
    assert sorted(sizes) == [1, 20, 50, 50]
