"""Page views in a real browser: fields, referrer, screen class, UTM and click ids, SPA navigations,
config fetched once before anything is sent. Every test runs in each tracking mode."""
from __future__ import annotations

import re
import time

import pytest

from tests.tracker.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EVENT_KEYS = {"type", "name", "url", "referrer", "title", "language", "screen", "page_id", "ts", "props", "items"}


def assert_no_nulls(value):
    assert value is not None
    if isinstance(value, dict):
        for item in value.values():
            assert_no_nulls(item)
    elif isinstance(value, list):
        for item in value:
            assert_no_nulls(item)


@pytest.mark.parametrize("mode", MODES)
def test_pageview_fields(visit, mode):
    v = visit(mode)
    query = "?utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale&gclid=Cj0KCQ&fbclid=IwAR2&msclkid=m5"
    before = time.time() * 1000
    v.page.goto(v.url("basic.html") + query)
    (event,) = v.wait("pageview")
    payload = v.collector.payloads(v.site)[0]
    assert payload["site"] == v.site and 1 <= len(payload["events"]) <= 50
    assert_no_nulls(payload)
    event.pop("_visitor")
    assert set(event) <= EVENT_KEYS
    # UTM parameters and click ids travel untouched in the URL; the collector parses them.
    assert event["url"] == v.url("basic.html") + query
    assert event["type"] == "pageview" and "name" not in event
    assert "referrer" not in event  # typed-in address: empty document.referrer is omitted
    assert event["title"] == "Basic page"
    assert event["language"] == "fr-FR"
    assert event["screen"] == "desktop"
    assert re.fullmatch(r"[0-9a-v]{26}", event["page_id"])
    assert before <= event["ts"] <= time.time() * 1000
    assert "props" not in event and "items" not in event
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_referrer_is_the_previous_page(visit, mode):
    v = visit(mode)
    first = v.open("basic.html")
    v.page.click("#next")
    second = v.wait("pageview", where=lambda e: e["url"].endswith("/page2.html"))[0]
    assert second["referrer"] == first["url"]
    assert second["title"] == "Second page"
    assert second["page_id"] != first["page_id"]
    v.check_identity()


@pytest.mark.parametrize("width, expected", [(375, "mobile"), (767, "mobile"), (768, "tablet"),
                                             (1023, "tablet"), (1024, "desktop")])
def test_screen_class_by_screen_width(collector, pages, make_context, width, expected):
    page = make_context(screen_width=width).new_page()
    site = collector.add_site("cookieless")
    page.goto(pages.url(site, "page2.html"))
    (event,) = collector.wait_events(site, "pageview")
    assert event["screen"] == expected


@pytest.mark.parametrize("mode", MODES)
def test_config_is_fetched_once_before_anything_is_sent(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.click("#buy")
    v.wait("click")
    requests = v.collector.requests_for(v.site)
    assert [r.method for r in requests][0] == "GET"
    assert [r.method for r in requests].count("GET") == 1
    config = requests[0]
    assert config.path == "/collect" and config.query == {"site": [v.site]}
    assert "cookie" not in config.headers  # credentials omitted
    assert config.headers["origin"] == v.pages.base_url  # a simple CORS GET
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_spa_navigations(visit, mode):
    v = visit(mode)
    home = v.open("spa.html")
    page = v.page

    page.click("#to-products")  # pushState to a new path and query
    products = v.wait("pageview", where=lambda e: e["url"].endswith("/products?sort=price"))[0]
    assert products["referrer"] == home["url"]
    assert products["page_id"] != home["page_id"]

    # The page view that ended reports its scroll depth, under its own URL and page id.
    (depth,) = v.wait("scroll_depth")
    assert depth["page_id"] == home["page_id"] and depth["url"] == home["url"]

    page.evaluate("history.pushState({}, '', '#reviews')")  # hash only: same page view
    page.evaluate("location.hash = 'top'")  # a fragment navigation fires popstate: same page view
    page.evaluate("history.replaceState({}, '', location.href)")  # same URL: nothing
    page.evaluate("history.replaceState({}, '', 'products?sort=name')")  # new query: a page view
    by_name = v.wait("pageview", where=lambda e: e["url"].endswith("?sort=name"))[0]
    assert by_name["referrer"] == products["url"]  # the previous page view's URL, hash excluded

    # History: spa.html, ?sort=price, ?sort=price#reviews, ?sort=name (it replaced #top).
    page.go_back()  # popstate to ?sort=price#reviews: a new page view, its URL with the hash
    back = v.wait("pageview", where=lambda e: e["url"].endswith("/products?sort=price#reviews"))[0]
    assert back["referrer"] == v.url("products?sort=name")

    page.evaluate("audience.pageview()")  # manual page view: always sent
    manual = v.wait("pageview", count=5)[-1]
    assert manual["url"] == back["url"] and manual["referrer"] == back["url"]

    views = v.events("pageview")
    assert len(views) == 5, [e["url"] for e in views]
    assert len({e["page_id"] for e in views}) == 5
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_unknown_site_config_still_counts_cookieless(collector, pages, page, mode):
    """A config that does not load (404) leaves the script cookieless, and the collector counts
    the events as unknown_site."""
    site = f"never-declared-{mode}"
    page.goto(pages.url(site, "page2.html"))
    (event,) = collector.wait_events(site, "pageview")
    assert page.context.cookies() == []
    assert all("visitor" not in p for p in collector.payloads(site))


def test_page_restored_from_the_back_forward_cache_is_a_new_page_view(visit):
    """Headless Chromium under automation does not use the back/forward cache (a back navigation
    reloads), so the restore is emulated with the event a restore fires: pageshow, persisted."""
    v = visit("cookieless")
    first = v.open("basic.html")
    v.page.evaluate("dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))")
    restored = v.wait("pageview", count=2)[1]
    assert restored["url"] == first["url"] and restored["page_id"] != first["page_id"]
    assert "referrer" not in restored
    v.page.evaluate("dispatchEvent(new PageTransitionEvent('pageshow', {persisted: false}))")
    v.page.evaluate("audience.track('marker')")
    v.wait("marker")
    assert len(v.events("pageview")) == 2
