"""Events recorded with no code beyond the tag: clicks, outbound links, downloads, site search,
forms, videos, scroll depth, zone visibility; and how they are batched. Each tracking mode."""
from __future__ import annotations

import pytest

from tests.tracker.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("mode", MODES)
def test_clicks_on_links_and_buttons(visit, mode):
    v = visit(mode)
    view = v.open("basic.html")
    v.page.click("#buy")
    v.page.click("#long")
    v.page.click("#icon")
    v.page.click("#plain")  # not a link nor a button: nothing
    v.page.click("#hashlink")  # a link to the same page
    clicks = v.wait("click", count=4)
    by_id = {e["props"].get("id"): e for e in clicks}
    assert by_id["buy"]["props"] == {"element": "button", "id": "buy", "text": "Buy now"}
    long_text = by_id["long"]["props"]["text"]
    assert len(long_text) == 100 and long_text.startswith("Lorem ipsum dolor sit amet")
    assert by_id["icon"]["props"]["text"] == "Close dialog"  # no text: its aria-label
    assert by_id["hashlink"]["props"] == {"element": "a", "id": "hashlink", "text": "Jump",
                                          "href": v.url("basic.html#section")}
    assert all(e["page_id"] == view["page_id"] and e["type"] == "event" for e in clicks)
    assert len(v.events("click")) == 4
    assert not v.events("outbound_click") and not v.events("file_download")
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_outbound_link_is_sent_as_the_page_unloads(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.click("#out")  # another host: the page unloads at once, pagehide sends the beacon
    (outbound,) = v.wait("outbound_click")
    target = v.pages.other_url + f"/{v.site}/page2.html"
    assert outbound["props"] == {"url": target, "domain": "localhost"}
    assert outbound["url"] == v.url("basic.html")
    (click,) = v.wait("click")
    assert click["props"] == {"element": "a", "id": "out", "text": "Partner site", "href": target}
    v.page.wait_for_url(target)
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_file_downloads_by_configured_extension(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    with v.page.expect_download():
        v.page.click("#pdf")
    with v.page.expect_download():
        v.page.click("#zip")
    downloads = v.wait("file_download", count=2)  # the page stays: sent by the one-second flush
    assert [e["props"] for e in downloads] == [
        {"url": v.url("files/report.pdf"), "extension": "pdf"},
        {"url": v.url("files/Archive.ZIP?v=2"), "extension": "zip"},
    ]
    assert v.wait("click", count=2)[0]["props"]["text"] == "Annual report"
    v.check_identity()


def test_download_extensions_come_from_the_config(visit):
    v = visit("cookieless", downloads=["csv"])
    v.open("basic.html")
    with v.page.expect_download():
        v.page.click("#pdf")
    v.wait("click")
    v.page.evaluate("audience.track('marker')")
    v.wait("marker")
    assert v.events("file_download") == []


@pytest.mark.parametrize("mode", MODES)
def test_site_search_from_configured_query_parameters(visit, mode):
    v = visit(mode)
    v.page.goto(v.url("basic.html") + "?s=&search=+running%20shoes+&q=ignored")
    (search,) = v.wait("view_search_results")
    # The first configured parameter with a value, trimmed: q, s, search -> q here.
    assert search["props"] == {"search_term": "ignored", "search_param": "q"}
    pageview = v.events("pageview")[0]
    assert search["page_id"] == pageview["page_id"]
    # Sent with the page view, in the same request.
    assert [e["type"] for e in v.collector.payloads(v.site)[0]["events"]] == ["pageview", "event"]
    v.check_identity()


def test_site_search_parameters_are_configurable(visit):
    v = visit("cookieless", search_params=["keyword"])
    v.page.goto(v.url("spa.html") + "?q=not-configured")
    v.wait("pageview")
    v.page.evaluate("history.pushState({}, '', 'results?keyword=%20blue%20mugs')")
    (search,) = v.wait("view_search_results")
    assert search["props"] == {"search_term": "blue mugs", "search_param": "keyword"}
    assert len(v.events("view_search_results")) == 1


@pytest.mark.parametrize("mode", MODES)
def test_form_submit_without_field_values(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.fill("input[name=email]", "secret.person@example.com")
    v.page.click("#send")
    (submit,) = v.wait("form_submit")
    assert submit["props"] == {"form_id": "signup", "form_name": "newsletter",
                               "form_action": v.url("thanks.html")}
    v.wait("pageview", where=lambda e: e["url"] == v.url("thanks.html"))
    bodies = b"".join(r.body for r in v.collector.requests_for(v.site))
    assert b"secret.person" not in bodies and b"field-named-id" not in bodies
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_video_start_progress_complete(visit, mode):
    v = visit(mode)
    v.open("video.html")
    # Real playback of real media (a silent WAV made by the test server), muted so no gesture is needed.
    v.page.evaluate("document.getElementById('clip').play()")
    v.wait("video_complete", timeout=20)
    events = [e for e in v.events() if e.get("name", "").startswith("video_")]
    names = [(e["name"], e.get("props", {}).get("percent")) for e in events]
    assert names == [("video_start", None), ("video_progress", 25), ("video_progress", 50),
                     ("video_progress", 75), ("video_complete", None)]
    for event in events:
        assert event["props"]["video_url"] == v.url("media/tone.wav")
        assert event["props"]["video_title"] == "Product tour"
    # A replay after the end is a new start.
    v.page.evaluate("document.getElementById('clip').play()")
    v.wait("video_start", count=2)
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_scroll_depth_once_per_page_view(visit, mode):
    v = visit(mode)
    view = v.open("long.html")
    v.page.evaluate("scrollTo(0, (document.documentElement.scrollHeight - innerHeight) / 2)")
    # Scroll events are dispatched with the next frame: let two frames pass so the script sees
    # this position before the page scrolls back (a loaded machine may not render in between).
    v.page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    expected = v.page.evaluate(
        "Math.round((scrollY + innerHeight) / document.documentElement.scrollHeight * 100)")
    v.page.evaluate("scrollTo(0, 0)")  # depth is the maximum, not the last position
    v.page.wait_for_function("scrollY == 0")
    v.set_hidden(True)  # the page view ends (tab hidden): reported with the current page id
    (depth,) = v.wait("scroll_depth")
    assert 40 < expected < 100 and depth["props"] == {"percent": expected}
    assert depth["page_id"] == view["page_id"] and depth["url"] == view["url"]

    v.set_hidden(False)  # back: reported again only if deeper, when the page view ends again
    v.page.evaluate("audience.track('marker')")
    v.set_hidden(True)
    v.wait("marker")
    assert len(v.events("scroll_depth")) == 1
    v.set_hidden(False)
    v.page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")
    v.page.goto(v.url("page2.html"))  # pagehide
    depths = v.wait("scroll_depth", count=2)
    assert depths[1]["props"] == {"percent": 100} and depths[1]["page_id"] == view["page_id"]
    v.check_identity()


ZONES = [{"name": "hero", "selector": "#hero"}, {"name": "promo", "selector": ".promo"},
         {"name": "ghost", "selector": "#ghost"}, {"name": "footer", "selector": "#footer"},
         {"name": "broken", "selector": "[[not a selector"}]


def _counting_since(page, selector: str) -> float:
    """The page's clock once the script's zone observer has seen `selector` on screen. The script
    counts from its observer's first callback, which a loaded machine delays past the page load;
    an observer made after the script's is called in the same turn or later, so its clock is an
    upper bound of the moment the zone started counting."""
    return page.evaluate("""selector => new Promise(done => new IntersectionObserver((es, io) => {
        io.disconnect(); done(performance.now()); }, {threshold: .5}).observe(document.querySelector(selector)))""",
                         selector)


@pytest.mark.parametrize("mode", MODES)
def test_zone_visibility_time(visit, mode):
    v = visit(mode, zones=ZONES)
    view = v.open("long.html")
    page = v.page
    start = _counting_since(page, "#hero")
    page.wait_for_function(f"performance.now() > {start} + 400")  # hero on screen for a while
    page.evaluate("document.getElementById('promo-2').scrollIntoView()")
    scrolled = page.evaluate("performance.now()")
    page.wait_for_function(f"performance.now() > {scrolled} + 300")  # promo-2 on screen
    ended = page.evaluate("performance.now()")
    page.goto(v.url("page2.html"))  # the page view ends: pagehide, then visibilitychange
    v.wait("pageview", where=lambda e: e["url"] == v.url("page2.html"))
    reports = v.wait("zone_visibility", count=2)
    zones = {e["props"]["zone"]: e for e in reports}
    assert len(reports) == len(zones) == 2  # once each: ghost never shown, footer never reached, broken ignored
    assert set(zones) == {"hero", "promo"}
    # The hero counted from the first frame (time origin 0) until scrolled away, not after.
    assert 400 <= zones["hero"]["props"]["visible_ms"] <= scrolled + 200
    assert 300 <= zones["promo"]["props"]["visible_ms"] <= ended - scrolled + 1000
    assert all(z["page_id"] == view["page_id"] and z["url"] == view["url"] for z in zones.values())
    v.check_identity()


def test_zone_time_stops_while_the_page_is_hidden(visit):
    v = visit("cookieless", zones=ZONES[:1])
    v.open("long.html")
    page = v.page
    t0 = _counting_since(page, "#hero")
    page.wait_for_function(f"performance.now() > {t0} + 300")
    hidden_at = v.set_hidden(True)  # the page view ends: reports 300+ ms
    first = v.wait("zone_visibility")[0]["props"]["visible_ms"]
    page.wait_for_function(f"performance.now() > {hidden_at} + 1500")  # hidden: does not count
    shown_at = v.set_hidden(False)
    page.wait_for_function(f"performance.now() > {shown_at} + 200")
    hidden_again_at = v.set_hidden(True)
    second = v.wait("zone_visibility", count=2)[1]["props"]["visible_ms"]
    # Increments since the last report: the hidden 1.5 s are in neither.
    assert 300 <= first <= hidden_at
    assert abs(second - (hidden_again_at - shown_at)) <= 20


def test_zone_rendered_after_load_is_observed(visit):
    v = visit("cookieless", zones=[{"name": "late", "selector": "#late"}])
    v.open("page2.html")
    v.page.evaluate("""() => { const el = document.createElement('div'); el.id = 'late';
        el.style.height = '100px'; el.textContent = 'late'; document.body.prepend(el); }""")
    t0 = v.page.evaluate("performance.now()")
    v.page.wait_for_function(f"performance.now() > {t0} + 300")
    v.set_hidden(True)
    (zone,) = v.wait("zone_visibility")
    assert zone["props"]["zone"] == "late" and zone["props"]["visible_ms"] >= 250


@pytest.mark.parametrize("mode", MODES)
def test_automatic_events_are_batched(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.evaluate("""() => { for (const id of ['buy', 'long', 'icon']) document.getElementById(id).click(); }""")
    clicks = v.wait("click", count=3)
    posts = [p for p in v.collector.payloads(v.site) if any(e.get("name") == "click" for e in p["events"])]
    assert len(posts) == 1 and len(posts[0]["events"]) == 3  # one request for the burst
    assert clicks[2]["ts"] - clicks[0]["ts"] < 1000
    v.check_identity()


def test_hidden_page_flushes_at_once(visit):
    v = visit("cookieless")
    v.open("basic.html")
    v.page.evaluate("document.getElementById('buy').click()")
    v.set_hidden(True)
    v.wait("click", timeout=0.9)  # sooner than the one-second timer


def test_middle_click_on_a_link(visit):
    v = visit("cookieless")
    v.open("basic.html")
    with v.page.context.expect_page():  # opens in a new tab
        v.page.click("#next", button="middle")
    (click,) = v.wait("click")
    assert click["props"]["id"] == "next" and click["props"]["text"] == "Next page"
    v.page.click("#buy", button="right")  # a context menu is not a click
    v.page.evaluate("audience.track('marker')")
    v.wait("marker")
    assert len(v.events("click")) == 1
