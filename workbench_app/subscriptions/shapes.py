"""Subscriptions as the API takes and answers them (bases: request_shapes.py, answer_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from workbench_app.answer_shapes import AnswerShape
from workbench_app.deliveries.schedules import Schedule
from workbench_app.request_shapes import Id, RequestShape, Text

MAX_RECIPIENTS = 50
TargetKind = Literal["dashboard", "question"]
Channel = Literal["email", "webhook"]
WebhookFormat = Literal["json", "slack"]


class Recipient(RequestShape):
    """One of: `user_id`, a workbench account, which receives what its own rights show at sending
    time; or `email`, an address (an account's counts as that account; an external one, where an
    administrator allows them, receives what a public link would show)."""

    user_id: Id | None = None
    email: Text(254) | None = None


class _NewSending(RequestShape):
    """What a subscription and an alert both take: when, and to whom."""

    name: Text(100) = ""
    schedule: Schedule
    channel: Channel = "email"
    recipients: list[Recipient] = []
    """For e-mail: at most 50, each account or address once."""
    webhook_url: Text(2000) | None = None
    webhook_format: WebhookFormat = "json"


class _SendingChange(RequestShape):
    name: Text(100) = ""
    schedule: Schedule | None = None
    recipients: list[Recipient] | None = None
    webhook_url: Text(2000) | None = None
    webhook_format: WebhookFormat | None = None
    paused: bool | None = None


class NewSubscription(_NewSending):
    target_kind: TargetKind
    target_id: Id
    """The dashboard's or the question's id; its owner must be able to read it."""
    filters: dict[str, Text(500)] = {}
    """A dashboard's filter values for this subscription, by filter id or name."""


class SubscriptionChange(_SendingChange):
    """Any of the fields; `recipients` replaces the list whole."""

    filters: dict[str, Text(500)] | None = None


class SubscriptionRecipient(AnswerShape):
    recipient_id: int
    user_id: int | None
    email: str
    """The account's address, or the external one."""
    external: bool
    unsubscribed: bool


class ScheduleAnswer(AnswerShape):
    every: Literal["day", "week", "month"]
    hour: int
    minute: int
    weekday: int | None = None
    day: int | None = None
    timezone: str


class _Sending(AnswerShape):
    """What a subscription and an alert both answer: whose, when, to whom."""

    owner_id: int
    name: str
    schedule: ScheduleAnswer
    channel: Channel
    recipients: list[SubscriptionRecipient]
    webhook_url: str | None
    webhook_format: WebhookFormat
    paused: bool
    next_due_at: datetime | None
    """The next sending or check, in UTC (null while paused, without a target, or after a `once` alert fired)."""
    last_due_at: datetime | None
    created_at: datetime
    updated_at: datetime
    webhook_secret: str | None = None
    """Only in the answer that creates a webhook subscription or alert: the key that signs its bodies, shown once."""


class Subscription(_Sending):
    subscription_id: int
    target_kind: TargetKind
    target_id: int | None
    """Null once the dashboard or question was deleted (the subscription then sends nothing)."""
    filters: dict[str, str]


class SubscriptionList(AnswerShape):
    subscriptions: list[Subscription]


class Delivery(AnswerShape):
    delivery_id: str
    recipient: str
    due_at: datetime
    status: Literal["sending", "sent", "failed", "skipped"]
    error_code: str | None
    error_message: str | None
    attempts: int
    started_at: datetime
    finished_at: datetime | None


class DeliveryList(AnswerShape):
    deliveries: list[Delivery]


# --- alerts ----------------------------------------------------------------------------------------

Condition = Literal["has_rows", "above", "below", "changes_by"]
Repeat = Literal["once", "every_time"]


class NewAlert(_NewSending):
    question_id: Id
    """The question watched; its owner must be able to read it."""
    condition: Condition
    """has_rows: the result has rows; above / below: `value_column` of the first row crosses
    `threshold`; changes_by: it moved by more than `threshold` percent since the previous check."""
    value_column: Text(200) | None = None
    threshold: float | None = None
    repeat: Repeat = "every_time"
    """once: the alert stops after its first firing; every_time: each check that meets the condition."""


class AlertChange(_SendingChange):
    """Any of the fields; `recipients` replaces the list whole; the condition's three fields are
    checked together as they will be."""

    condition: Condition | None = None
    value_column: Text(200) | None = None
    threshold: float | None = None
    repeat: Repeat | None = None


class Alert(_Sending):
    alert_id: int
    question_id: int | None
    """Null once the question was deleted (the alert then checks nothing)."""
    condition: Condition
    value_column: str | None
    threshold: float | None
    repeat: Repeat
    last_value: float | None
    """The watched number at the last check."""
    fired_at: datetime | None


class AlertList(AnswerShape):
    alerts: list[Alert]


class SendingOutcome(AnswerShape):
    """What a sending made now came to (the delivery log has each recipient's line)."""

    sent: int
    failed: int
    skipped: int
    fired: bool | None = None
    """For an alert: whether its condition held."""
