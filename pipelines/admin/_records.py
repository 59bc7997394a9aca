"""Small shared pieces of the admin modules: identifier parsing and site look-up."""
from __future__ import annotations

import re
import uuid

import psycopg

from pipelines.admin.errors import NotFound


def parse_id(value: object, what: str) -> uuid.UUID:
    """A UUID from a path or body value; anything else is a 404 for `what` (never a 500)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (ValueError, AttributeError, TypeError):
        raise NotFound(f"{what} not found", {"id": str(value)[:100]}) from None


def known_name(name: object, pattern: re.Pattern, what: str) -> str:
    """A name from a URL path: one that could never have been stored is simply not found (and a
    NUL or surrogate never reaches PostgreSQL)."""
    if not isinstance(name, str) or not pattern.match(name):
        raise NotFound(f"{what} not found", {"name": str(name)[:100]})
    return name


def require_site(conn: psycopg.Connection, site_id: object, *, lock: bool = False) -> uuid.UUID:
    """The site's UUID, or NotFound. With `lock`, the site row is locked for this transaction
    so that concurrent edits of its metadata apply one after the other. `no key update` leaves
    foreign-key checks of other writers (rows referencing the site) unblocked."""
    parsed = parse_id(site_id, "site")
    query = "select site_id from collect.sites where site_id = %s"
    if lock:
        query += " for no key update"
    if conn.execute(query, (parsed,)).fetchone() is None:
        raise NotFound("site not found", {"site_id": str(parsed)})
    return parsed
