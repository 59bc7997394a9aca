"""Subscriptions as the API takes and answers them (bases: request_shapes.py, answer_shapes.py)."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from workbench_app.accounts.users import is_email_address
from workbench_app.answer_shapes import AnswerShape
from workbench_app.deliveries.schedules import Schedule
from workbench_app.request_shapes import Id, QueryFlag, QueryNumber, QueryShape, RequestShape, Text, WholeNumber, refused

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


class RecipientAccount(AnswerShape):
    """A person who can be picked as a recipient: name and e-mail, nothing more."""

    user_id: int
    display_name: str
    email: str


class RecipientAccountList(AnswerShape):
    accounts: list[RecipientAccount]
    """At most 10, by name."""


class ScheduleAnswer(AnswerShape):
    every: Literal["day", "week", "month"]
    hour: int
    minute: int
    weekday: int | None = None
    day: int | None = None
    timezone: str


class LastDelivery(AnswerShape):
    """The newest line of the delivery log."""

    recipient: str
    status: Literal["sending", "sent", "failed", "skipped"]
    error_code: str | None
    started_at: datetime


class _Sending(AnswerShape):
    """What a subscription and an alert both answer: whose, when, to whom."""

    owner_id: int
    owner_email: str | None
    """The owner's address (null once the account is gone)."""
    target_name: str | None
    """The dashboard's or the question's name (null once it was deleted)."""
    last_delivery: LastDelivery | None
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


# --- the mail server (Settings) ----------------------------------------------------------------------

Security = Literal["starttls", "tls", "none"]
_HOST = re.compile(r"^[A-Za-z0-9.\-:\[\]]{1,253}$")


def _host(value: str) -> str:
    if value.strip() and not _HOST.match(value.strip()):
        raise refused("host must be a host name or an IP address, without a scheme or a port.")
    return value


def _address(value: str) -> str:
    if value.strip() and not is_email_address(value):
        raise refused("from_address must be an e-mail address.")
    return value


class MailServerChange(RequestShape):
    """A field given replaces the stored one; null or "" clears it; `password` "" or null clears the
    password. A server with a host here replaces the environment's (`ANALYTICS_SMTP_*`) whole."""

    host: Annotated[Text(253), AfterValidator(_host)] | None = None
    port: WholeNumber(1, 65535) | None = None
    """Unset: 587 for STARTTLS, 465 for TLS, 25 without."""
    security: Security | None = None
    """starttls (submission, 587), tls (implicit, 465) or none (a relay on this machine: no password)."""
    username: Text(254) | None = None
    password: Text(1000) | None = Field(None, json_schema_extra={"writeOnly": True})
    from_address: Annotated[Text(254), AfterValidator(_address)] | None = None


class MailServerSettings(AnswerShape):
    enabled: bool
    """Whether mail can be sent (a host and a From address are known)."""
    source: Literal["settings", "environment", "none"]
    """Where the server comes from: this screen's settings, the environment's ANALYTICS_SMTP_*, or nowhere."""
    host: str | None
    port: int | None
    security: Security
    username: str | None
    password_set: bool
    """Whether a password is set (the password itself is never returned)."""
    from_address: str | None


class MailTestOutcome(AnswerShape):
    sent_to: str
    """The address the test message went to: the caller's own."""


class SubscriptionsQuery(QueryShape):
    target_kind: Literal["dashboard", "question"] = None
    target_id: QueryNumber() = None
    all: QueryFlag = "false"
    """Everyone's (administrators)."""


class AlertsQuery(QueryShape):
    question_id: QueryNumber() = None
    all: QueryFlag = "false"
    """Everyone's (administrators)."""


class RecipientAccountsQuery(QueryShape):
    search: Text(100) = None
    """Part of a name or e-mail address. Administrators find every active person; others themselves and
    the people who share a group with them. At most 10, name and e-mail only."""
