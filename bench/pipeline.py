"""Benchmark of the pipeline (issues 5 and 17).

Starts an embedded PostgreSQL in a temporary directory, loads N synthetic events with COPY into
raw.events (default 1,000,000 over 90 days), then times:

1. a full build (`dbt build`: sessionization, visits, channels, conversions, attribution, views);
2. an incremental build after one more day of events (about N/90) has arrived.

Several sizes (`--events 1000000 10000000`) run one after another, each on its own fresh server
and temporary directory (removed before the next size starts, so the disk holds one size at a
time); a table of every size follows, so the growth shows. Per step it prints rows/s, CPU time
(dbt: this process and its children; PostgreSQL: its processes, ended backends included), the
peak RSS of PostgreSQL (its processes summed) and of dbt (this process when dbt runs in it, else
its subprocess), sampled every 0.2 s, the 1-minute load average at the step's end (on a shared
machine wall time inflates, CPU time much less), and the slowest models (`--top`, from dbt's
run_results.json).

dbt parses the project once before the timings (in process, as a long-running orchestrator keeps
it); `--subprocess` times `dbt build` commands instead, which adds dbt's start-up and parsing (10
to 20 s) to each. Targets: the full build of 10,000,000 events within 120 s, its incremental day
within 5 s.

Run: ``python bench/pipeline.py [--events N [N ...]] [--days D] [--threads T] [--top K]``.
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
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg  # noqa: E402

from bench.resource_sampler import MemorySampler, Peaks, cpu_seconds  # noqa: E402
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

    def __init__(self, url: str, threads: int, subprocess_mode: bool, target_path: Path):
        self.env = dbt_environment(url)
        # The bench's own target directory: the project's (its manifest, run results) stays untouched.
        self.target_path = target_path
        self.paths = ["--project-dir", str(DBT_PROJECT_DIR), "--profiles-dir", str(DBT_PROJECT_DIR),
                      "--target-path", str(target_path)]
        self.threads = threads
        self.subprocess_mode = subprocess_mode
        self.runner = None
        if not subprocess_mode:
            os.environ.update(self.env)
            from dbt.cli.main import dbtRunner

            parsed = dbtRunner().invoke(["parse", "--quiet", *self.paths])
            if not parsed.success:
                sys.exit(f"dbt parse failed: {parsed.exception}")
            self.runner = dbtRunner(manifest=parsed.result)

    def build(self, *extra: str) -> float:
        # Unit tests check the SQL, not the data: they run in CI and `make test`, not on every build.
        args = ["build", "--exclude-resource-type", "unit_test", "--threads", str(self.threads), *extra]
        started = time.perf_counter()
        if self.subprocess_mode:
            result = subprocess.run([dbt_executable(), *args, *self.paths], cwd=DBT_PROJECT_DIR, env={**os.environ, **self.env},
                                    capture_output=True, text=True)
            ok, detail = result.returncode == 0, result.stdout[-4000:]
        else:
            result = self.runner.invoke([*args, "--quiet", *self.paths])
            ok, detail = result.success, str(result.exception or result.result)[-4000:]
        elapsed = time.perf_counter() - started
        if not ok:
            sys.exit(f"dbt build failed:\n{detail}")
        return elapsed


@dataclass
class Phase:
    """One timed step: wall and CPU seconds, the 1-minute load average at its end, peak memory."""
    seconds: float
    cpu_dbt: float
    cpu_postgres: float
    load_average: float
    peaks: Peaks

    def describe(self) -> str:
        return (f"cpu dbt {self.cpu_dbt:6.1f} s, postgres {self.cpu_postgres:6.1f} s; "
                f"peak RSS postgres {self.peaks.postgres / 2**20:6,.0f} MiB, dbt {self.peaks.dbt / 2**20:5,.0f} MiB; "
                f"load {self.load_average:.1f}")


class PhaseClock:
    """Times phases with the bench's CPU (dbt when in process, or its children's), PostgreSQL's, the
    load average and the sampler's memory peaks."""

    def __init__(self, sampler: MemorySampler):
        self.sampler = sampler

    def _cpu(self) -> tuple[float, float]:
        own = os.times()
        return own.user + own.system + own.children_user + own.children_system, cpu_seconds(self.sampler.postgres)

    def run(self, step) -> tuple[object, Phase]:
        self.sampler.reset()
        dbt_before, postgres_before = self._cpu()
        started = time.perf_counter()
        value = step()
        seconds = time.perf_counter() - started
        dbt_after, postgres_after = self._cpu()
        return value, Phase(seconds, dbt_after - dbt_before, postgres_after - postgres_before, os.getloadavg()[0],
                            self.sampler.reset())


def model_timings(target_path: Path, top: int) -> list[tuple[str, float]]:
    """The slowest nodes of the last dbt command, from its run_results.json (a data test is named
    without its hash: model.analytics.int_visits, test.analytics.unique_x.1a2b3c)."""
    results = json.loads((target_path / "run_results.json").read_text())["results"]
    timed = [(r["unique_id"].split(".")[2], r["execution_time"]) for r in results]
    return sorted(timed, key=lambda item: -item[1])[:top]


def print_timings(target_path: Path, top: int) -> None:
    if top:
        print("    slowest: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in model_timings(target_path, top)))


def shop_database(server: str, name: str, days: int, reader_password: str | None = None) -> tuple[str, str]:
    """A migrated database `name` with one site and partitions `days` back: its URL and the site's id."""
    with connection.connect(server, autocommit=True) as conn:
        conn.execute(f"create database {name}")
    url = connection.with_database(server, name)
    migrate.migrate(url, reader_password=reader_password)
    with psycopg.connect(url, autocommit=True) as conn:
        site_id = str(conn.execute("insert into collect.sites (name) values ('Bench shop') returning site_id"
                                   ).fetchone()[0])
        partitions.ensure_partitions(conn, months_back=days // 28 + 2)
    return url, site_id


def bench_size(events: int, args: argparse.Namespace) -> dict:
    """One size on a fresh embedded PostgreSQL in its own temporary directory, removed afterwards."""
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        pgdata = Path(tmp) / "pgdata"
        state = embedded.start(pgdata)
        try:
            url, site_id = shop_database(state.url("postgres"), "bench", args.days)
            now = datetime.now(timezone.utc).replace(microsecond=0)
            history_end = now - timedelta(days=1)
            print(f"== {events:,} events over {args.days} days (load average {os.getloadavg()[0]:.1f})")
            with MemorySampler(state.pid) as sampler:
                clock = PhaseClock(sampler)
                loaded, loading = clock.run(lambda: load(url, synthetic_events(
                    site_id, events, history_end - timedelta(days=args.days), history_end, rng)))
                print(f"loaded {loaded:,} events with COPY in {loading.seconds:.1f} s (load {loading.load_average:.1f})")

                builds = DbtBuilds(url, args.threads, args.subprocess, Path(tmp) / "dbt-target")
                _, full = clock.run(builds.build)
                print(f"full build:        {full.seconds:7.1f} s  {loaded / full.seconds:10,.0f} rows/s  {full.describe()}")
                print_timings(builds.target_path, args.top)

                day = max(1, events // args.days)
                load(url, synthetic_events(site_id, day, history_end, now, rng))
                # What the 15-minute job runs: tables only, views stay (see orchestration/defs/dbt/schedules.py).
                _, incremental = clock.run(lambda: builds.build("--exclude", "config.materialized:view"))
                print(f"incremental day:   {incremental.seconds:7.1f} s  {day / incremental.seconds:10,.0f} rows/s  "
                      f"({day:,} events)  {incremental.describe()}")
                print_timings(builds.target_path, args.top)
            with psycopg.connect(url) as conn:
                visits = conn.execute("select count(*) from intermediate.int_visits").fetchone()[0]
            print(f"visits: {visits:,}; incremental / full = {incremental.seconds / full.seconds:.2f}")
            return {"events": loaded, "load": loading, "full": full, "incremental": incremental, "day": day}
        finally:
            embedded.stop(pgdata)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000_000],
                        help="one or more sizes, each run on its own fresh server, one after another")
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--top", type=int, default=5, help="print the N slowest models of each build (0: none)")
    parser.add_argument("--subprocess", action="store_true",
                        help="time `dbt build` as a command (start-up and parsing included)")
    args = parser.parse_args()
    runs = [bench_size(events, args) for events in args.events]
    print("\n    events |  load s | full s | full rows/s | incr s | incr rows/s | pg peak MiB | dbt peak MiB | load avg")
    for run in runs:
        full, incremental = run["full"], run["incremental"]
        peak_pg = max(full.peaks.postgres, incremental.peaks.postgres) / 2**20
        peak_dbt = max(full.peaks.dbt, incremental.peaks.dbt) / 2**20
        print(f"{run['events']:>10,} | {run['load'].seconds:7.1f} | {full.seconds:6.1f} | "
              f"{run['events'] / full.seconds:11,.0f} | {incremental.seconds:6.1f} | "
              f"{run['day'] / incremental.seconds:11,.0f} | {peak_pg:11,.0f} | {peak_dbt:12,.0f} | "
              f"{full.load_average:.1f}/{incremental.load_average:.1f}")
    print("targets: full <= 120 s and incremental day <= 5 s at 10,000,000 events")


if __name__ == "__main__":
    main()
