"""The page API `window.audience`: named events, e-commerce, the stub queue. Each tracking mode."""
from __future__ import annotations

import pytest

from tests.tracker.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ECOMMERCE_NAMES = ["view_item_list", "select_item", "view_item", "add_to_cart", "remove_from_cart", "view_cart",
                   "begin_checkout", "add_shipping_info", "add_payment_info", "purchase", "refund"]


@pytest.mark.parametrize("mode", MODES)
def test_track_with_flat_props(visit, mode):
    v = visit(mode)
    view = v.open("basic.html")
    v.page.evaluate("""audience.track('signup', {plan: 'pro', seats: 3, yearly: true, trial: false,
        empty: '', missing: null, nested: {a: 1}, list: [1], nan: NaN, fn() {}})""")
    v.page.evaluate("audience.track('no_props')")
    v.page.evaluate("audience.track('')")  # refused: no name
    v.page.evaluate("audience.track(42, {a: 1})")  # refused: not a string
    signup, no_props = v.wait("signup")[0], v.wait("no_props")[0]
    assert signup["type"] == "event" and signup["page_id"] == view["page_id"]
    assert signup["props"] == {"plan": "pro", "seats": 3, "yearly": True, "trial": False}
    assert "props" not in no_props
    names = [e.get("name") for e in v.events() if e["type"] == "event"]
    assert names == ["signup", "no_props"]
    v.check_identity()


@pytest.mark.parametrize("mode", MODES)
def test_ecommerce_purchase(visit, mode):
    v = visit(mode)
    v.open("basic.html")
    v.page.evaluate("""audience.ecommerce('purchase', {transaction_id: 'T-1001', value: 59.8, currency: 'EUR',
        tax: 9.97, coupon: 'SPRING', shipping: null,
        items: [{id: 'SKU-1', name: 'Mug', price: 19.9, quantity: 2},
                {id: 7, name: 'Tea', price: 20, quantity: 1, colour: {no: 'objects'}}]})""")
    (purchase,) = v.wait("purchase")
    assert purchase["type"] == "event"
    assert purchase["props"] == {"transaction_id": "T-1001", "value": 59.8, "currency": "EUR",
                                 "tax": 9.97, "coupon": "SPRING"}
    assert purchase["items"] == [{"id": "SKU-1", "name": "Mug", "price": 19.9, "quantity": 2},
                                 {"id": "7", "name": "Tea", "price": 20, "quantity": 1}]
    v.check_identity()


def test_every_ga4_ecommerce_name_is_accepted_and_others_are_refused(visit):
    v = visit("cookieless")
    v.open("basic.html")
    warnings = []
    v.page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    for name in ECOMMERCE_NAMES:
        v.page.evaluate("n => audience.ecommerce(n, {value: 1, currency: 'EUR', transaction_id: 12})", name)
    for name in ["checkout", "purchase_x", "view_items", "track"]:
        v.page.evaluate("n => audience.ecommerce(n, {value: 1})", name)
    v.wait(count=len(ECOMMERCE_NAMES), where=lambda e: e["type"] == "event")
    events = [e for e in v.events() if e["type"] == "event"]
    v.page.evaluate("audience.track('marker')")
    v.wait("marker")
    assert [e["name"] for e in events] == ECOMMERCE_NAMES
    assert all(e["props"] == {"value": 1, "currency": "EUR", "transaction_id": "12"} for e in events)
    assert all("items" not in e for e in events)
    assert len(warnings) == 4 and all("e-commerce" in w for w in warnings)


@pytest.mark.parametrize("mode", MODES)
def test_calls_queued_by_the_stub_are_replayed(visit, mode):
    v = visit(mode)
    v.page.goto(v.url("shop.html"))
    view_item, shown = v.wait("view_item")[0], v.wait("newsletter_shown")[0]
    (pageview,) = v.wait("pageview")
    assert view_item["props"] == {"currency": "EUR", "value": 19.9}
    assert view_item["items"] == [{"id": "SKU-1", "name": "Mug", "price": 19.9, "quantity": 1}]
    assert shown["props"] == {"variant": "b"}
    assert view_item["page_id"] == shown["page_id"] == pageview["page_id"]
    # After the load, the stub's methods are the real ones, and a raw push into `q` runs at once.
    v.page.evaluate("audience.q.push(['track', 'pushed', {n: 1}])")
    assert v.wait("pushed")[0]["props"] == {"n": 1}
    v.check_identity()


def test_stub_queue_of_raw_pushes(visit):
    """The shortest stub, `window.audience = window.audience || {q: []}`, with raw pushes."""
    v = visit("cookieless")
    v.page.add_init_script("window.audience = window.audience || {q: []};"
                           "audience.q.push(['track', 'early', {from: 'stub'}]);"
                           "audience.q.push(['nonsense', 1]);")
    v.page.goto(v.url("page2.html"))
    assert v.wait("early")[0]["props"] == {"from": "stub"}


def test_script_on_the_page_twice_runs_once(visit):
    v = visit("cookieless")
    v.page.goto(v.url("page2.html"))
    v.wait("pageview")
    v.page.evaluate("""src => new Promise(done => { const s = document.createElement('script');
        s.src = src; s.dataset.site = 'x'; s.onload = done; document.head.append(s); })""",
                    v.collector.base_url + "/a.js")
    v.page.evaluate("audience.track('once')")
    v.wait("once")
    assert len(v.events("pageview")) == 1 and len(v.events("once")) == 1
