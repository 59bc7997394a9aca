"""Page views stored by the real collector: fields, UTM parameters and click ids, referrer, SPA
navigations, site search, device. Each tracking mode."""
from __future__ import annotations

from datetime import timedelta

import pytest

from tests.tracker_e2e.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("mode", MODES)
def test_pageviews_campaigns_spa_and_search(visit, mode):
    v = visit(mode)
    query = ("?utm_source=Newsletter&utm_medium=email&utm_campaign=spring%20sale&utm_term=mugs"
             "&utm_content=hero&gclid=Cj0KCQ&fbclid=IwAR2")
    v.page.goto(v.url("basic.html") + query)
    (landing,) = v.wait("pageview")
    # Campaign values as sent (the pipeline normalises them); the click id's value is not kept.
    assert {k: landing[k] for k in ("utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content")} == {
        "utm_source": "Newsletter", "utm_medium": "email", "utm_campaign": "spring sale", "utm_term": "mugs",
        "utm_content": "hero"}
    assert landing["click_id_kind"] == "gclid"
    assert "Cj0KCQ" not in landing["url"] and "IwAR2" not in landing["url"] and "utm_source=Newsletter" in landing["url"]
    assert (landing["hostname"], landing["path"]) == ("127.0.0.1", f"/{v.site}/basic.html")
    assert landing["event_type"] == "pageview" and landing["source"] == "browser"
    assert landing["title"] == "Basic page" and landing["language"] == "fr-FR"
    assert landing["screen_class"] == "desktop" and landing["referrer"] is None
    # The browser's own user agent (set at launch): a desktop Chrome, not a headless one.
    assert (landing["browser"], landing["os"], landing["device_class"]) == ("Chrome", "Linux", "desktop")
    assert landing["country"] is None  # 127.0.0.1 has no country
    assert landing["props"] == {} and landing["items"] is None and landing["revenue"] is None
    assert len(landing["page_id"]) == 26

    v.page.click("#next")  # a real navigation: the referrer is the previous page
    second = v.wait("pageview", where=lambda row: row["path"].endswith("/page2.html"))[0]
    assert second["referrer"] == v.url("basic.html") + query and second["referrer_host"] == "127.0.0.1"
    assert second["utm_source"] is None and second["click_id_kind"] is None
    assert second["page_id"] != landing["page_id"] and second["title"] == "Second page"

    # Single-page application: pushState and replaceState are page views, a hash change is not.
    home = v.open("spa.html")
    v.page.click("#to-products")
    products = v.wait("pageview", where=lambda row: row["url"].endswith("/products?sort=price"))[0]
    assert products["referrer"] == home["url"] and products["page_id"] != home["page_id"]
    # The SPA view that ended reports its depth, under its own page id and URL.
    (depth,) = v.wait("scroll_depth", where=lambda row: row["page_id"] == home["page_id"])
    assert depth["url"] == home["url"]
    assert 0 < depth["props"]["percent"] <= 100
    v.page.evaluate("history.pushState({}, '', '#reviews')")
    v.page.evaluate("history.replaceState({}, '', 'results?q=%20blue%20mugs&utm_source=spa')")
    results = v.wait("pageview", where=lambda row: "results" in row["url"])[0]
    assert results["referrer"] == products["url"] and results["utm_source"] == "spa"
    (search,) = v.wait("view_search_results")
    assert search["props"] == {"search_term": "blue mugs", "search_param": "q"}
    assert search["page_id"] == results["page_id"] and search["event_type"] == "event"

    views = v.events("pageview")
    assert len(views) == 5 and len({row["page_id"] for row in views}) == 5
    # On the server's clock: at or before the time of receipt (the script's stamps only place the
    # events of one request relative to each other), in the order of the navigation.
    assert all(timedelta(0) <= row["received_at"] - row["occurred_at"] <= timedelta(minutes=30) for row in views)
    by_id = {row["page_id"]: row["occurred_at"] for row in views}
    navigation = [by_id[view["page_id"]] for view in (landing, second, home, products, results)]
    assert navigation == sorted(navigation)
    v.check_identity()


def test_page_with_a_long_title_and_address_is_measured(visit):
    """Regression: an event whose title, URL or property value was past the collector's limits
    was refused whole, so such a page recorded nothing at all. Browser text is now cut."""
    v = visit("cookieless")
    v.open("spa.html")
    v.page.evaluate("document.title = 'T'.repeat(600); history.pushState({}, '', 'p?ref=' + 'a'.repeat(2100))")
    view = v.wait("pageview", where=lambda row: "?ref=" in row["url"])[0]
    v.page.evaluate("audience.track('shared', {note: 'n'.repeat(600)})")
    (shared,) = v.wait("shared")
    assert view["title"] == "T" * 500 and len(view["url"]) == 2048 and view["url"].startswith(v.url("p?ref=aaa"))
    assert shared["props"] == {"note": "n" * 500} and shared["title"] == "T" * 500
    assert v.collector.rejections(v.site) == {}
