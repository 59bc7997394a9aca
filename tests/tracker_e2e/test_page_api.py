"""The page API `window.audience` as stored by the real collector: named events with props, the
stub queue, and the GA4 e-commerce events with transaction id, value, currency and items. Each
tracking mode."""
from __future__ import annotations

from decimal import Decimal

import pytest

from tests.tracker_e2e.conftest import MODES

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ECOMMERCE_NAMES = ["view_item_list", "select_item", "view_item", "add_to_cart", "remove_from_cart", "view_cart",
                   "begin_checkout", "add_shipping_info", "add_payment_info", "purchase", "refund"]


@pytest.mark.parametrize("mode", MODES)
def test_named_and_ecommerce_events(visit, mode):
    v = visit(mode)
    v.page.goto(v.url("shop.html"))  # calls queued by the stub before the script loaded
    (view,) = v.wait("pageview")
    (view_item,) = v.wait("view_item")
    (shown,) = v.wait("newsletter_shown")
    assert view_item["props"] == {"currency": "EUR", "value": 19.9}
    assert view_item["items"] == [{"id": "SKU-1", "name": "Mug", "price": 19.9, "quantity": 1}]
    assert (view_item["revenue"], view_item["currency"], view_item["transaction_id"]) == (Decimal("19.9"), "EUR", None)
    assert shown["props"] == {"variant": "b"} and shown["items"] is None
    assert view_item["page_id"] == shown["page_id"] == view["page_id"]

    v.page.evaluate("""audience.track('signup', {plan: 'pro', seats: 3, yearly: true, trial: false,
        empty: '', missing: null, nested: {a: 1}})""")
    (signup,) = v.wait("signup")
    assert signup["props"] == {"plan": "pro", "seats": 3, "yearly": True, "trial": False}
    assert signup["event_type"] == "event" and signup["revenue"] is None

    for name in ECOMMERCE_NAMES[:-2]:
        v.page.evaluate("n => audience.ecommerce(n, {currency: 'EUR', value: 19.9, items: [{id: 'SKU-1', price: 19.9}]})",
                        name)
    v.page.evaluate("""audience.ecommerce('purchase', {transaction_id: 1001, value: 59.8, currency: 'EUR',
        tax: 9.97, shipping: 4.9, coupon: 'SPRING',
        items: [{id: 'SKU-1', name: 'Mug', price: 19.9, quantity: 2}, {id: 7, name: 'Tea', price: 20, quantity: 1}]})""")
    v.page.evaluate("audience.ecommerce('refund', {transaction_id: '1001', value: 20, currency: 'EUR', items: [{id: 7}]})")
    v.page.evaluate("audience.ecommerce('checkout', {value: 1})")  # not a GA4 name: ignored by the script
    (purchase,) = v.wait("purchase")
    (refund,) = v.wait("refund")
    assert purchase["props"] == {"transaction_id": "1001", "value": 59.8, "currency": "EUR", "tax": 9.97,
                                 "shipping": 4.9, "coupon": "SPRING"}
    assert purchase["items"] == [{"id": "SKU-1", "name": "Mug", "price": 19.9, "quantity": 2},
                                 {"id": "7", "name": "Tea", "price": 20, "quantity": 1}]
    assert (purchase["transaction_id"], purchase["revenue"], purchase["currency"]) == ("1001", Decimal("59.8"), "EUR")
    assert (refund["transaction_id"], refund["revenue"], refund["items"]) == ("1001", Decimal("20"), [{"id": "7"}])
    v.page.evaluate("audience.track('marker')")
    v.wait("marker")
    names = {row["event_name"] for row in v.events()}
    assert set(ECOMMERCE_NAMES) <= names and "checkout" not in names
    assert len(v.events("view_item")) == 2
    v.check_identity()
