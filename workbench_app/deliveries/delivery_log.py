"""The log of deliveries, which is also what makes each firing reach each recipient once.

Before a message goes out, its row is claimed: written as `sending` (or taken over when an earlier
attempt failed, or crashed and left it `sending` past the lease). Whoever holds the claim sends
under the row's delivery id, then records `sent`, `failed` or `skipped`. A second checker (a retry
beside the run that is still sending) finds the row claimed and sends nothing; a row `sent` or
`skipped` is never claimed again.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import psycopg
from psycopg.rows import dict_row

# How long a `sending` row belongs to the process that claimed it: past this, that process is
# taken to have died (a delivery waits at most for the SMTP timeout and the webhook's backoff).
LEASE = timedelta(minutes=10)
FINAL = ("sent", "skipped")


@dataclass(frozen=True)
class Claim:
    delivery_id: uuid.UUID
    attempt: int  # 1 for the first try of this firing for this recipient


def claim(conn: psycopg.Connection, *, recipient: str, due_at: datetime, subscription_id: int | None = None,
          alert_id: int | None = None) -> Claim | None:
    """The claim on delivering this firing to this recipient, or None when it is done or another
    process holds it. `conn` is in autocommit mode (the claim must be visible at once)."""
    if (subscription_id is None) == (alert_id is None):
        raise ValueError("a delivery belongs to one subscription or one alert")
    row = conn.execute(
        """insert into deliveries (delivery_id, subscription_id, alert_id, recipient, due_at, status, attempts)
           values (%s, %s, %s, %s, %s, 'sending', 1)
           on conflict do nothing
           returning delivery_id, attempts""",
        (uuid.uuid4(), subscription_id, alert_id, recipient, due_at)).fetchone()
    if row:
        return Claim(row[0], row[1])
    # Taken over only when the earlier attempt failed, or its process stopped holding it.
    row = conn.execute(
        """update deliveries
              set status = 'sending', attempts = attempts + 1, started_at = now(), finished_at = null,
                  error_code = null, error_message = null
            where coalesce(subscription_id, 0) = coalesce(%s, 0) and coalesce(alert_id, 0) = coalesce(%s, 0)
              and recipient = %s and due_at = %s
              and (status = 'failed' or status = 'sending' and started_at < now() - %s)
           returning delivery_id, attempts""",
        (subscription_id, alert_id, recipient, due_at, LEASE)).fetchone()
    return Claim(row[0], row[1]) if row else None


def served(conn: psycopg.Connection, *, subscription_id: int, due_at: datetime) -> set[str]:
    """The recipients this firing of the subscription is done for (sent, or skipped for a reason)."""
    rows = conn.execute("""select recipient from deliveries where subscription_id = %s and due_at = %s
                              and status in ('sent', 'skipped')""", (subscription_id, due_at)).fetchall()
    return {recipient for (recipient,) in rows}


def finish(conn: psycopg.Connection, claim_: Claim, status: str, *, error_code: str | None = None,
           error_message: str | None = None) -> None:
    """Record how the claimed delivery ended (sent, failed or skipped, with the reason)."""
    if status not in ("sent", "failed", "skipped"):
        raise ValueError(f"unknown delivery status {status!r}")
    conn.execute(
        """update deliveries set status = %s, error_code = %s, error_message = %s, finished_at = now()
            where delivery_id = %s""",
        (status, error_code, error_message, claim_.delivery_id))


def log_of(conn: psycopg.Connection, *, subscription_id: int | None = None, alert_id: int | None = None,
           limit: int = 100) -> list[dict]:
    """The latest deliveries of a subscription or an alert, newest first."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """select delivery_id, recipient, due_at, status, error_code, error_message, attempts,
                      started_at, finished_at
                 from deliveries
                where (%(subscription)s::bigint is not null and subscription_id = %(subscription)s)
                   or (%(alert)s::bigint is not null and alert_id = %(alert)s)
                order by started_at desc, due_at desc
                limit %(limit)s""",
            {"subscription": subscription_id, "alert": alert_id, "limit": limit}).fetchall()
