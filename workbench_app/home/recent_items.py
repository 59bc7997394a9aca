"""What each person opened or changed last in the web application (dashboards and questions).

Recorded after a successful answer to the web application's own reads and writes of one item
(`api/home_routes.remember_visit`, an after-request hook of /api/v1), so the content routes stay
unaware of it. Programs with a token, printing and shared links are not a person opening
something: not recorded.
"""
from __future__ import annotations

from typing import Any

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.home import items

SHOWN = 8
#: Rows kept per person: older ones are dropped when a new one comes in.
KEPT = 50


def record(conn: psycopg.Connection, user_id: int, kind: str, item_id: int) -> None:
    conn.execute(
        """insert into recent_items (user_id, kind, item_id) values (%s, %s, %s)
           on conflict (user_id, kind, item_id) do update set seen_at = now()""", (user_id, kind, item_id))
    conn.execute(
        """delete from recent_items where user_id = %(user)s and (kind, item_id) not in (
               select kind, item_id from recent_items where user_id = %(user)s order by seen_at desc limit %(kept)s)""",
        {"user": user_id, "kept": KEPT})


def listing(conn: psycopg.Connection, identity: Identity, limit: int = SHOWN) -> list[dict[str, Any]]:
    """The person's latest items that still exist and that they may still read, newest first."""
    rows = conn.execute("select kind, item_id, seen_at from recent_items where user_id = %s order by seen_at desc",
                        (identity.user_id,)).fetchall()
    return items.describe(conn, identity, rows)[:limit]
