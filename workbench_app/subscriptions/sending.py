"""Sending what is due: each subscription's report, and each alert that fires, to each recipient,
under that recipient's rights at sending time, once per due time.

`due` lists (id, due time) pairs a checker owes now (a stopped checker owes the latest missed time,
once). `deliver` sends a subscription's; `check_alert` evaluates an alert under its owner's rights
and, when it fires, sends. Every recipient's delivery is claimed in the delivery log before its
message goes out (workbench_app/deliveries/delivery_log.py), so a retry or a second checker never
sends a firing twice, and ends `sent`, `failed` or `skipped` with a reason. A recipient who may no
longer open the target is skipped and the owner is told; a deleted target pauses the subscription
or alert and tells the owner. One recipient's problem never stops the others: the caller (a Dagster
step) sees the counts.

What leaves the accounts (an external address, a webhook) is what a public link of the dashboard
shows, and nothing where there is none: a question has no public link, so an alert's webhook or
external address learns that the alert fired, with its link, and no figure.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from flask_babel import gettext
from psycopg.rows import dict_row

from pipelines.sealing import unseal
from workbench_app.accounts import users
from workbench_app.deliveries import delivery_log
from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.mail_messages import compose
from workbench_app.deliveries.mail_server import MailServer
from workbench_app.deliveries.schedules import Schedule
from workbench_app.deliveries.smtp_delivery import send_mail
from workbench_app.deliveries.webhook_delivery import post_webhook
from workbench_app.errors import WorkbenchError
from workbench_app.i18n import language
from workbench_app.records import audit_log
from workbench_app.services import WorkbenchServices
from workbench_app.subscriptions import alert_conditions, mail_settings, report_messages, store, unsubscribe
from workbench_app.subscriptions.report_content import (Audience, Report, dashboard_report, public_link_audience,
                                                        question_report)
from workbench_app.subscriptions.store import ALERT, SUBSCRIPTION, Kind

log = logging.getLogger(__name__)
ACTOR = "subscriptions"
WEBHOOK_RECIPIENT = "webhook"
CHECK = "check"  # the log entry of an alert's evaluation that could not be made


@dataclass
class Outcome:
    """What one due time came to: counts and each recipient's line."""

    sent: int = 0
    failed: int = 0
    skipped: int = 0
    fired: bool | None = None  # alerts: whether the condition held
    lines: list[str] = field(default_factory=list)

    def add(self, recipient: str, status: str, reason: str = "") -> None:
        setattr(self, status, getattr(self, status) + 1)
        self.lines.append(f"{recipient}: {status}" + (f" ({reason})" if reason else ""))


def due(services: WorkbenchServices, now: datetime, kind: Kind = SUBSCRIPTION) -> list[tuple[int, datetime]]:
    """(id, due time) of every live subscription (or alert) owed a check at `now`."""
    stopped = "and not (repeat = 'once' and fired_at is not null)" if kind is ALERT else ""
    with services.transaction() as conn:
        # A new one owes nothing from before it was made.
        rows = conn.execute(f"""select {kind.key}, schedule, greatest(last_due_at, created_at) from {kind.table}
                                 where paused_at is null {stopped} order by {kind.key}""").fetchall()
    owed = []
    for item_id, schedule, since in rows:
        due_at = Schedule.model_validate(schedule).owed(since, now)
        if due_at is not None:
            owed.append((item_id, due_at))
    return owed


def deliver(services: WorkbenchServices, subscription_id: int, due_at: datetime, *, paused_too: bool = False) -> Outcome:
    """Send the subscription's report for `due_at` to each recipient not yet served for it
    (`paused_too`: a person's "send now" sends a paused one too). Must run in an application
    context (the PDF is printed by the app's own page)."""
    outcome = Outcome()
    row = _row(services, SUBSCRIPTION, subscription_id)
    if row is None or (row["paused"] and not paused_too):
        return outcome
    if row["target_id"] is None:
        _target_deleted(services, SUBSCRIPTION, row, due_at, outcome)
    elif row["channel"] == "webhook":
        _to_webhook(services, SUBSCRIPTION, row, due_at, outcome,
                    lambda: _public_report(services, row, with_pdf=False), None)
    else:
        _to_recipients(services, SUBSCRIPTION, row, due_at, outcome, lambda audience: _report(services, row, audience),
                       None)
    _handled(services, SUBSCRIPTION, row, due_at, outcome)
    return outcome


def prepare(services: WorkbenchServices, subscription_id: int, due_at: datetime) -> None:
    """Make ahead the reports `deliver` will send by e-mail for `due_at` (workbench_app/subscriptions/
    made_ahead.py): only into the reuse cache, under their keys read now; nothing is claimed or sent,
    and `deliver` takes one only where its own key, read at sending time after the recipient's access
    check, is the same. A recipient already served for `due_at`, or who may not open the dashboard,
    gets nothing made. Must run in an application context."""
    row = _row(services, SUBSCRIPTION, subscription_id)
    if (row is None or row["paused"] or row["target_id"] is None or row["channel"] == "webhook"
            or row["target_kind"] != "dashboard"):
        return
    with services.transaction() as conn:
        served = delivery_log.served(conn, subscription_id=subscription_id, due_at=due_at)
        recipients = [(user_id, address) for _, user_id, address in _recipients(conn, SUBSCRIPTION, subscription_id)
                      if address not in served]
    public = False
    for user_id, _ in recipients:
        try:
            if user_id is None:
                if not public:  # the external recipients' one report
                    public = True
                    _public_report(services, row, with_pdf=True)
                continue
            with services.transaction() as conn:
                identity = users.active_identity(conn, user_id)
            if identity is not None:
                _report(services, row, Audience(identity))
        except (_Skip, WorkbenchError):
            continue  # its delivery finds the same reason and records it


def check_alert(services: WorkbenchServices, alert_id: int, due_at: datetime, *, paused_too: bool = False) -> Outcome:
    """Evaluate the alert for `due_at` under its owner's rights; when it fires, send to each recipient
    (an account sees the question's result under its own rights)."""
    outcome = Outcome()
    row = _row(services, ALERT, alert_id)
    if row is None or (row["paused"] and not paused_too) or (row["repeat"] == "once" and row["fired_at"] is not None):
        return outcome
    if row["question_id"] is None:
        _target_deleted(services, ALERT, row, due_at, outcome)
        _handled(services, ALERT, row, due_at, outcome)
        return outcome
    with services.transaction() as conn:
        owner = users.active_identity(conn, row["owner_id"])
    try:
        if owner is None:
            raise _Skip("owner_inactive", "The alert's owner's account is deactivated.")
        checked = question_report(services, owner, row["question_id"])
        value, fired = alert_conditions.evaluate(row, checked.cards[0])
    except (_Skip, WorkbenchError, alert_conditions.NoValue) as problem:
        _claimed(services, ALERT, row, CHECK, due_at, outcome, _raiser(problem))
        _handled(services, ALERT, row, due_at, outcome)
        return outcome
    outcome.fired = fired
    if fired:
        def reason(locale: str, shown: float | None) -> str:
            with language(locale):
                return alert_conditions.describe(row, shown)

        if row["channel"] == "webhook":
            # No figure leaves: the fact, the condition and the link.
            _to_webhook(services, ALERT, row, due_at, outcome,
                        lambda: Report(checked.title, "question", row["question_id"], ()), reason("en", None))
        else:
            _to_recipients(services, ALERT, row, due_at, outcome,
                           lambda audience: question_report(services, audience.identity, row["question_id"]), reason)
    _handled(services, ALERT, row, due_at, outcome, value=value, fired=fired)
    return outcome


# --- e-mail --------------------------------------------------------------------------------------

def _to_recipients(services: WorkbenchServices, kind: Kind, row: dict[str, Any], due_at: datetime, outcome: Outcome,
                   report_for: Callable[[Audience], Report], alert: Callable[[str, float | None], str] | None) -> None:
    settings = services.settings
    with services.transaction() as conn:
        server = mail_settings.mail_server(conn, settings)
        recipients = _recipients(conn, kind, row[kind.key])
    lost: list[str] = []
    public: list[Report] = []  # the external recipients' one report, computed once
    for recipient_id, user_id, address in recipients:

        def send(claim: delivery_log.Claim) -> None:
            if server is None:
                raise DeliveryFailed("mail_off", "No mail server is set (Settings, or ANALYTICS_SMTP_HOST and "
                                                 "ANALYTICS_SMTP_FROM).",
                                     retryable=False)
            if user_id is not None:
                report, locale = _account_report(services, kind, row, user_id, address, lost, report_for)
                link = report_messages.target_url(settings.workbench_address, report)
            elif kind is ALERT:
                report, locale, link = Report(row["name"], "question", row["question_id"], ()), "en", None
            else:
                if not public:
                    public.append(_public_report(services, row, with_pdf=True))
                report, locale, link = public[0], "en", None
            shown = alert_conditions.value_of(row, report.cards[0]) if alert and report.cards else None
            message = report_messages.email(
                sender=server.sender, recipient=address, locale=locale, name=row["name"], report=report,
                due_at=due_at, link=link, unsubscribe_url=unsubscribe.link(settings, recipient_id),
                alert=alert(locale, shown) if alert else None)
            _send(server, message, claim)

        _claimed(services, kind, row, address, due_at, outcome, send)
    if lost:
        _tell_owner(services, kind, row, due_at, lost)


def _recipients(conn, kind: Kind, item_id: int) -> list[tuple[int, int | None, str]]:
    """(recipient id, account or None, address) of each recipient still subscribed, in their order."""
    return conn.execute(
        f"""select r.recipient_id, r.user_id, coalesce(u.email, r.email) as email
              from delivery_recipients r left join users u using (user_id)
             where r.{kind.key} = %s and r.unsubscribed_at is null order by r.recipient_id""",
        (item_id,)).fetchall()


def _account_report(services: WorkbenchServices, kind: Kind, row: dict[str, Any], user_id: int, address: str,
                    lost: list[str], report_for: Callable[[Audience], Report]) -> tuple[Report, str]:
    with services.transaction() as conn:
        identity = users.active_identity(conn, user_id)
    if identity is None:
        lost.append(address)
        raise _Skip("recipient_inactive", "The recipient's account is deactivated.")
    try:
        return report_for(Audience(identity)), identity.locale
    except WorkbenchError as error:
        if error.status in (403, 404):
            lost.append(address)
            raise _Skip("no_access", f"The recipient may no longer open this {_target_noun(kind, row)}.") from None
        raise


def _public_report(services: WorkbenchServices, row: dict[str, Any], *, with_pdf: bool) -> Report:
    """What a public link of the dashboard shows: the only report sent outside the accounts."""
    _require_external(services)
    audience = public_link_audience(services, row["target_id"]) if row["target_kind"] == "dashboard" else None
    if audience is None:
        raise _Skip("no_public_link", "Outside the workbench's accounts, a report shows only what a public link "
                                      "of the dashboard shows, and it has none.")
    return _report(services, row, audience, with_pdf=with_pdf)


def _require_external(services: WorkbenchServices) -> None:
    with services.transaction() as conn:
        allowed = store.external_recipients_allowed(conn)
    if not allowed:
        raise _Skip("external_off", "Sending outside the workbench's accounts is turned off in Settings.")


def _report(services: WorkbenchServices, row: dict[str, Any], audience: Audience, *, with_pdf: bool = True) -> Report:
    if row["target_kind"] == "dashboard":
        return dashboard_report(services, audience, row["target_id"], row["filters"], with_pdf=with_pdf)
    return question_report(services, audience.identity, row["target_id"])


def _send(server: MailServer, message, claim: delivery_log.Claim) -> None:
    # The same Message-ID on every attempt of this firing for this recipient.
    del message["Message-ID"]
    message["Message-ID"] = f"<{claim.delivery_id}@analytics>"
    send_mail(server, message)


# --- webhook -------------------------------------------------------------------------------------

def _to_webhook(services: WorkbenchServices, kind: Kind, row: dict[str, Any], due_at: datetime, outcome: Outcome,
                report_of: Callable[[], Report], alert: str | None) -> None:
    settings = services.settings

    def send(claim: delivery_log.Claim) -> None:
        if kind is ALERT:  # a subscription's report checks it itself (_public_report)
            _require_external(services)
        report = report_of()
        link = report_messages.target_url(settings.workbench_address, report)
        body = report_messages.webhook_body(kind=kind.audit, source_id=row[kind.key], name=row["name"], report=report,
                                            due_at=due_at, link=link, delivery_id=str(claim.delivery_id),
                                            body_format=row["webhook_format"],
                                            extra={"message": alert} if alert else None)
        secret = unseal(store.webhook_key(settings), row["webhook_secret_sealed"], store.WEBHOOK_SECRET_PURPOSE)
        post_webhook(row["webhook_url"], body, secret, str(claim.delivery_id))

    _claimed(services, kind, row, WEBHOOK_RECIPIENT, due_at, outcome, send)


# --- the log -------------------------------------------------------------------------------------

class _Skip(Exception):
    """Nothing is sent to this recipient, by rule (not a failure to retry)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _raiser(problem: Exception) -> Callable[[delivery_log.Claim], None]:
    def send(_claim: delivery_log.Claim) -> None:
        raise problem
    return send


def _claimed(services: WorkbenchServices, kind: Kind, row: dict[str, Any], recipient: str, due_at: datetime,
             outcome: Outcome, send: Callable[[delivery_log.Claim], None]) -> None:
    """Claim this firing for this recipient, run `send`, and record how it ended."""
    with services.pool.connection() as conn:
        conn.autocommit = True
        claim = delivery_log.claim(conn, recipient=recipient, due_at=due_at, **{kind.key: row[kind.key]})
        if claim is None:
            return  # sent already, or another checker is sending it
        try:
            send(claim)
        except _Skip as skip:
            delivery_log.finish(conn, claim, "skipped", error_code=skip.code, error_message=skip.message)
            outcome.add(recipient, "skipped", skip.code)
        except (DeliveryFailed, WorkbenchError, alert_conditions.NoValue) as failure:
            delivery_log.finish(conn, claim, "failed", error_code=failure.code, error_message=failure.message)
            outcome.add(recipient, "failed", failure.code)
        except Exception:  # noqa: BLE001 - one recipient's fault must not stop the others
            log.exception("delivering %s %s to a recipient failed", kind.audit, row[kind.key])
            delivery_log.finish(conn, claim, "failed", error_code="internal_error",
                                error_message="The report could not be made: see the workbench's log.")
            outcome.add(recipient, "failed", "internal_error")
        else:
            delivery_log.finish(conn, claim, "sent")
            outcome.add(recipient, "sent")


def _handled(services: WorkbenchServices, kind: Kind, row: dict[str, Any], due_at: datetime, outcome: Outcome, *,
             value: float | None = None, fired: bool = False) -> None:
    """The due time is done: kept (and an alert's value and firing), and the audit log told."""
    extra = ""
    values: dict[str, Any] = {"id": row[kind.key], "due": due_at}
    if kind is ALERT:
        extra = ", last_value = coalesce(%(value)s, last_value), fired_at = case when %(fired)s then %(due)s else fired_at end"
        values.update(value=value, fired=fired)
    with services.transaction() as conn:
        conn.execute(f"""update {kind.table} set last_due_at = %(due)s {extra}
                          where {kind.key} = %(id)s and (last_due_at is null or last_due_at < %(due)s)""", values)
        details = {"due_at": due_at.isoformat(), "sent": outcome.sent, "failed": outcome.failed,
                   "skipped": outcome.skipped}
        if kind is ALERT:
            details.update(fired=fired, value=value)
        audit_log.record(conn, None, ACTOR, f"{kind.audit}.delivered", f"{kind.audit}:{row[kind.key]}", details)


def _target_deleted(services: WorkbenchServices, kind: Kind, row: dict[str, Any], due_at: datetime,
                    outcome: Outcome) -> None:
    noun = _target_noun(kind, row)
    _claimed(services, kind, row, "everyone", due_at, outcome,
             _raiser(_Skip("target_deleted", f"The {noun} was deleted: the {kind.audit} is paused.")))
    with services.transaction() as conn:
        conn.execute(f"update {kind.table} set paused_at = now() where {kind.key} = %s", (row[kind.key],))
    _tell_owner(services, kind, row, due_at, [])


def _tell_owner(services: WorkbenchServices, kind: Kind, row: dict[str, Any], due_at: datetime, lost: list[str]) -> None:
    """One notice to the owner per due time: who no longer receives it, or that its target is gone."""
    with services.transaction() as conn:
        server = mail_settings.mail_server(conn, services.settings)
        owner = users.active_identity(conn, row["owner_id"])
    if server is None or owner is None:
        return
    name = row["name"] or f"{kind.audit} {row[kind.key]}"
    with language(owner.locale):
        # Whole sentences per kind: "alert" and "subscription" differ in gender in French and Spanish.
        if kind is ALERT:
            subject = gettext("Your alert “%(name)s” needs attention", name=name)
        else:
            subject = gettext("Your subscription “%(name)s” needs attention", name=name)
        if lost:
            text = gettext("These recipients no longer receive it: they may no longer open what it sends, or their "
                           "account is deactivated: %(who)s.", who=", ".join(lost))
        elif kind is ALERT:
            text = gettext("The question it watches was deleted: the alert is paused.")
        else:
            text = gettext("What it sends was deleted: the subscription is paused.")

    def notify(claim: delivery_log.Claim) -> None:
        _send(server, compose(sender=server.sender, recipient=owner.email, subject=subject, text=text), claim)

    _claimed(services, kind, row, f"owner notice: {owner.email}", due_at, Outcome(), notify)


def _target_noun(kind: Kind, row: dict[str, Any]) -> str:
    return "question" if kind is ALERT else row["target_kind"]


def _row(services: WorkbenchServices, kind: Kind, item_id: int) -> dict[str, Any] | None:
    with services.transaction() as conn:
        with conn.cursor(row_factory=dict_row) as cur:
            return cur.execute(f"select {kind.columns}, webhook_secret_sealed from {kind.table} where {kind.key} = %s",
                               (item_id,)).fetchone()
