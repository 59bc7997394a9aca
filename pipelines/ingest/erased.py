"""Spooled events of people erased meanwhile are not written back.

Events are spooled while the database is down and replayed when it is back. An erasure request
needs the database, but it can be carried out (pipelines/maintenance/privacy.py) before a spool
segment is replayed: a segment of a worker that died during the outage waits for another process
to pick it up. Replaying it as is would bring the erased person's events back, so each spooled row
is checked against the erasures completed since it was received, by the requests' keyed subject
hashes (the identifiers themselves are forgotten once a request is done).
"""
from __future__ import annotations

from datetime import datetime

import psycopg

from pipelines.admin.privacy_requests import subject_hash
from pipelines.ingest.rows import COLUMNS

_SITE, _RECEIVED, _VISITOR, _USER = (COLUMNS.index(name) for name in ("site_id", "received_at", "visitor_id", "user_id"))


def drop_erased(conn: psycopg.Connection, rows: list[tuple], key: bytes) -> list[tuple]:
    """`rows` less those of a person (user id or visitor id) whose erasure on the row's site was
    completed after the row was received."""
    if not rows:
        return rows
    since = min(datetime.fromisoformat(row[_RECEIVED]) for row in rows)
    erased: dict[tuple[str, bytes], datetime] = {}
    for site_id, hashed, completed_at in conn.execute(
            """select site_id::text, subject_hash, completed_at from collect.privacy_requests
                where kind = 'erasure' and state = 'done' and completed_at >= %s""", (since,)):
        key_ = (site_id, bytes(hashed))
        erased[key_] = max(completed_at, erased.get(key_, completed_at))
    if not erased:
        return rows

    def is_erased(row: tuple) -> bool:
        received = datetime.fromisoformat(row[_RECEIVED])
        for kind, value in (("user_id", row[_USER]), ("visitor", row[_VISITOR])):
            if value:
                completed = erased.get((row[_SITE], subject_hash(key, kind, value)))
                if completed is not None and completed >= received:
                    return True
        return False

    return [row for row in rows if not is_erased(row)]
