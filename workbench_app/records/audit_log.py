"""The workbench audit log: sign-ins, permissions, sources, tokens, shares."""
from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


def record(conn: psycopg.Connection, actor_id: int | None, actor: str, action: str,
           target: str | None = None, details: dict[str, Any] | None = None) -> None:
    """Append one entry in the caller's transaction (it commits or rolls back with the change).

    `action` is a dotted verb (`token.created`, `source.removed`, `sign_in.failed`). Never put a
    secret or a password in `details`.
    """
    conn.execute(
        "insert into audit_log (actor_id, actor, action, target, details) values (%s, %s, %s, %s, %s)",
        (actor_id, actor, action, target, Jsonb(details or {})),
    )


def list_entries(conn: psycopg.Connection, *, action_prefix: str | None = None, actor: str | None = None,
                 since: dt.date | None = None, until: dt.date | None = None, limit: int = 100,
                 before_id: int | None = None) -> list[dict[str, Any]]:
    """Newest entries first, optionally only those whose action starts with `action_prefix`, whose
    actor contains `actor` (case-insensitive), on or after `since` and on or before `until` (UTC days)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """select entry_id, at, actor_id, actor, action, target, details from audit_log
               where (%(prefix)s::text is null or action like %(prefix)s || '%%')
                 and (%(actor)s::text is null or strpos(lower(actor), lower(%(actor)s)) > 0)
                 and (%(since)s::date is null or at >= %(since)s::date::timestamp at time zone 'UTC')
                 and (%(until)s::date is null or at < (%(until)s::date + 1)::timestamp at time zone 'UTC')
                 and (%(before)s::bigint is null or entry_id < %(before)s)
               order by entry_id desc limit %(limit)s""",
            {"prefix": action_prefix, "actor": actor, "since": since, "until": until, "before": before_id,
             "limit": limit},
        ).fetchall()
