"""Query history: who ran what, from where, how long it took and how many rows came back."""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

ORIGINS = ("ui", "api", "tool_server", "embed", "assistant", "subscription")


def record(conn: psycopg.Connection, *, user_id: int | None, origin: str, sql_text: str,
           duration_ms: float, row_count: int | None, status: str, error_code: str | None = None,
           question_id: int | None = None) -> None:
    """Append one run (ok, refused or failed)."""
    conn.execute(
        """insert into query_history (user_id, origin, sql_text, question_id, duration_ms, row_count, status, error_code)
           values (%s, %s, %s, %s, %s, %s, %s, %s)""",
        (user_id, origin, sql_text, question_id, duration_ms, row_count, status, error_code),
    )


def list_runs(conn: psycopg.Connection, *, user_id: int | None, origin: str | None = None, limit: int = 100,
              before_id: int | None = None) -> list[dict[str, Any]]:
    """Newest runs first; `user_id` None means everyone's (administrators)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            """select h.query_id, h.user_id, u.email as user_email, h.origin, h.sql_text, h.question_id,
                      h.started_at, h.duration_ms, h.row_count, h.status, h.error_code
               from query_history h left join users u using (user_id)
               where (%(user)s::bigint is null or h.user_id = %(user)s)
                 and (%(origin)s::text is null or h.origin = %(origin)s)
                 and (%(before)s::bigint is null or h.query_id < %(before)s)
               order by h.query_id desc limit %(limit)s""",
            {"user": user_id, "origin": origin, "before": before_id, "limit": limit},
        ).fetchall()
