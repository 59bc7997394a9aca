"""Check figures of a site: is data arriving, and what is being refused."""
from __future__ import annotations

from typing import Any

import psycopg

from pipelines.admin._records import require_site


def site_health(conn: psycopg.Connection, site_id: object) -> dict[str, Any]:
    """Events received in the last 24 hours, the last event's reception time and age, and
    refused events of the last 24 hours by reason (collect.rejections)."""
    site = require_site(conn, site_id)
    now, received, last_recent = conn.execute(
        """select now(), count(*), max(received_at) from raw.events
            where site_id = %s and received_at > now() - interval '24 hours'""",
        (site,),
    ).fetchone()
    last_event_at = last_recent
    if last_event_at is None:
        # Quiet for a day: look further back (only then, since it reads the site's whole history).
        last_event_at = conn.execute("select max(received_at) from raw.events where site_id = %s",
                                     (site,)).fetchone()[0]
    reasons = conn.execute(
        """select reason, sum(count)::bigint from collect.rejections
            where site_id = %s and minute > now() - interval '24 hours'
            group by reason order by reason""",
        (site,),
    ).fetchall()
    rejected = {reason: total for reason, total in reasons}
    return {
        "site_id": site,
        "at": now,
        "events_last_24h": received,
        "last_event_at": last_event_at,
        "seconds_since_last_event": (max(0, int((now - last_event_at).total_seconds()))
                                     if last_event_at is not None else None),
        "rejected_last_24h": sum(rejected.values()),
        "rejected_last_24h_by_reason": rejected,
    }
