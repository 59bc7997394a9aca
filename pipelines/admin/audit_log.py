"""Reading the audit log (writing is `pipelines.audit.record`)."""
from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg
from psycopg.rows import dict_row

MAX_LIMIT = 500


def list_entries(conn: psycopg.Connection, *, action: str | None = None, since: dt.datetime | None = None,
                 until: dt.datetime | None = None, site_id: str | None = None,
                 before_id: int | None = None, limit: int = 100) -> dict[str, Any]:
    """Newest first. `action` is exact (`server_key.created`) or a prefix ending in `.*`
    (`server_key.*`); `since` inclusive, `until` exclusive; `site_id` keeps the entries about a
    site (the site itself, or a thing of it). Pages go backwards: pass the answer's `next_before`
    as `before_id`."""
    prefix = action[:-1] if action and action.endswith(".*") else None
    exact = None if prefix else action
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """select audit_id as id, at, actor, action, target, details from collect.audit_log
                where (%(exact)s::text is null or action = %(exact)s)
                  and (%(prefix)s::text is null or starts_with(action, %(prefix)s))
                  and (%(since)s::timestamptz is null or at >= %(since)s)
                  and (%(until)s::timestamptz is null or at < %(until)s)
                  and (%(site)s::text is null or target = %(site)s or details ->> 'site_id' = %(site)s)
                  and (%(before)s::bigint is null or audit_id < %(before)s)
                order by audit_id desc limit %(limit)s""",
            {"exact": exact, "prefix": prefix, "since": since, "until": until,
             "site": site_id, "before": before_id, "limit": limit + 1},
        ).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    return {"entries": rows, "next_before": rows[-1]["id"] if more else None}
