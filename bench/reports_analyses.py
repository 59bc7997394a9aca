"""Benchmark of funnels, paths and retention (issue 31): their statements on 1,000,000 events.

Starts an embedded PostgreSQL in a temporary directory, loads N synthetic events (default
1,000,000 over 90 days: bench/pipeline.py's shop, visits of 1-12 events by returning cookie
visitors) into raw.events with COPY, builds the dbt project (the real `analytics` views), writes the
lake (every analytics view as Parquet, pipelines/lake), then runs through the workbench engine as
the product builds it (DuckDB, the permission rewrite included, as the statement path runs them),
once reading the lake (`ANALYTICS_WORKBENCH_READS=lake`) and once PostgreSQL (the reader role):

* the baseline: `count(*)` of analytics.events, and page views per day (a dashboard's question);
* a funnel of four steps (/ -> /shoes* -> view_item -> purchase, within a day);
* a path around /shoes (2 steps before, 3 after, 5 branches);
* weekly retention of first visits over the 90 days (8 weeks after).

Each statement runs once to warm up, then `--runs` times; p50 and p95 in milliseconds, and p50 over
the page-views-per-day baseline's. Target: each analysis <= 1 s on 1,000,000 events. With `--keep
DIR`, the server, its data and the lake stay in DIR, and a later run with the same DIR only times.

Run: ``python bench/reports_analyses.py [--events N] [--days D] [--runs R] [--keep DIR]``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pipeline import DbtBuilds, load, shop_database, synthetic_events  # noqa: E402
from pipelines.database import embedded  # noqa: E402
from pipelines.key_derivation import reader_password  # noqa: E402
from pipelines.lake.export import LakeWriter  # noqa: E402
from pipelines.settings import Settings  # noqa: E402
from workbench_app.analyses.compiler import compile_analysis  # noqa: E402
from workbench_app.engine import GroupPermissions, UserContext, WorkbenchEngine  # noqa: E402
from workbench_app.sources import catalogs  # noqa: E402
from workbench_app.sources.engine_catalogs import engine_settings  # noqa: E402

SECRET = "bench-analyses-secret"
WAREHOUSE = {"name": "warehouse", "kind": "warehouse", "options": {}}


def statements(site_id: str, start: datetime, end: datetime) -> list[tuple[str, str, dict, dict]]:
    """(name, SQL, variable types, values): the baseline's and the analyses'."""
    date_range = {"from": start.date().isoformat(), "to": end.date().isoformat()}
    analyses = {
        "funnel (4 steps, 1 day)": {"kind": "funnel", "site_id": site_id, "date_range": date_range,
                                    "window": {"amount": 1, "unit": "day"},
                                    "steps": [{"page": "/"}, {"page": "/shoes*"}, {"event": "view_item"},
                                              {"event": "purchase"}]},
        "path (/shoes, 2 before, 3 after)": {"kind": "path", "site_id": site_id, "date_range": date_range,
                                             "page": "/shoes", "steps_before": 2, "steps_after": 3, "branches": 5},
        "retention (weekly, 8 weeks)": {"kind": "retention", "site_id": site_id, "date_range": date_range,
                                        "period": "week", "periods": 8},
    }
    baseline = [
        ("baseline: count(*) of events", 'SELECT count(*) FROM "warehouse"."analytics"."events"', {}, {}),
        ("baseline: page views per day",
         'SELECT date_trunc(\'day\', occurred_at) AS day, count(*) AS views FROM "warehouse"."analytics"."pageviews" '
         "GROUP BY 1 ORDER BY 1", {}, {}),
    ]
    return baseline + [(name, *compile_analysis(definition)) for name, definition in analyses.items()]


def timed(engine: WorkbenchEngine, user: UserContext, sql: str, types: dict, values: dict, runs: int
          ) -> tuple[list[float], int]:
    result = engine.run(sql, user, variables=values, variable_types=types)  # warm-up
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        engine.run(sql, user, variables=values, variable_types=types)
        timings.append((time.perf_counter() - started) * 1000)
    return timings, len(result.rows)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def prepare(base: Path, args: argparse.Namespace) -> tuple[Settings, str, datetime, datetime]:
    """The database loaded and built and the lake written, or those kept in `base` by an earlier run."""
    settings = Settings(home=base / "home", database_url="postgresql://unused/analytics",
                        server_secret_value=SECRET, lake_dir=base / "lake")
    kept = base / "bench.json"
    if kept.is_file():
        previous = json.loads(kept.read_text())
        print(f"{previous['events']:,} events kept in {base}")
        return (dataclasses.replace(settings, database_url=previous["url"]), previous["site_id"],
                datetime.fromisoformat(previous["start"]), datetime.fromisoformat(previous["end"]))
    state_url = embedded.start(base / "pgdata").url("postgres")
    url, site_id = shop_database(state_url, "analytics", args.days, reader_password=reader_password(settings))
    settings = dataclasses.replace(settings, database_url=url)
    end = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=1)
    start = end - timedelta(days=args.days)
    started = time.perf_counter()
    loaded = load(url, synthetic_events(site_id, args.events, start, end, random.Random(31)))
    print(f"loaded {loaded:,} events in {time.perf_counter() - started:.1f} s")
    print(f"dbt build: {DbtBuilds(url, 2, False, base / 'dbt-target').build():.1f} s")
    started = time.perf_counter()
    with LakeWriter(settings).open() as writer:
        writer.refresh_views(full=True)
    print(f"lake written (every analytics view): {time.perf_counter() - started:.1f} s")
    kept.write_text(json.dumps({"url": url, "site_id": site_id, "events": loaded, "start": start.isoformat(),
                                "end": end.isoformat()}))
    return settings, site_id, start, end


def measure(settings: Settings, reads: str, site_id: str, start: datetime, end: datetime, runs: int) -> None:
    settings = dataclasses.replace(settings, workbench_reads=reads)
    engine = WorkbenchEngine(engine_settings(settings), [catalogs.catalog_source(settings, WAREHOUSE)])
    user = UserContext("bench", (GroupPermissions("all", frozenset({"warehouse"})),), {})
    try:
        print(f"-- reading {'the lake' if reads == 'lake' else 'PostgreSQL'} (runs: {runs}, "
              f"load average {os.getloadavg()[0]:.1f})")
        print(f"{'statement':<36} {'p50 ms':>8} {'p95 ms':>8} {'x base':>7} {'rows':>6}")
        baseline = None
        for name, sql, types, values in statements(site_id, start, end):
            timings, rows = timed(engine, user, sql, types, values, runs)
            p50 = statistics.median(timings)
            baseline = p50 if name == "baseline: page views per day" else baseline
            verdict = "" if name.startswith("baseline") else ("  OK" if p50 <= 1000 else "  OVER TARGET (1 s)")
            ratio = f"{p50 / baseline:7.1f}" if baseline else f"{'':>7}"
            print(f"{name:<36} {p50:8.0f} {percentile(timings, 0.95):8.0f} {ratio} {rows:>6}{verdict}")
    finally:
        engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", help="keep the server, its data and the lake in this folder (reused when there)")
    parser.add_argument("--reads", choices=("lake", "postgres", "both"), default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-analyses-") as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        pgdata = base / "pgdata"
        if (base / "bench.json").is_file():
            embedded.start(pgdata)
        try:
            settings, site_id, start, end = prepare(base, args)
            for reads in (("lake", "postgres") if args.reads == "both" else (args.reads,)):
                measure(settings, reads, site_id, start, end, args.runs)
        finally:
            embedded.stop(pgdata)


if __name__ == "__main__":
    main()
