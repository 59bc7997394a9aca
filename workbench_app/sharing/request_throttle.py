"""How many requests one public link answers a minute, counted in the workbench database.

Counted per link (never per address: an address is not kept), so a link posted widely cannot make
its creator's rights run statements without bound. The count lives in PostgreSQL (the unlogged
table `public_link_usage`), so every worker and host shares it: a per-worker count let each worker
answer the whole limit. The window is the calendar minute (fixed window, as the collector's
server-key limit, pipelines/ingest/rate_limits.py): one statement, no WAL flush. When the count
cannot be kept (the statement fails), the call is answered (fail open): the link was checked
already, and refusing every visitor for a counter's sake would do more harm than the limit prevents.
"""
from __future__ import annotations

import logging
import math
import time

import psycopg

log = logging.getLogger(__name__)


def retry_after(conn: psycopg.Connection, link_id: int, limit: int) -> int:
    """0 and the call is counted, or the whole seconds until the next minute (the call is not counted)."""
    try:
        with conn.transaction():  # a savepoint: a failed count leaves the caller's transaction usable
            counted = conn.execute(
                """insert into public_link_usage as usage (link_id, window_start, requests)
                   values (%(link)s, date_trunc('minute', now()), 1)
                   on conflict (link_id) do update
                      set window_start = excluded.window_start,
                          requests = case when usage.window_start = excluded.window_start
                                          then usage.requests + 1 else 1 end
                    where usage.window_start <> excluded.window_start or usage.requests < %(limit)s
                   returning requests""",
                {"link": link_id, "limit": limit}).fetchone()
    except psycopg.Error:
        log.warning("public link %s: its requests could not be counted; answered without the limit", link_id,
                    exc_info=True)
        return 0
    if counted is not None:
        return 0
    return max(1, math.ceil(60 - time.time() % 60))
