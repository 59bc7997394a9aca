"""Events recorded with no code beyond the tag, as stored by the real collector: clicks, outbound
links, downloads, forms, videos, scroll depth, zone visibility (zones declared through the
administration API). Each tracking mode."""
from __future__ import annotations

import pytest

from tests.tracker_e2e.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("mode", MODES)
def test_clicks_downloads_forms_and_outbound_links(visit, mode):
    v = visit(mode)
    view = v.open("basic.html")
    v.page.click("#buy")
    with v.page.expect_download():
        v.page.click("#pdf")
    clicks = v.wait("click", count=2)
    (download,) = v.wait("file_download")
    assert {row["props"]["element"]: row["props"] for row in clicks} == {
        "button": {"element": "button", "id": "buy", "text": "Buy now"},
        "a": {"element": "a", "id": "pdf", "text": "Annual report", "href": v.url("files/report.pdf")}}
    assert download["props"] == {"url": v.url("files/report.pdf"), "extension": "pdf"}
    assert all(row["page_id"] == view["page_id"] and row["event_type"] == "event" for row in clicks + [download])
    assert download["url"] == view["url"] and download["path"] == view["path"]

    v.page.fill("input[name=email]", "secret.person@example.com")
    v.page.click("#send")  # a form posted to thanks.html: the page unloads
    (submit,) = v.wait("form_submit")
    assert submit["props"] == {"form_id": "signup", "form_name": "newsletter", "form_action": v.url("thanks.html")}
    assert submit["page_id"] == view["page_id"]
    v.wait("pageview", where=lambda row: row["path"].endswith("/thanks.html"))

    second = v.open("basic.html")
    v.page.click("#out")  # another host: sent by the beacon of the page that unloads
    (outbound,) = v.wait("outbound_click")
    target = f"{v.pages.other_url}/{v.site}/page2.html"
    assert outbound["props"] == {"url": target, "domain": "localhost"}
    assert outbound["page_id"] == second["page_id"] and outbound["url"] == second["url"]
    v.page.wait_for_url(target)
    stored = b"".join(repr(row).encode() for row in v.events())
    assert b"secret.person" not in stored and b"field-named-id" not in stored
    v.check_identity()


ZONES = [{"name": "hero", "selector": "#hero"}, {"name": "promo", "selector": ".promo"},
         {"name": "ghost", "selector": "#ghost"}]


@pytest.mark.parametrize("mode", MODES)
def test_video_scroll_depth_and_zones(visit, mode):
    v = visit(mode, zones=ZONES)
    clip = v.open("video.html")
    v.page.evaluate("document.getElementById('clip').play()")  # real (silent) media, muted
    v.wait("video_complete", timeout=20)
    videos = [row for row in v.events() if row["event_name"].startswith("video_")]
    # Events sent in one request share their time of receipt: compared without their order.
    assert sorted((row["event_name"], row["props"].get("percent", 0)) for row in videos) == [
        ("video_complete", 0), ("video_progress", 25), ("video_progress", 50), ("video_progress", 75),
        ("video_start", 0)]
    assert all(row["props"]["video_url"] == v.url("media/tone.wav") and row["props"]["video_title"] == "Product tour"
               and row["page_id"] == clip["page_id"] for row in videos)

    long = v.open("long.html")
    page = v.page
    start = page.evaluate("performance.now()")
    page.wait_for_function(f"performance.now() > {start} + 400")  # the hero on screen for a while
    page.evaluate("document.getElementById('promo-2').scrollIntoView()")
    scrolled = page.evaluate("performance.now()")
    page.wait_for_function(f"performance.now() > {scrolled} + 300")
    expected_depth = page.evaluate("Math.round((scrollY + innerHeight) / document.documentElement.scrollHeight * 100)")
    hidden_at = v.set_hidden(True)  # the page view ends: depth and zone time reported, flushed at once
    (depth,) = v.wait("scroll_depth", where=lambda row: row["page_id"] == long["page_id"])
    zones = {row["props"]["zone"]: row for row in v.wait("zone_visibility", count=2)}
    assert depth["props"] == {"percent": expected_depth} and 40 < expected_depth < 100
    assert set(zones) == {"hero", "promo"}  # ghost is never displayed
    assert 400 <= zones["hero"]["props"]["visible_ms"] <= scrolled + 200
    # From the frame after the scroll (the observer reports after rendering) until hidden.
    assert 200 <= zones["promo"]["props"]["visible_ms"] <= hidden_at - scrolled + 100
    assert all(row["page_id"] == long["page_id"] and row["url"] == long["url"] for row in zones.values())

    v.set_hidden(False)  # shown again, then left for good: the increment since the last report
    page.evaluate("scrollTo(0, document.documentElement.scrollHeight)")
    shown = page.evaluate("performance.now()")
    page.wait_for_function(f"performance.now() > {shown} + 200")
    page.goto(v.url("page2.html"))  # pagehide: reported by the beacon of the unloading page
    depths = v.wait("scroll_depth", count=2, where=lambda row: row["page_id"] == long["page_id"])
    assert depths[1]["props"] == {"percent": 100}
    v.wait("pageview", where=lambda row: row["path"].endswith("/page2.html"))
    # Per page view the collector keeps every report: the maximum depth, the sum of zone times.
    totals = v.collector.db.execute(
        """select props->>'zone' as zone, count(*) as reports, sum((props->>'visible_ms')::int) as ms
             from raw.events where site_id = %s and event_name = 'zone_visibility' and page_id = %s
            group by 1 order by 1""", (v.site, long["page_id"])).fetchall()
    assert {row["zone"] for row in totals} <= {"hero", "promo"}
    assert sum(row["ms"] for row in totals) >= 700
    v.check_identity()
