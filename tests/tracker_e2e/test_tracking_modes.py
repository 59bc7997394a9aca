"""Tracking modes end to end: what is on the device, and which visitor the stored rows carry.
Cookieless: no cookie, the daily hash. Cookie: `_vis` created once (expiry within 13 months,
never moved), the same visitor on a later visit. Consent: the hash until consent, then `_vis`;
a withdrawal deletes it."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tests.tracker.test_tracking_modes import add_months

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_cookieless_visits_leave_nothing_and_share_the_daily_hash(visit):
    v = visit("cookieless")
    v.open("basic.html")
    v.page.click("#buy")
    v.wait("click")
    first = v.check_identity()
    v.page.close()  # a later visit, in a new tab of the same browser
    v.page = v.page.context.new_page()
    v.open("page2.html")
    assert v.page.context.cookies() == []
    assert v.check_identity() == first  # same address, user agent, site and day


def test_cookie_mode_recognises_the_returning_visitor(visit):
    v = visit("cookie")
    created = datetime.now(timezone.utc)
    v.open("basic.html")
    cookie = v.cookies()["_vis"]
    expires = datetime.fromtimestamp(cookie["expires"], timezone.utc)
    assert add_months(created, 12) < expires <= add_months(created, 13)
    assert v.check_identity() == cookie["value"]

    v.page.close()  # the visitor comes back later, in a new tab: the cookie is read, not rewritten
    v.page = v.page.context.new_page()
    second = v.open("page2.html")
    v.page.evaluate("audience.track('returned')")
    v.wait("returned")
    assert v.cookies()["_vis"] == cookie  # same value, same expiry
    assert second["visitor_kind"] == "cookie" and second["visitor_id"] == cookie["value"]
    assert v.check_identity() == cookie["value"]
    assert len(v.events("pageview")) == 2


def test_consent_mode_hash_until_granted_then_cookie_until_withdrawn(visit):
    v = visit("consent")
    before = v.open("basic.html")
    assert before["visitor_kind"] == "hash" and v.page.context.cookies() == []

    v.page.evaluate("audience.consent(true)")
    cookie = v.cookies()["_vis"]
    assert datetime.fromtimestamp(cookie["expires"], timezone.utc) <= add_months(datetime.now(timezone.utc), 13)
    v.page.evaluate("audience.track('granted')")
    (granted,) = v.wait("granted")
    assert (granted["visitor_kind"], granted["visitor_id"]) == ("cookie", cookie["value"])

    v.page.goto(v.url("consent.html"))  # the consent platform grants again through the stub
    (view,) = v.wait("pageview", where=lambda row: row["path"].endswith("/consent.html"))
    assert (view["visitor_kind"], view["visitor_id"]) == ("cookie", cookie["value"])
    assert v.cookies()["_vis"] == cookie  # reused, not rewritten

    v.page.evaluate("audience.consent(false)")  # withdrawn: the cookie is deleted
    assert v.cookies() == {}
    v.page.evaluate("audience.track('withdrawn')")
    (withdrawn,) = v.wait("withdrawn")
    assert withdrawn["visitor_kind"] == "hash" and withdrawn["visitor_id"] == before["visitor_id"]
