"""What the real collector refuses from a browser, and counts: a page on a host that is not among
the site's domains, and a headless browser that says so in its user agent. Both show in the
site's check figures (GET /api/v1/sites/{id}/health). And what it must not refuse: the beacon of
an unloading page (it carries the browser's user agent), and the fetch fallback of the script."""
from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HEADLESS_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
               "HeadlessChrome/156.0.0.0 Safari/537.36")


def test_origin_not_allowed_is_refused_and_counted(collector, pages, page):
    site = collector.add_site("cookie")  # domains: 127.0.0.1 only
    page.goto(f"{pages.other_url}/{site}/basic.html")  # the same page, served as localhost
    # No CORS for this origin: the script cannot read the config, so it stays cookieless and sends.
    page.wait_for_function("window.audience && audience.v")
    page.evaluate("audience.track('signup')")
    counts = collector.wait_rejections(site, "origin_not_allowed", 2)
    assert counts == {"origin_not_allowed": 2}  # the page view and the named event
    assert collector.events(site) == []
    assert page.context.cookies() == []
    health = collector.health(site)
    assert health["events_last_24h"] == 0 and health["rejected_last_24h"] == 2
    assert health["rejected_last_24h_by_reason"] == {"origin_not_allowed": 2}


def test_headless_chrome_is_filtered_as_a_bot_and_counted(collector, pages, make_context):
    # The context's user agent reaches the requests of a living page (not a beacon of an unloading one).
    page = make_context(user_agent=HEADLESS_UA).new_page()
    assert "HeadlessChrome" in page.evaluate("navigator.userAgent")
    site = collector.add_site("cookieless", refusals=("bot",))
    page.goto(pages.url(site, "basic.html"))
    page.wait_for_function("window.audience && audience.v")
    page.click("#buy")
    counts = collector.wait_rejections(site, "bot", 2)
    assert counts == {"bot": 2}  # the page view and the click
    assert collector.events(site) == []
    assert collector.health(site)["rejected_last_24h_by_reason"] == {"bot": 2}


def test_every_request_carries_the_desktop_user_agent(visit):
    """The beacon of an unloading page too: the user agent is set for the whole browser, so the
    page view's last events are stored, not filtered as a bot."""
    v = visit("cookieless")
    view = v.open("long.html")
    assert "Headless" not in v.page.evaluate("navigator.userAgent")
    v.page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")
    v.page.goto(v.url("page2.html"))  # pagehide: the scroll depth leaves in the unload beacon
    (depth,) = v.wait("scroll_depth")
    assert depth["page_id"] == view["page_id"] and depth["props"] == {"percent": 100}
    assert depth["browser"] == "Chrome"
    assert v.collector.rejections(v.site) == {}


def test_fetch_keepalive_fallback_is_stored(visit):
    """When the browser refuses a beacon, the script's fetch (keepalive, CORS, no credentials)
    reaches the collector through the unload too, without a preflight."""
    v = visit("cookie")
    v.page.add_init_script("Navigator.prototype.sendBeacon = () => false")
    view = v.open("basic.html")
    v.page.click("#buy")
    v.page.goto(v.url("page2.html"))  # the click leaves with the unloading page
    (click,) = v.wait("click")
    assert click["page_id"] == view["page_id"] and click["props"]["id"] == "buy"
    v.wait("pageview", where=lambda row: row["path"].endswith("/page2.html"))
    v.check_identity()
