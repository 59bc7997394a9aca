"""Subscriptions: a dashboard or a question sent on a schedule (workbench_app/subscriptions/)."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, services
from workbench_app.deliveries.schedules import Schedule
from workbench_app.request_shapes import validated
from workbench_app.subscriptions import store
from workbench_app.subscriptions.shapes import NewSubscription, SubscriptionChange

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
    kind = check.query_choice(request.args, "target_kind", ("dashboard", "question"))
    target = check.single_query_value(request.args, "target_id")
    everyone = check.query_choice(request.args, "all", ("true", "false")) == "true"
    with services().transaction() as conn:
        return jsonify({"subscriptions": store.list_subscriptions(
            conn, identity(), kind, check.path_id(target, "Target") if target is not None else None, everyone)})


@blueprint.post("/subscriptions")
def create_subscription():
    fields = _body(NewSubscription)
    with services().transaction() as conn:
        return jsonify(store.create(conn, services().settings, identity(), fields)), 201


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
