"""The IP address and the raw user agent reach no table, log line or response; daily salts are
random, created once per day, and destroyed with an audit entry."""
from __future__ import annotations

import logging
import subprocess
import threading
from datetime import date, timedelta

from pipelines.database import embedded
from pipelines.ingest import destroy_salts_before
from pipelines.ingest.visitors import DailySalts, salt_of_day
from tests.collector_ingest.conftest import events_of

# Distinctive values: they would be found anywhere they were written.
IPS = ["198.51.100.237", "2001:db8:beef:cafe::1f7", "81.2.69.163"]
AGENT = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36 Zq7xTrackerProbe/9.3"


def pg_dump(database_url: str) -> str:
    return subprocess.run([str(embedded.binary("pg_dump")), "--data-only", "--inserts", "-d", database_url],
                          check=True, capture_output=True, text=True).stdout


def test_ip_and_user_agent_reach_no_table_log_or_response(client, make_site, db, database_url, caplog):
    site = make_site(accept_user_id=True)
    caplog.set_level(logging.DEBUG)
    bodies = []
    for ip in IPS:
        events = [{"type": "pageview", "ip": ip, "user_agent": AGENT, "url": "https://shop.example/"},
                  {"type": "event", "name": "bad name", "ip": ip, "user_agent": AGENT},
                  {"type": "pageview", "ip": ip + "x", "user_agent": AGENT},
                  {"type": "event", "name": "signup", "ip": ip, "user_agent": AGENT, "user_id": "u-1",
                   "props": {"plan": "pro"}}]
        r = client.post("/collect/server", json={"events": events}, headers={**site.auth, "Idempotency-Key": ip})
        assert r.status_code == 202 and r.json["accepted"] == 2
        bodies.append(r.get_data(as_text=True))
    client.post("/collect/server/erase", json={"visitor": "0123456789abcdefghijklmnop"}, headers=site.auth)
    rows = events_of(db, site.site_id)
    assert len(rows) == 6 and {row["visitor_kind"] for row in rows} == {"hash", "user"}
    assert {row["country"] for row in rows} >= {"GB"}
    dump = pg_dump(database_url)
    assert site.site_id in dump  # the dump does hold the events
    haystacks = {"pg_dump": dump, "logs": caplog.text, "responses": "".join(bodies)}
    for where, text in haystacks.items():
        for needle in [*IPS, "Zq7xTrackerProbe", "198.51.100", "2001:db8:beef"]:
            assert needle not in text, f"{needle} found in {where}"


def test_salt_is_created_once_under_concurrency(db, database_url):
    import psycopg

    day = date(2030, 1, 1)
    salts = []

    def create():
        with psycopg.connect(database_url, autocommit=True) as conn:
            salts.append(salt_of_day(conn, day))

    threads = [threading.Thread(target=create) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(salts)) == 1 and len(salts[0]) == 32
    assert salt_of_day(db, date(2030, 1, 2)) != salts[0]  # random per day, not derived


def test_salt_cache_reads_the_database_once_per_day(db):
    cache = DailySalts()
    day = date(2030, 5, 5)
    first = cache.get(db, day)
    db.execute("update collect.daily_salts set salt = %s where salt_day = %s", (b"\x01" * 32, day))
    assert cache.get(db, day) == first


def test_destroy_salts_before_deletes_older_days_and_audits(db):
    today = date(2030, 3, 10)
    for offset in (-3, -1, 0, 1):
        salt_of_day(db, today + timedelta(days=offset))
    assert destroy_salts_before(db, today) == 2
    remaining = [d for (d,) in db.execute("select salt_day from collect.daily_salts order by 1")]
    assert remaining == [today, today + timedelta(days=1)]
    actor, target, details = db.execute(
        "select actor, target, details from collect.audit_log where action = 'daily_salts.destroyed'").fetchone()
    assert actor == "maintenance" and details == {"before": "2030-03-10", "days": ["2030-03-07", "2030-03-09"]}
    assert destroy_salts_before(db, today) == 0


def test_hash_changes_once_the_salt_of_the_day_is_replaced(client, site, db):
    """A destroyed salt cannot be recreated: a new random one makes unrelated hashes."""
    event = {"type": "pageview", "ip": IPS[0], "user_agent": AGENT}
    client.post("/collect/server", json={"events": [event]}, headers=site.auth)
    (first,) = [row["visitor_id"] for row in events_of(db, site.site_id)]
    db.execute("delete from collect.daily_salts")
    from tests.collector_ingest.conftest import fresh_ingestion_cache
    fresh_ingestion_cache(client.application)
    client.post("/collect/server", json={"events": [event]}, headers=site.auth)
    hashes = [row["visitor_id"] for row in events_of(db, site.site_id)]
    assert len(hashes) == 2 and hashes[1] != first


def test_salt_cache_forgets_earlier_days(db):
    cache = DailySalts()
    cache.get(db, date(2030, 5, 5))
    cache.get(db, date(2030, 5, 7))
    assert cache.cached(date(2030, 5, 5)) is None and cache.cached(date(2030, 5, 6)) is None
    assert cache.cached(date(2030, 5, 7)) is not None and cache.cached(date(2030, 5, 8)) is not None
