"""The subscriptions' part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in);
their request and answer components come from the models of `shapes.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.request_shapes import query_parameters
from workbench_app.subscriptions.shapes import (Alert, AlertChange, AlertList, DeliveryList, MailServerChange,
                                                MailServerSettings, MailTestOutcome, NewAlert, NewSubscription,
                                                RecipientAccountList, RecipientAccountsQuery, SendingOutcome,
                                                Subscription, SubscriptionChange, SubscriptionList, SubscriptionsQuery,
                                                AlertsQuery)

ANSWERS = (Subscription, SubscriptionList, DeliveryList, Alert, AlertList, SendingOutcome, MailServerSettings,
           MailTestOutcome, RecipientAccountList)
REQUESTS = (NewSubscription, SubscriptionChange, NewAlert, AlertChange, MailServerChange)


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    external = ("403", "forbidden, or external_recipients_off: an external address or a webhook where an "
                       "administrator has not allowed them")
    one = ("subscription_id",)
    alert = ("alert_id",)
    return {
        "/subscriptions": {
            "get": op("List subscriptions", "subscriptions", result=_ref("SubscriptionList"), query=query_parameters(SubscriptionsQuery)),
            "post": also(op("Subscribe to a dashboard or a question", "subscriptions", ok=201,
                            body=model_body(NewSubscription), result=_ref("Subscription")), external)},
        "/subscriptions/{subscription_id}": {
            "get": op("Get a subscription", "subscriptions", result=_ref("Subscription"), params=one),
            "patch": also(op("Change, pause or resume a subscription", "subscriptions", params=one,
                             body=model_body(SubscriptionChange), result=_ref("Subscription")), external),
            "delete": op("Delete a subscription", "subscriptions", ok=204, params=one)},
        "/subscriptions/{subscription_id}/deliveries": {
            "get": op("List a subscription's deliveries", "subscriptions", result=_ref("DeliveryList"), params=one)},
        "/subscriptions/{subscription_id}/send": {
            "post": op("Send a subscription now, to every recipient", "subscriptions", params=one,
                       result=_ref("SendingOutcome"))},
        "/recipient-accounts": {
            "get": op("Find accounts to send to", "subscriptions", result=_ref("RecipientAccountList"),
                   query=query_parameters(RecipientAccountsQuery))},
        "/alerts": {
            "get": op("List alerts", "subscriptions", result=_ref("AlertList"), query=query_parameters(AlertsQuery)),
            "post": also(op("Watch a question", "subscriptions", ok=201, body=model_body(NewAlert), result=_ref("Alert")),
                         external)},
        "/alerts/{alert_id}": {
            "get": op("Get an alert", "subscriptions", result=_ref("Alert"), params=alert),
            "patch": also(op("Change, pause or resume an alert", "subscriptions", params=alert,
                             body=model_body(AlertChange), result=_ref("Alert")), external),
            "delete": op("Delete an alert", "subscriptions", ok=204, params=alert)},
        "/alerts/{alert_id}/deliveries": {
            "get": op("List an alert's checks and deliveries", "subscriptions", result=_ref("DeliveryList"),
                      params=alert)},
        "/alerts/{alert_id}/check": {
            "post": op("Check an alert now (and send if it fires)", "subscriptions", params=alert,
                       result=_ref("SendingOutcome"))},
        "/settings/mail": {
            "get": op("Get the mail server settings", "settings", result=_ref("MailServerSettings")),
            "patch": op("Update the mail server settings", "settings", body=model_body(MailServerChange),
                        result=_ref("MailServerSettings")),
            "delete": op("Clear the mail server settings", "settings", result=_ref("MailServerSettings"))},
        "/settings/mail/test": {
            "post": also(op("Send a test message to yourself", "settings", result=_ref("MailTestOutcome")),
                         ("502", "mail_failed: the mail server refused or could not be reached (details.reason)"))},
    }
