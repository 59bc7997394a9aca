"""Create the demo: site, older days through the ingestion code, recent days through the API."""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import psycopg

from pipelines import partitions
from pipelines.database import connection
from pipelines.demo.site import create_demo_site
from pipelines.demo.traffic import demo_traffic
from pipelines.ingest import derive_row, store_events

DEMO_SITE_NAME = "Demo shop"
# The server API takes events up to 72 hours old; an hour of margin for the time it takes to send.
API_WINDOW = timedelta(hours=71)
_BATCH = 5000

# send_recent(site_id, server_key_secret, server_events) -> number of events accepted
RecentSender = Callable[[str, str, list[dict]], int]


@dataclass
class DemoSummary:
    site_id: str
    imported_events: int
    sent_events: int


def demo_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("select exists (select from collect.sites where name = %s)", (DEMO_SITE_NAME,)).fetchone()[0]


def _row(site_id: str, event: dict) -> tuple:
    fields = {
        "occurred_at": event["at"], "type": event["type"], "name": event.get("name", "pageview"),
        "url": event.get("url"), "referrer": event.get("referrer"), "title": event.get("title"),
        "language": event.get("language"), "props": event.get("props"), "items": event.get("items"),
        "user_id": event.get("user_id"), "page_id": event.get("page_id"),
    }
    return derive_row(site_id, "import", fields, received_at=event["at"] + timedelta(seconds=1), salt=None,
                      visitor=event.get("visitor"), ip=event.get("ip"), user_agent=event.get("user_agent"))


def server_event(event: dict) -> dict:
    """The `POST /collect/server` body item of a demo event (no page id: not a server field)."""
    body = {key: value for key, value in event.items() if key not in ("page_id",)}
    body["at"] = event["at"].isoformat()
    return body


def create_demo(url: str, send_recent: RecentSender, days: int = 90, seed: int = 2026) -> DemoSummary:
    """Create the demo site and its traffic. Older events are imported in batches; the last
    71 hours are handed to `send_recent` (the collector's server endpoint)."""
    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    today = now.date()
    with connection.connect(url) as conn:
        with conn.transaction():
            site_id, secret = create_demo_site(conn, DEMO_SITE_NAME, today)
        conn.commit()
    with connection.connect(url, autocommit=True) as conn:
        partitions.ensure_partitions(conn, months_back=days // 28 + 2)
    cutoff = now - API_WINDOW
    imported, recent, batch = 0, [], []
    with connection.connect(url) as conn:
        for visit in demo_traffic(today, days, rng):
            for event in visit:
                if event["at"] >= cutoff:
                    recent.append(server_event(event))
                    continue
                batch.append(_row(site_id, event))
                if len(batch) >= _BATCH:
                    imported += store_events(conn, batch)
                    conn.commit()
                    batch = []
        if batch:
            imported += store_events(conn, batch)
            conn.commit()
    sent = send_recent(site_id, secret, recent) if recent else 0
    return DemoSummary(site_id, imported, sent)
