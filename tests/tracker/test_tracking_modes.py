"""What each tracking mode writes on the device and sends: cookieless nothing; cookie `_vis` created
once and never extended; consent nothing until granted, and nothing again once withdrawn."""
from __future__ import annotations

import time
from datetime import datetime, timezone

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Records every write to document.cookie and every storage write, before any page script runs.
WRITE_SPY = """
window.__writes = [];
const cookie = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie');
Object.defineProperty(Document.prototype, 'cookie', {configurable: true, get() { return cookie.get.call(this); },
    set(value) { window.__writes.push('cookie ' + value); cookie.set.call(this, value); }});
for (const name of ['setItem', 'removeItem', 'clear'])
    Storage.prototype[name] = new Proxy(Storage.prototype[name], {apply(target, self, args) {
        window.__writes.push('storage ' + name); return Reflect.apply(target, self, args); }});
"""


def add_months(moment: datetime, months: int) -> datetime:
    month = moment.month - 1 + months
    year, month = moment.year + month // 12, month % 12 + 1
    for day in range(moment.day, 27, -1):
        try:
            return moment.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    return moment.replace(year=year, month=month)


def test_cookieless_writes_nothing_on_the_device(visit):
    v = visit("cookieless")
    v.page.add_init_script(WRITE_SPY)
    v.open("basic.html")
    v.page.evaluate("audience.consent(true)")  # consent has no effect outside consent mode
    v.page.click("#buy")
    v.page.evaluate("audience.ecommerce('purchase', {transaction_id: 'T1', value: 1, currency: 'EUR'})")
    v.page.goto(v.url("page2.html"))
    v.wait("pageview", count=2)
    v.wait("purchase")
    assert v.page.evaluate("window.__writes") == []
    assert v.page.context.cookies() == []
    v.check_identity()


def test_cookie_mode_creates_vis_once_and_never_extends_it(visit):
    v = visit("cookie")
    v.page.add_init_script(WRITE_SPY)
    created = datetime.now(timezone.utc)
    v.open("basic.html")
    writes = v.page.evaluate("window.__writes")
    assert len(writes) == 1 and writes[0].startswith("cookie _vis=")
    cookie = v.cookies()["_vis"]
    assert cookie["path"] == "/" and cookie["sameSite"] == "Lax"
    assert cookie["secure"] is False and cookie["httpOnly"] is False  # http here; Secure on https
    expires = datetime.fromtimestamp(cookie["expires"], timezone.utc)
    assert add_months(created, 12) < expires <= add_months(created, 13)

    # Later visits: the same cookie, untouched (no write at all), sent as the visitor.
    v.page.goto(v.url("page2.html"))
    v.wait("pageview", count=2)
    v.page.reload()
    v.wait("pageview", count=3)
    assert v.page.evaluate("window.__writes") == []
    assert v.cookies()["_vis"] == cookie
    assert [e["_visitor"] for e in v.events("pageview")] == [cookie["value"]] * 3
    v.check_identity()


def test_cookie_mode_keeps_an_existing_vis_and_its_expiry(visit):
    v = visit("cookie")
    existing = "0123456789abcdefghijklmnop"
    expiry = int(time.time()) + 30 * 86400  # created about 12 months ago: ends in 30 days
    v.page.context.add_cookies([{"name": "_vis", "value": existing, "url": v.pages.base_url + "/",
                                 "expires": expiry, "sameSite": "Lax"}])
    v.page.add_init_script(WRITE_SPY)
    v.open("basic.html")
    assert v.page.evaluate("window.__writes") == []
    cookie = v.cookies()["_vis"]
    assert cookie["value"] == existing and int(cookie["expires"]) == expiry
    assert v.events("pageview")[0]["_visitor"] == existing
    v.check_identity()


@pytest.mark.parametrize("signal", ["navigator.globalPrivacyControl", "navigator.doNotTrack"])
def test_cookie_mode_honours_gpc_and_dnt(visit, signal):
    v = visit("cookie")
    value = "true" if "global" in signal else "'1'"
    v.page.add_init_script(f"Object.defineProperty(Navigator.prototype, '{signal.split('.')[1]}', "
                           f"{{get: () => {value}}})")
    v.open("basic.html")
    v.page.click("#buy")
    v.wait("click")
    assert v.page.context.cookies() == []
    assert all("visitor" not in p for p in v.collector.payloads(v.site))


def test_consent_mode_grant_then_withdraw(visit):
    v = visit("consent")
    v.page.add_init_script(WRITE_SPY)
    v.open("basic.html")
    v.page.click("#buy")
    v.wait("click")
    assert v.page.context.cookies() == [] and v.page.evaluate("window.__writes") == []
    assert all("visitor" not in p for p in v.collector.payloads(v.site))

    v.page.click("#long")  # queued, then flushed before the consent: sent without a visitor
    v.page.evaluate("audience.consent(true)")
    cookie = v.cookies()["_vis"]
    v.page.evaluate("audience.track('after_consent')")
    (before,) = v.wait("click", where=lambda e: e["props"]["id"] == "long")
    (after,) = v.wait("after_consent")
    assert before["_visitor"] is None and after["_visitor"] == cookie["value"]
    expires = datetime.fromtimestamp(cookie["expires"], timezone.utc)
    assert expires <= add_months(datetime.now(timezone.utc), 13)

    v.page.goto(v.url("page2.html"))  # a new page: consent must be given again by the page
    second_view = v.wait("pageview", count=2)[1]
    assert second_view["_visitor"] is None and v.cookies()["_vis"] == cookie
    v.page.evaluate("audience.consent(true)")  # existing cookie reused, not rewritten
    v.page.evaluate("audience.track('granted_again')")
    assert v.wait("granted_again")[0]["_visitor"] == cookie["value"]
    assert v.cookies()["_vis"] == cookie

    v.page.evaluate("audience.consent(false)")  # withdrawn: the cookie is deleted
    assert v.cookies() == {}
    v.page.evaluate("audience.track('after_withdrawal')")
    assert v.wait("after_withdrawal")[0]["_visitor"] is None
    v.page.goto(v.url("basic.html"))
    v.wait("pageview", count=3)
    assert v.page.context.cookies() == []


def test_consent_given_in_the_stub_applies_to_the_first_page_view(visit):
    v = visit("consent")
    v.page.goto(v.url("consent.html"))
    (view,) = v.wait("pageview")
    cookie = v.cookies()["_vis"]
    assert view["_visitor"] == cookie["value"]
    v.check_identity(granted=True)


@pytest.mark.parametrize("withdraw", [False, True])
def test_consent_granted_by_default(visit, withdraw):
    v = visit("consent", consent_granted_default=True)
    if withdraw:
        v.page.add_init_script("window.audience = {q: [['consent', false]]}")
    v.open("page2.html")
    payload = v.collector.payloads(v.site)[0]
    if withdraw:
        assert v.page.context.cookies() == [] and "visitor" not in payload
    else:
        assert payload["visitor"] == v.cookies()["_vis"]["value"]
        v.check_identity(granted=True)


def test_consent_is_ignored_in_cookie_mode(visit):
    v = visit("cookie")
    v.open("basic.html")
    cookie = v.cookies()["_vis"]
    v.page.evaluate("audience.consent(false)")
    v.page.evaluate("audience.track('still_counted')")
    assert v.wait("still_counted")[0]["_visitor"] == cookie["value"]
    assert v.cookies()["_vis"] == cookie
