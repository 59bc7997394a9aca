"""Benchmark of the pipeline (issue 5).

Starts an embedded PostgreSQL in a temporary directory, loads N synthetic events with COPY into
raw.events (default 1,000,000 over 90 days), then times:

1. a full build (`dbt build`: sessionization, visits, channels, conversions, attribution, views);
2. an incremental build after one more day of events (about N/90) has arrived.

Prints rows/s for each. dbt parses the project once before the timings (in process, as a
long-running orchestrator keeps it); `--subprocess` times `dbt build` commands instead, which
adds dbt's start-up and parsing (10 to 20 s) to each. Expected: the full build of 1,000,000 events within 3 minutes; the
incremental day under a tenth of the full build's time.

Run: ``python bench/pipeline.py [--events N] [--days D] [--threads T]``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg  # noqa: E402

from pipelines import partitions  # noqa: E402
from pipelines.database import connection, embedded, migrate  # noqa: E402
from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable  # noqa: E402

COLUMNS = ("site_id", "occurred_at", "received_at", "source", "event_type", "event_name", "visitor_kind",
           "visitor_id", "page_id", "url", "hostname", "path", "referrer", "referrer_host", "utm_source",
           "utm_medium", "utm_campaign", "click_id_kind", "country", "device_class", "props", "items",
           "transaction_id", "revenue", "currency")
PAGES = ["/", "/shoes", "/shoes/red-runner", "/shoes/trail-pro", "/bags", "/bags/city", "/blog/care-guide",
         "/blog/new-season", "/pricing", "/about"]
SOURCES = [  # weight, referrer, utm (source, medium, campaign), click id
    (30, None, (None, None, None), None),
    (30, "https://www.google.com/", (None, None, None), None),
    (5, "https://www.bing.com/", (None, None, None), None),
    (8, "https://l.facebook.com/", (None, None, None), None),
    (8, None, ("Newsletter", "email", "Spring%20Sale"), None),
    (7, None, ("google", "cpc", "brand"), "gclid"),
    (6, None, ("facebook", "paid_social", " Summer Sale "), "fbclid"),
    (6, "https://blog.example.org/review", (None, None, None), None),
]
COUNTRIES = ["FR", "FR", "FR", "DE", "ES", "GB", "US", "BE", "IT"]
DEVICES = ["desktop", "desktop", "mobile", "mobile", "mobile", "tablet"]


def synthetic_events(site_id: str, count: int, start: datetime, end: datetime, rng: random.Random):
    """Rows of raw.events (tuples in COLUMNS order): visits of 1-12 events, returning visitors."""
    weights = [s[0] for s in SOURCES]
    visitors = [uuid.UUID(int=rng.getrandbits(128)).hex for _ in range(max(1, count // 12))]
    span = (end - start).total_seconds()
    produced = 0
    while produced < count:
        visitor = rng.choice(visitors)
        at = start + timedelta(seconds=rng.random() * span)
        _, referrer, (utm_source, utm_medium, utm_campaign), click = rng.choices(SOURCES, weights)[0]
        country, device = rng.choice(COUNTRIES), rng.choice(DEVICES)
        for index in range(rng.randint(1, 12)):
            if produced >= count:
                return
            path = rng.choice(PAGES)
            name, props, items, transaction, revenue = "pageview", "{}", None, None, None
            roll = rng.random()
            if index and roll < 0.25:
                name, props = "scroll_depth", json.dumps({"percent": rng.choice([25, 50, 75, 90])})
            elif index and roll < 0.30:
                name, props = "zone_visibility", json.dumps({"zone": "hero", "visible_ms": rng.randint(200, 9000)})
            elif index and roll < 0.36:
                name, items = "view_item", json.dumps([{"id": "SKU-1", "name": "Runner", "price": 89, "quantity": 1}])
            elif index and roll < 0.38:
                name = "purchase"
                transaction, revenue = uuid.UUID(int=rng.getrandbits(128)).hex[:12], rng.choice([49, 89, 129, 178])
                items = json.dumps([{"id": "SKU-1", "name": "Runner", "price": revenue, "quantity": 1}])
                props = json.dumps({"transaction_id": transaction, "value": revenue, "currency": "EUR"})
            first = index == 0
            yield (site_id, at, at + timedelta(seconds=2), "import", "pageview" if name == "pageview" else "event",
                   name, "cookie", visitor, f"p{produced}", f"https://shop.example{path}", "shop.example", path,
                   referrer if first else None,
                   referrer.split("/")[2] if first and referrer else None,
                   utm_source if first else None, utm_medium if first else None, utm_campaign if first else None,
                   click if first else None, country, device, props, items, transaction, revenue,
                   "EUR" if revenue else None)
            produced += 1
            at += timedelta(seconds=rng.randint(5, 300))


def load(url: str, rows) -> int:
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        with cur.copy(f"copy raw.events ({', '.join(COLUMNS)}) from stdin") as copy:
            count = 0
            for row in rows:
                copy.write_row(row)
                count += 1
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("analyze raw.events")
    return count


class DbtBuilds:
    """dbt builds timed without dbt's start-up: the project is parsed once, in process, as a
    long-running orchestrator would keep it (`--subprocess` times the command line instead)."""

    def __init__(self, url: str, threads: int, subprocess_mode: bool):
        self.env = dbt_environment(url)
        self.threads = threads
        self.subprocess_mode = subprocess_mode
        self.runner = None
        if not subprocess_mode:
            os.environ.update(self.env)
            from dbt.cli.main import dbtRunner

            parsed = dbtRunner().invoke(["parse", "--quiet", "--project-dir", str(DBT_PROJECT_DIR),
                                         "--profiles-dir", str(DBT_PROJECT_DIR)])
            if not parsed.success:
                sys.exit(f"dbt parse failed: {parsed.exception}")
            self.runner = dbtRunner(manifest=parsed.result)

    def build(self, *extra: str) -> float:
        # Unit tests check the SQL, not the data: they run in CI and `make test`, not on every build.
        args = ["build", "--exclude-resource-type", "unit_test", "--threads", str(self.threads), *extra]
        started = time.perf_counter()
        if self.subprocess_mode:
            result = subprocess.run([dbt_executable(), *args], cwd=DBT_PROJECT_DIR, env={**os.environ, **self.env},
                                    capture_output=True, text=True)
            ok, detail = result.returncode == 0, result.stdout[-4000:]
        else:
            result = self.runner.invoke([*args, "--quiet", "--project-dir", str(DBT_PROJECT_DIR),
                                         "--profiles-dir", str(DBT_PROJECT_DIR)])
            ok, detail = result.success, str(result.exception or result.result)[-4000:]
        elapsed = time.perf_counter() - started
        if not ok:
            sys.exit(f"dbt build failed:\n{detail}")
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--subprocess", action="store_true",
                        help="time `dbt build` as a command (start-up and parsing included)")
    args = parser.parse_args()
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        pgdata = Path(tmp) / "pgdata"
        state = embedded.start(pgdata)
        try:
            server = state.url("postgres")
            with connection.connect(server, autocommit=True) as conn:
                conn.execute("create database bench")
            url = connection.with_database(server, "bench")
            migrate.migrate(url)
            now = datetime.now(timezone.utc).replace(microsecond=0)
            with psycopg.connect(url, autocommit=True) as conn:
                site_id = str(conn.execute("insert into collect.sites (name) values ('Bench shop') returning site_id"
                                           ).fetchone()[0])
                partitions.ensure_partitions(conn, months_back=args.days // 28 + 2)
            history_end = now - timedelta(days=1)
            started = time.perf_counter()
            loaded = load(url, synthetic_events(site_id, args.events, history_end - timedelta(days=args.days),
                                                history_end, rng))
            print(f"loaded {loaded:,} events with COPY in {time.perf_counter() - started:.1f} s")

            builds = DbtBuilds(url, args.threads, args.subprocess)
            full = builds.build()
            print(f"full build:        {full:7.1f} s  {loaded / full:10,.0f} rows/s")

            day = max(1, args.events // args.days)
            load(url, synthetic_events(site_id, day, history_end, now, rng))
            # What the 15-minute job runs: tables only, views stay (see orchestration/defs/dbt/schedules.py).
            incremental = builds.build("--exclude", "config.materialized:view")
            print(f"incremental day:   {incremental:7.1f} s  {day / incremental:10,.0f} rows/s  ({day:,} events)")
            with psycopg.connect(url) as conn:
                visits = conn.execute("select count(*) from intermediate.int_visits").fetchone()[0]
            print(f"visits: {visits:,}; incremental / full = {incremental / full:.2f} "
                  f"(targets: full <= 180 s for 1,000,000 events, ratio < 0.10)")
        finally:
            embedded.stop(pgdata)


if __name__ == "__main__":
    main()
