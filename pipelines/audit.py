"""The audit log: who did what to which thing, kept in collect.audit_log."""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.types.json import Jsonb


def record(conn: psycopg.Connection, actor: str, action: str, target: str | None = None,
           details: dict[str, Any] | None = None) -> None:
    """Append one entry, in the caller's transaction so it commits or rolls back with the change.

    `actor` names who acted (`admin-token:<id>`, `maintenance`, `cli`), `action` is a dotted verb
    such as `server_key.created`, `target` the id of the thing acted on. Never put a secret, an IP
    address or a person's identifier in `details`.
    """
    conn.execute(
        "insert into collect.audit_log (actor, action, target, details) values (%s, %s, %s, %s)",
        (actor, action, target, Jsonb(details or {})),
    )
