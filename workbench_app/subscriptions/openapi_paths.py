"""The subscriptions' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in);
their request and answer components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.subscriptions.shapes import (DeliveryList, NewSubscription, Subscription, SubscriptionChange,
                                                SubscriptionList)

ANSWERS = (Subscription, SubscriptionList, DeliveryList)
REQUESTS = (NewSubscription, SubscriptionChange)
_ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    external = ("403", "forbidden, or external_recipients_off: an external address or a webhook where an "
                       "administrator has not allowed them")
    one = ("subscription_id",)
    return {
        "/subscriptions": {
            "get": op("List subscriptions", "subscriptions", result=_ref("SubscriptionList"), query={
                "target_kind": {"enum": ["dashboard", "question"]}, "target_id": _ID,
                "all": {"enum": ["true", "false"], "description": "Everyone's (administrators)."}}),
            "post": also(op("Subscribe to a dashboard or a question", "subscriptions", ok=201,
                            body=_json("NewSubscription"), result=_ref("Subscription")), external)},
        "/subscriptions/{subscription_id}": {
            "get": op("Get a subscription", "subscriptions", result=_ref("Subscription"), params=one),
            "patch": also(op("Change, pause or resume a subscription", "subscriptions", params=one,
                             body=_json("SubscriptionChange"), result=_ref("Subscription")), external),
            "delete": op("Delete a subscription", "subscriptions", ok=204, params=one)},
        "/subscriptions/{subscription_id}/deliveries": {
            "get": op("List a subscription's deliveries", "subscriptions", result=_ref("DeliveryList"), params=one)},
    }
