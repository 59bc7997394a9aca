"""Per-key rate limit of the server endpoint: events per minute, counted in PostgreSQL.

Counting in the database makes the limit hold across gunicorn workers and collector hosts (a
per-worker bucket would give a client stuck on one keep-alive connection only a share of it).
The window is the calendar minute (fixed window); the counter lives in an unlogged table, so the
count costs one statement without a WAL flush. When the database is down nothing is counted: the
spool accepts what arrives (fail open), since refusing would lose more than it protects.
"""
from __future__ import annotations

import math
import time

import psycopg


# The count of a request: its row comes from `source` (key, window start, events), and the new
# total must stay within `limit`; nothing is returned when the request is over the limit.
COUNT_IF_ALLOWED = """insert into collect.server_key_usage as usage (key_id, window_start, events)
           {source}
           on conflict (key_id) do update
              set window_start = excluded.window_start,
                  events = case when usage.window_start = excluded.window_start
                                then usage.events + excluded.events else excluded.events end
            where case when usage.window_start = excluded.window_start
                       then usage.events + excluded.events else excluded.events end <= {limit}
           returning key_id, events"""


def count_events(conn: psycopg.Connection, key_id, events: int, limit_per_minute: int) -> float | None:
    """Count `events` against the key's minute. Returns None when allowed, otherwise the seconds
    until the next minute starts (the request is refused and not counted)."""
    allowed = events <= limit_per_minute and conn.execute(
        COUNT_IF_ALLOWED.format(source="values (%(key)s, date_trunc('minute', now()), %(events)s)",
                                limit="%(limit)s"),
        {"key": key_id, "events": events, "limit": limit_per_minute},
    ).fetchone() is not None
    if allowed:
        return None
    return retry_after()


def retry_after() -> float:
    """Seconds until the next calendar minute, when a refused request may try again."""
    return max(1, math.ceil(60 - time.time() % 60))
