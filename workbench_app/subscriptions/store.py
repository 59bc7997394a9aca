"""Subscriptions kept in the workbench database: who may see and change them, and what they hold.

A subscription belongs to its owner, who must be able to read its dashboard or question; an
administrator sees and changes every one. Recipients are accounts (named by id, or by an address
that is an account's) or, where an administrator allows external recipients, other addresses; a
webhook subscription also needs that allowance. Whether each recipient may still see the target
is checked at sending time, under that recipient's rights (the delivery log says when not).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pipelines.key_derivation import derive_key
from pipelines.sealing import seal
from pipelines.settings import Settings
from workbench_app.accounts import instance_settings, users
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, questions
from workbench_app.deliveries.delivery_errors import DeliveryFailed
from workbench_app.deliveries.delivery_log import log_of
from workbench_app.deliveries.schedules import Schedule
from workbench_app.deliveries.webhook_delivery import check_webhook_url
from workbench_app.errors import WorkbenchError, invalid, not_found
from workbench_app.records import audit_log
from workbench_app.subscriptions.shapes import (MAX_RECIPIENTS, AlertChange, NewAlert, NewSubscription, Recipient,
                                                SubscriptionChange)

WEBHOOK_SECRET_PURPOSE = "workbench-subscription-webhook-secret"
COLUMNS = ("subscription_id, owner_id, target_kind, coalesce(dashboard_id, question_id) as target_id, name, "
           "schedule, filters, channel, webhook_url, webhook_format, paused_at is not null as paused, "
           "last_due_at, created_at, updated_at")
ALERT_COLUMNS = ("alert_id, owner_id, question_id, name, schedule, condition, value_column, threshold, repeat, channel, "
                 "webhook_url, webhook_format, paused_at is not null as paused, last_due_at, last_value, fired_at, "
                 "created_at, updated_at")


@dataclass(frozen=True)
class Kind:
    """What differs between a subscription and an alert in how they are kept."""

    table: str
    key: str  # its id column, also the column of its recipients and deliveries
    columns: str
    noun: str  # in refusals: "Subscription not found."
    audit: str  # the audit log's action prefix and target


SUBSCRIPTION = Kind("subscriptions", "subscription_id", COLUMNS, "Subscription", "subscription")
ALERT = Kind("alerts", "alert_id", ALERT_COLUMNS, "Alert", "alert")


def create(conn: psycopg.Connection, settings: Settings, identity: Identity, fields: NewSubscription) -> dict[str, Any]:
    _check_schedule(fields.schedule)
    _readable_target(conn, identity, fields.target_kind, fields.target_id)
    recipients = _recipients(conn, fields.channel, fields.recipients)
    webhook_secret, sealed = _webhook_secret(conn, settings, fields.channel, fields.webhook_url)
    target_column = "dashboard_id" if fields.target_kind == "dashboard" else "question_id"
    subscription_id = conn.execute(
        f"""insert into subscriptions (owner_id, target_kind, {target_column}, name, schedule, filters, channel,
                                       webhook_url, webhook_format, webhook_secret_sealed)
            values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) returning subscription_id""",
        (identity.user_id, fields.target_kind, fields.target_id, fields.name, Jsonb(fields.schedule.stored()),
         Jsonb(fields.filters), fields.channel, fields.webhook_url, fields.webhook_format, sealed)).fetchone()[0]
    _replace_recipients(conn, SUBSCRIPTION, subscription_id, recipients)
    audit_log.record(conn, identity.user_id, identity.actor, "subscription.created", f"subscription:{subscription_id}",
                     {"target": f"{fields.target_kind}:{fields.target_id}", "channel": fields.channel,
                      "recipients": len(recipients)})
    answer = get(conn, identity, subscription_id)
    if webhook_secret:
        answer["webhook_secret"] = webhook_secret
    return answer


def create_alert(conn: psycopg.Connection, settings: Settings, identity: Identity, fields: NewAlert) -> dict[str, Any]:
    _check_schedule(fields.schedule)
    _check_condition(fields.condition, fields.value_column, fields.threshold)
    questions.get_question(conn, identity, fields.question_id)
    recipients = _recipients(conn, fields.channel, fields.recipients)
    webhook_secret, sealed = _webhook_secret(conn, settings, fields.channel, fields.webhook_url)
    alert_id = conn.execute(
        """insert into alerts (owner_id, question_id, name, schedule, condition, value_column, threshold, repeat,
                               channel, webhook_url, webhook_format, webhook_secret_sealed)
           values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) returning alert_id""",
        (identity.user_id, fields.question_id, fields.name, Jsonb(fields.schedule.stored()), fields.condition,
         fields.value_column, fields.threshold, fields.repeat, fields.channel, fields.webhook_url,
         fields.webhook_format, sealed)).fetchone()[0]
    _replace_recipients(conn, ALERT, alert_id, recipients)
    audit_log.record(conn, identity.user_id, identity.actor, "alert.created", f"alert:{alert_id}",
                     {"question": fields.question_id, "condition": fields.condition, "channel": fields.channel,
                      "recipients": len(recipients)})
    answer = get_alert(conn, identity, alert_id)
    if webhook_secret:
        answer["webhook_secret"] = webhook_secret
    return answer


def list_subscriptions(conn: psycopg.Connection, identity: Identity, target_kind: str | None = None,
                       target_id: int | None = None, everyone: bool = False) -> list[dict[str, Any]]:
    """The person's subscriptions (`everyone`: an administrator's list of all), optionally of one target."""
    _check_everyone(identity, everyone, "Only administrators list everyone's subscriptions.")
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""select {COLUMNS} from subscriptions
                 where (%(everyone)s or owner_id = %(owner)s)
                   and (%(kind)s::text is null or target_kind = %(kind)s)
                   and (%(target)s::bigint is null or coalesce(dashboard_id, question_id) = %(target)s)
                 order by subscription_id""",
            {"everyone": everyone, "owner": identity.user_id, "kind": target_kind, "target": target_id}).fetchall()
    return _with_recipients(conn, SUBSCRIPTION, rows)


def list_alerts(conn: psycopg.Connection, identity: Identity, question_id: int | None = None,
                everyone: bool = False) -> list[dict[str, Any]]:
    _check_everyone(identity, everyone, "Only administrators list everyone's alerts.")
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            f"""select {ALERT_COLUMNS} from alerts
                 where (%(everyone)s or owner_id = %(owner)s)
                   and (%(question)s::bigint is null or question_id = %(question)s)
                 order by alert_id""",
            {"everyone": everyone, "owner": identity.user_id, "question": question_id}).fetchall()
    return _with_recipients(conn, ALERT, rows)


def get(conn: psycopg.Connection, identity: Identity, subscription_id: int) -> dict[str, Any]:
    return _with_recipients(conn, SUBSCRIPTION, [_own(conn, identity, SUBSCRIPTION, subscription_id)])[0]


def get_alert(conn: psycopg.Connection, identity: Identity, alert_id: int) -> dict[str, Any]:
    return _with_recipients(conn, ALERT, [_own(conn, identity, ALERT, alert_id)])[0]


def update(conn: psycopg.Connection, identity: Identity, subscription_id: int,
           change: SubscriptionChange) -> dict[str, Any]:
    row = _own(conn, identity, SUBSCRIPTION, subscription_id)
    sets = _common_changes(conn, row, change)
    if change.filters is not None:
        sets["filters"] = Jsonb(change.filters)
    _apply(conn, identity, SUBSCRIPTION, row, change, sets)
    return get(conn, identity, subscription_id)


def update_alert(conn: psycopg.Connection, identity: Identity, alert_id: int, change: AlertChange) -> dict[str, Any]:
    row = _own(conn, identity, ALERT, alert_id)
    sets = _common_changes(conn, row, change)
    given = change.model_fields_set
    condition = {field: getattr(change, field) if field in given else row[field]
                 for field in ("condition", "value_column", "threshold")}
    if given & set(condition):
        _check_condition(condition["condition"], condition["value_column"], condition["threshold"])
        sets.update(condition)
        sets["last_value"] = None  # a new condition starts from a new first check
    if change.repeat is not None:
        sets["repeat"] = change.repeat
    if change.repeat is not None or given & set(condition):
        sets["fired_at"] = None  # a `once` alert changed is armed again
    _apply(conn, identity, ALERT, row, change, sets)
    return get_alert(conn, identity, alert_id)


def delete(conn: psycopg.Connection, identity: Identity, subscription_id: int, kind: Kind | None = None) -> None:
    kind = kind or SUBSCRIPTION
    _own(conn, identity, kind, subscription_id)
    conn.execute(f"delete from {kind.table} where {kind.key} = %s", (subscription_id,))
    audit_log.record(conn, identity.user_id, identity.actor, f"{kind.audit}.deleted", f"{kind.audit}:{subscription_id}")


def deliveries(conn: psycopg.Connection, identity: Identity, subscription_id: int,
               kind: Kind | None = None) -> list[dict[str, Any]]:
    kind = kind or SUBSCRIPTION
    _own(conn, identity, kind, subscription_id)
    return [{**entry, "delivery_id": str(entry["delivery_id"])}
            for entry in log_of(conn, **{kind.key: subscription_id})]


RECIPIENT_MATCHES = 10


def recipient_accounts(conn: psycopg.Connection, identity: Identity, search: str) -> list[dict[str, Any]]:
    """The people the caller may pick as recipients whose name or e-mail holds `search`, name and
    e-mail only, at most RECIPIENT_MATCHES: any active person for an administrator; otherwise the
    caller and the active people who share a group with them (the whole list of people stays an
    administrator's; an address typed in full still reaches any account)."""
    search = search.strip()
    if not search:
        return []
    pattern = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """select user_id, coalesce(display_name, '') as display_name, email from users u
                where kind = 'person' and is_active
                  and (coalesce(display_name, '') ilike %(pattern)s or email ilike %(pattern)s)
                  and (%(admin)s or user_id = %(me)s or exists (
                       select 1 from group_members mine join group_members theirs using (group_id)
                        where mine.user_id = %(me)s and theirs.user_id = u.user_id))
                order by lower(coalesce(nullif(display_name, ''), email)), user_id
                limit %(limit)s""",
            {"pattern": pattern, "admin": identity.is_admin, "me": identity.user_id, "limit": RECIPIENT_MATCHES},
        ).fetchall()


def external_recipients_allowed(conn: psycopg.Connection) -> bool:
    return bool(instance_settings.sharing(conn)["external_recipients"])


# --- checks ------------------------------------------------------------------------------------

def _own(conn: psycopg.Connection, identity: Identity, kind: Kind, item_id: int) -> dict[str, Any]:
    """The row, when the person owns it or is an administrator (404 otherwise)."""
    with conn.cursor(row_factory=dict_row) as cur:
        row = cur.execute(f"select {kind.columns} from {kind.table} where {kind.key} = %s", (item_id,)).fetchone()
    if row is None or not (identity.is_admin or row["owner_id"] == identity.user_id):
        raise not_found(kind.noun)
    return row


def _check_everyone(identity: Identity, everyone: bool, refusal: str) -> None:
    if everyone and not identity.is_admin:
        raise WorkbenchError(403, "forbidden", refusal)


def _check_schedule(schedule: Schedule) -> None:
    problems = schedule.problems()
    if problems:
        field, message = problems[0]
        raise invalid(message, field=f"schedule.{field}")


def _check_condition(condition: str, value_column: str | None, threshold: float | None) -> None:
    if condition == "has_rows":
        if value_column is not None or threshold is not None:
            raise invalid("An alert on rows takes no value_column nor threshold.", field="condition")
        return
    if value_column is None:
        raise invalid("value_column names the watched number's column.", field="value_column")
    if threshold is None or threshold != threshold or threshold in (float("inf"), float("-inf")):
        raise invalid("threshold is the number the watched value is compared with.", field="threshold")
    if condition == "changes_by" and threshold <= 0:
        raise invalid("A change is watched by a percentage above 0.", field="threshold")


def _readable_target(conn: psycopg.Connection, identity: Identity, kind: str, target_id: int) -> None:
    """The owner must be able to read what they subscribe to (404 as when opening it)."""
    if kind == "dashboard":
        dashboards.get_dashboard(conn, identity, target_id)
    else:
        questions.get_question(conn, identity, target_id)


def _webhook_secret(conn: psycopg.Connection, settings: Settings, channel: str,
                    url: str | None) -> tuple[str | None, str | None]:
    """(the new webhook's signing key, shown once; its sealed form, kept) or (None, None) for e-mail."""
    if channel != "webhook":
        if url is not None:
            raise invalid("webhook_url is only for a webhook subscription.", field="webhook_url")
        return None, None
    _check_webhook(conn, url)
    secret = "whsec_" + secrets.token_urlsafe(32)
    return secret, seal(webhook_key(settings), secret, WEBHOOK_SECRET_PURPOSE)


def _check_webhook(conn: psycopg.Connection, url: str | None) -> None:
    if url is None:
        raise invalid("webhook_url is required for a webhook subscription.", field="webhook_url")
    try:
        check_webhook_url(url)
    except DeliveryFailed:
        raise invalid("webhook_url must be an http:// or https:// URL with a host.", field="webhook_url") from None
    if not external_recipients_allowed(conn):
        raise _external_off()


def _external_off() -> WorkbenchError:
    return WorkbenchError(403, "external_recipients_off", "Sending outside the workbench's accounts is not allowed: "
                                                         "an administrator can allow it in Settings.")


def _common_changes(conn: psycopg.Connection, row: dict[str, Any],
                    change: SubscriptionChange | AlertChange) -> dict[str, Any]:
    """The columns a change of either kind sets: name, schedule, webhook, pause."""
    sets: dict[str, Any] = {}
    if "name" in change.model_fields_set:
        sets["name"] = change.name
    if change.schedule is not None:
        _check_schedule(change.schedule)
        sets["schedule"] = Jsonb(change.schedule.stored())
    if change.webhook_format is not None:
        sets["webhook_format"] = change.webhook_format
    if change.webhook_url is not None:
        if row["channel"] != "webhook":
            raise invalid("webhook_url is only for a webhook subscription.", field="webhook_url")
        _check_webhook(conn, change.webhook_url)
        sets["webhook_url"] = change.webhook_url
    if change.paused is not None:
        sets["paused_at"] = datetime.now(timezone.utc) if change.paused else None
        if not change.paused and row["paused"]:
            # Resumed: what fell due during the pause is not sent now, the next due time is.
            sets["last_due_at"] = datetime.now(timezone.utc)
    return sets


def _apply(conn: psycopg.Connection, identity: Identity, kind: Kind, row: dict[str, Any],
           change: SubscriptionChange | AlertChange, sets: dict[str, Any]) -> None:
    item_id = row[kind.key]
    recipients = _recipients(conn, row["channel"], change.recipients) if change.recipients is not None else None
    if sets:
        assignments = ", ".join(f"{column} = %({column})s" for column in sets)
        conn.execute(f"update {kind.table} set {assignments}, updated_at = now() where {kind.key} = %(id)s",
                     {**sets, "id": item_id})
    if recipients is not None:
        _replace_recipients(conn, kind, item_id, recipients)
    audit_log.record(conn, identity.user_id, identity.actor, f"{kind.audit}.changed", f"{kind.audit}:{item_id}",
                     {"fields": sorted(change.model_fields_set)})


def _recipients(conn: psycopg.Connection, channel: str, given: list[Recipient]) -> list[tuple[int | None, str | None]]:
    """(user_id, external address) of each recipient, each once, checked."""
    if channel == "webhook":
        if given:
            raise invalid("A webhook subscription has no recipients: its address receives it.", field="recipients")
        return []
    if not given:
        raise invalid("recipients must name at least one account or address.", field="recipients")
    if len(given) > MAX_RECIPIENTS:
        raise invalid(f"recipients may name at most {MAX_RECIPIENTS} accounts or addresses.", field="recipients")
    found: list[tuple[int | None, str | None]] = []
    for recipient in given:
        if (recipient.user_id is None) == (recipient.email is None):
            raise invalid("Each recipient names one of user_id or email.", field="recipients")
        if recipient.user_id is not None:
            if conn.execute("select 1 from users where user_id = %s and is_active", (recipient.user_id,)).fetchone() is None:
                raise invalid("No active account has this user_id.", field="recipients", user_id=recipient.user_id)
            entry = (recipient.user_id, None)
        else:
            address = recipient.email.strip()
            if not users.is_email_address(address):
                raise invalid("email must be an e-mail address.", field="recipients")
            account = conn.execute("select user_id from users where lower(email) = lower(%s) and is_active",
                                   (address,)).fetchone()
            entry = (account[0], None) if account else (None, address)
        if entry not in found:
            found.append(entry)
    if any(user_id is None for user_id, _ in found) and not external_recipients_allowed(conn):
        raise _external_off()
    return found


def _replace_recipients(conn: psycopg.Connection, kind: Kind, item_id: int,
                        recipients: list[tuple[int | None, str | None]]) -> None:
    """The new list; a recipient kept keeps its row (and so its unsubscription)."""
    kept = [user_id for user_id, _ in recipients if user_id is not None]
    addresses = [email.lower() for _, email in recipients if email is not None]
    conn.execute(f"""delete from delivery_recipients where {kind.key} = %s
                      and not (user_id = any(%s) or lower(email) = any(%s))""", (item_id, kept, addresses))
    for user_id, email in recipients:
        conn.execute(f"""insert into delivery_recipients ({kind.key}, user_id, email) values (%s, %s, %s)
                         on conflict do nothing""", (item_id, user_id, email))


def _with_recipients(conn: psycopg.Connection, kind: Kind, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    ids = [row[kind.key] for row in rows]
    with conn.cursor(row_factory=dict_row) as cur:
        recipients = cur.execute(
            f"""select r.{kind.key} as owner_key, r.recipient_id, r.user_id, coalesce(u.email, r.email) as email,
                       r.user_id is null as external, r.unsubscribed_at is not null as unsubscribed
                  from delivery_recipients r left join users u using (user_id)
                 where r.{kind.key} = any(%s) order by r.recipient_id""", (ids,)).fetchall()
    owners, names, last = _owners(conn, rows), _target_names(conn, kind, rows), _last_deliveries(conn, kind, ids)
    now = datetime.now(timezone.utc)
    for row in rows:
        row["recipients"] = [{k: v for k, v in r.items() if k != "owner_key"}
                             for r in recipients if r["owner_key"] == row[kind.key]]
        row["owner_email"] = owners.get(row["owner_id"])
        row["last_delivery"] = last.get(row[kind.key])
        schedule = Schedule.model_validate(row["schedule"])
        row["schedule"] = schedule.model_dump()
        target = row["target_id"] if kind is SUBSCRIPTION else row["question_id"]
        target_kind = row["target_kind"] if kind is SUBSCRIPTION else "question"
        row["target_name"] = names.get((target_kind, target))
        stopped = kind is ALERT and row["repeat"] == "once" and row["fired_at"] is not None
        row["next_due_at"] = None if row["paused"] or target is None or stopped else schedule.next_after(now)
    return rows


def _owners(conn: psycopg.Connection, rows: list[dict[str, Any]]) -> dict[int, str]:
    found = conn.execute("select user_id, email from users where user_id = any(%s)",
                         ([row["owner_id"] for row in rows],)).fetchall()
    return dict(found)


def _target_names(conn: psycopg.Connection, kind: Kind, rows: list[dict[str, Any]]) -> dict[tuple[str, int], str]:
    """(kind, id) -> name of the dashboards and questions the rows send or watch."""
    wanted = {"dashboard": [], "question": []}
    for row in rows:
        target = row["target_id"] if kind is SUBSCRIPTION else row["question_id"]
        if target is not None:
            wanted[row["target_kind"] if kind is SUBSCRIPTION else "question"].append(target)
    names = {("dashboard", item_id): name for item_id, name in conn.execute(
        "select dashboard_id, name from dashboards where dashboard_id = any(%s)", (wanted["dashboard"],)).fetchall()}
    names.update({("question", item_id): name for item_id, name in conn.execute(
        "select question_id, name from questions where question_id = any(%s)", (wanted["question"],)).fetchall()})
    return names


def _last_deliveries(conn: psycopg.Connection, kind: Kind, ids: list[int]) -> dict[int, dict[str, Any]]:
    """The newest line of each one's delivery log."""
    with conn.cursor(row_factory=dict_row) as cur:
        found = cur.execute(
            f"""select distinct on ({kind.key}) {kind.key} as owner_key, recipient, status, error_code, started_at
                  from deliveries where {kind.key} = any(%s)
                 order by {kind.key}, started_at desc, due_at desc""", (ids,)).fetchall()
    return {entry.pop("owner_key"): entry for entry in found}


def webhook_key(settings: Settings) -> bytes:
    return derive_key(settings.server_secret(), WEBHOOK_SECRET_PURPOSE)
