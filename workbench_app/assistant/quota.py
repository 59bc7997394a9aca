"""The assistant's quota per person and clock hour (UTC): requests (messages sent) and tokens.

A request is refused before anything reaches the provider once either count for the current hour
has reached its limit (0: no limit); the refusal says when the hour ends. The tokens of an answer
are counted after it (the provider's own usage figures, else an estimate), so the answer that
crosses the limit finishes and the next request is refused.
"""
from __future__ import annotations

import datetime as dt
import math

import psycopg

from workbench_app.assistant.provider_config import ProviderConfig
from workbench_app.errors import WorkbenchError


def _hour(now: dt.datetime) -> dt.datetime:
    return now.replace(minute=0, second=0, microsecond=0)


def take_request(conn: psycopg.Connection, config: ProviderConfig, user_id: int,
                 now: dt.datetime | None = None) -> None:
    """Count one request, or raise 429 `assistant_quota_exceeded` with the seconds until the reset."""
    now = now or dt.datetime.now(dt.timezone.utc)
    hour = _hour(now)
    # The row lock serialises one person's concurrent requests: two cannot both take the last one.
    conn.execute("insert into assistant_usage (user_id, hour) values (%s, %s) on conflict do nothing", (user_id, hour))
    requests, tokens = conn.execute("select requests, tokens from assistant_usage where user_id = %s and hour = %s "
                                    "for update", (user_id, hour)).fetchone()
    over_requests = config.requests_per_hour and requests >= config.requests_per_hour
    over_tokens = config.tokens_per_hour and tokens >= config.tokens_per_hour
    if over_requests or over_tokens:
        resets = hour + dt.timedelta(hours=1)
        wait = max(1, math.ceil((resets - now).total_seconds()))
        raise WorkbenchError(429, "assistant_quota_exceeded",
                             f"You have used your assistant quota for this hour; it resets at {resets:%H:%M} UTC.",
                             {"retry_after": wait, "resets_at": resets.isoformat(),
                              "limit": "requests" if over_requests else "tokens"})
    conn.execute("update assistant_usage set requests = requests + 1 where user_id = %s and hour = %s",
                 (user_id, hour))


def add_tokens(conn: psycopg.Connection, user_id: int, tokens: int, now: dt.datetime | None = None) -> None:
    hour = _hour(now or dt.datetime.now(dt.timezone.utc))
    conn.execute("""insert into assistant_usage (user_id, hour, tokens) values (%s, %s, %s)
                    on conflict (user_id, hour) do update set tokens = assistant_usage.tokens + excluded.tokens""",
                 (user_id, hour, max(0, tokens)))


def usage(conn: psycopg.Connection, config: ProviderConfig, user_id: int) -> dict:
    """This hour's counts beside the limits (for the screen)."""
    now = dt.datetime.now(dt.timezone.utc)
    found = conn.execute("select requests, tokens from assistant_usage where user_id = %s and hour = %s",
                         (user_id, _hour(now))).fetchone() or (0, 0)
    return {"requests": found[0], "tokens": int(found[1]), "requests_per_hour": config.requests_per_hour,
            "tokens_per_hour": config.tokens_per_hour,
            "resets_at": (_hour(now) + dt.timedelta(hours=1)).isoformat()}
