"""Subscriptions (a dashboard or a question sent on a schedule) and alerts (a question watched on a
schedule), with their delivery logs and a sending made now (workbench_app/subscriptions/); and the
mail server they go out through, as administrators set it in Settings."""
from __future__ import annotations

from datetime import datetime, timezone

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, require_admin, services
from workbench_app.deliveries.schedules import Schedule
from workbench_app.request_shapes import validated, validated_query
from workbench_app.subscriptions import mail_settings, sending, store
from workbench_app.subscriptions.shapes import (AlertChange, AlertsQuery, MailServerChange, NewAlert, NewSubscription,
                                                RecipientAccountsQuery, SubscriptionChange, SubscriptionsQuery)

blueprint = Blueprint("subscriptions", __name__)


def _body(shape):
    """The body as `shape`; its schedule checked first, so a refusal names the schedule's own field."""
    body = json_body()
    if isinstance(body.get("schedule"), dict):
        validated(Schedule, body["schedule"])
    return validated(shape, body)


@blueprint.get("/subscriptions")
def list_subscriptions():
    """The caller's subscriptions; `?all=true`, an administrator's list of everyone's."""
    query = validated_query(SubscriptionsQuery, request.args)
    with services().transaction() as conn:
        return jsonify({"subscriptions": store.list_subscriptions(
            conn, identity(), query.target_kind, query.target_id, query.all == "true")})


@blueprint.post("/subscriptions")
def create_subscription():
    fields = _body(NewSubscription)
    with services().transaction() as conn:
        return jsonify(store.create(conn, services().settings, identity(), fields)), 201


@blueprint.get("/recipient-accounts")
def recipient_accounts():
    """People the caller may pick as recipients, found by part of their name or e-mail."""
    search = validated_query(RecipientAccountsQuery, request.args).search or ""
    with services().transaction() as conn:
        return jsonify({"accounts": store.recipient_accounts(conn, identity(), search)})


@blueprint.get("/subscriptions/<subscription_id>")
def get_subscription(subscription_id):
    with services().transaction() as conn:
        return jsonify(store.get(conn, identity(), check.path_id(subscription_id, "Subscription")))


@blueprint.patch("/subscriptions/<subscription_id>")
def update_subscription(subscription_id):
    change = _body(SubscriptionChange)
    with services().transaction() as conn:
        return jsonify(store.update(conn, identity(), check.path_id(subscription_id, "Subscription"), change))


@blueprint.delete("/subscriptions/<subscription_id>")
def delete_subscription(subscription_id):
    with services().transaction() as conn:
        store.delete(conn, identity(), check.path_id(subscription_id, "Subscription"))
    return "", 204


@blueprint.get("/subscriptions/<subscription_id>/deliveries")
def subscription_deliveries(subscription_id):
    """The delivery log, newest first: when, to whom, status, error."""
    with services().transaction() as conn:
        return jsonify({"deliveries": store.deliveries(conn, identity(), check.path_id(subscription_id, "Subscription"))})


@blueprint.post("/subscriptions/<subscription_id>/send")
def send_subscription(subscription_id):
    """Send now to every recipient (logged like a scheduled sending, at this second)."""
    item_id = check.path_id(subscription_id, "Subscription")
    with services().transaction() as conn:
        store.get(conn, identity(), item_id)
    outcome = sending.deliver(services(), item_id, _now(), paused_too=True)
    return jsonify(_outcome(outcome))


@blueprint.get("/alerts")
def list_alerts():
    """The caller's alerts; `?all=true`, an administrator's list of everyone's."""
    query = validated_query(AlertsQuery, request.args)
    with services().transaction() as conn:
        return jsonify({"alerts": store.list_alerts(conn, identity(), query.question_id, query.all == "true")})


@blueprint.post("/alerts")
def create_alert():
    fields = _body(NewAlert)
    with services().transaction() as conn:
        return jsonify(store.create_alert(conn, services().settings, identity(), fields)), 201


@blueprint.get("/alerts/<alert_id>")
def get_alert(alert_id):
    with services().transaction() as conn:
        return jsonify(store.get_alert(conn, identity(), check.path_id(alert_id, "Alert")))


@blueprint.patch("/alerts/<alert_id>")
def update_alert(alert_id):
    change = _body(AlertChange)
    with services().transaction() as conn:
        return jsonify(store.update_alert(conn, identity(), check.path_id(alert_id, "Alert"), change))


@blueprint.delete("/alerts/<alert_id>")
def delete_alert(alert_id):
    with services().transaction() as conn:
        store.delete(conn, identity(), check.path_id(alert_id, "Alert"), store.ALERT)
    return "", 204


@blueprint.get("/alerts/<alert_id>/deliveries")
def alert_deliveries(alert_id):
    with services().transaction() as conn:
        return jsonify({"deliveries": store.deliveries(conn, identity(), check.path_id(alert_id, "Alert"), store.ALERT)})


@blueprint.post("/alerts/<alert_id>/check")
def check_alert(alert_id):
    """Check now; when it fires, send (a `once` alert then stops as after a scheduled check)."""
    item_id = check.path_id(alert_id, "Alert")
    with services().transaction() as conn:
        store.get_alert(conn, identity(), item_id)
    outcome = sending.check_alert(services(), item_id, _now(), paused_too=True)
    return jsonify(_outcome(outcome))


@blueprint.get("/settings/mail")
def read_mail_settings():
    require_admin()
    with services().transaction() as conn:
        return jsonify(mail_settings.describe(mail_settings.effective(conn, services().settings)))


@blueprint.patch("/settings/mail")
def update_mail_settings():
    actor = require_admin()
    given = validated(MailServerChange, json_body()).given()
    with services().transaction() as conn:
        return jsonify(mail_settings.describe(mail_settings.update(conn, services().settings, actor, given)))


@blueprint.delete("/settings/mail")
def clear_mail_settings():
    """Forget the server set here: the environment's ANALYTICS_SMTP_* server applies again."""
    actor = require_admin()
    with services().transaction() as conn:
        return jsonify(mail_settings.describe(mail_settings.clear(conn, services().settings, actor)))


@blueprint.post("/settings/mail/test")
def send_test_mail():
    """A test message to the caller's own address, through the server as it is set now."""
    actor = require_admin()
    with services().transaction() as conn:
        config = mail_settings.effective(conn, services().settings)
        address = conn.execute("select email from users where user_id = %s", (actor.user_id,)).fetchone()[0]
    mail_settings.send_test(config, address, actor.locale)
    return jsonify({"sent_to": address})


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


def _outcome(outcome: sending.Outcome) -> dict:
    return {"sent": outcome.sent, "failed": outcome.failed, "skipped": outcome.skipped, "fired": outcome.fired}
