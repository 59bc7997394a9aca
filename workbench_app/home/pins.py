"""Dashboards and questions pinned for everyone on the home page, by an administrator (or by the
product: the Demo dashboard). Each person sees the pins of folders they may read."""
from __future__ import annotations

from typing import Any

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, questions
from workbench_app.home import items
from workbench_app.records import audit_log


def listing(conn: psycopg.Connection, identity: Identity) -> list[dict[str, Any]]:
    rows = conn.execute(
        "select kind, item_id, pinned_at from pinned_items order by pinned_at, kind, item_id").fetchall()
    return items.describe(conn, identity, rows)


def pin(conn: psycopg.Connection, identity: Identity, kind: str, item_id: int) -> None:
    """Pin an item the administrator can see (404 otherwise, like any unknown item)."""
    (dashboards.get_dashboard if kind == "dashboard" else questions.get_question)(conn, identity, item_id)
    added = conn.execute("insert into pinned_items (kind, item_id, pinned_by) values (%s, %s, %s) "
                         "on conflict do nothing", (kind, item_id, identity.user_id)).rowcount
    if added:
        audit_log.record(conn, identity.user_id, identity.actor, "home.pinned", f"{kind}:{item_id}")


def unpin(conn: psycopg.Connection, identity: Identity, kind: str, item_id: int) -> None:
    removed = conn.execute("delete from pinned_items where kind = %s and item_id = %s", (kind, item_id)).rowcount
    if removed:
        audit_log.record(conn, identity.user_id, identity.actor, "home.unpinned", f"{kind}:{item_id}")


def pin_for_everyone(conn: psycopg.Connection, kind: str, item_id: int) -> None:
    """The product's own pin (the demo setup's dashboard): no person, no audit entry."""
    conn.execute("insert into pinned_items (kind, item_id) values (%s, %s) on conflict do nothing", (kind, item_id))
