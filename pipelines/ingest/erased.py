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


def drop_erased(conn: psycopg.Connection, batches: list[list[tuple]], key: bytes) -> list[list[tuple]]:
    """Each batch of `rows` less those of a person (user id or visitor id) whose erasure on the
    row's site was completed after the row was received. One query for all the batches."""
    received = [[datetime.fromisoformat(row[_RECEIVED]) for row in rows] for rows in batches]
    since = min((moment for moments in received for moment in moments), default=None)
    if since is None:
        return batches
    erased: dict[tuple[str, bytes], datetime] = {}
    for site_id, hashed, completed_at in conn.execute(
            """select site_id::text, subject_hash, max(completed_at) from collect.privacy_requests
                where kind = 'erasure' and state = 'done' and completed_at >= %s
                group by 1, 2""", (since,)):
        erased[(site_id, bytes(hashed))] = completed_at
    if not erased:
        return batches

    def is_erased(row: tuple, received_at: datetime) -> bool:
        for kind, value in (("user_id", row[_USER]), ("visitor", row[_VISITOR])):
            if value:
                completed = erased.get((row[_SITE], subject_hash(key, kind, value)))
                if completed is not None and completed >= received_at:
                    return True
        return False

    return [[row for row, moment in zip(rows, moments) if not is_erased(row, moment)]
            for rows, moments in zip(batches, received)]
