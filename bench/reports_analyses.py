"""Benchmark of funnels, paths and retention (issue 31): their statements on 1,000,000 events.

Starts an embedded PostgreSQL in a temporary directory, loads N synthetic events (default
1,000,000 over 90 days: bench/pipeline.py's shop, visits of 1-12 events by returning cookie
visitors) into raw.events with COPY, builds the dbt project (the real `analytics` views), then runs
through the workbench engine (DuckDB over the warehouse, the permission rewrite included, as the
statement path runs them):

* the baseline: `count(*)` of analytics.events, and page views per day (a dashboard's question);
* a funnel of four steps (/ -> /shoes* -> view_item -> purchase, within a day);
* a path around /shoes (2 steps before, 3 after, 5 branches);
* weekly retention of first visits over the 90 days (8 weeks after).

Each statement runs once to warm up, then `--runs` times; p50 and p95 in milliseconds. Target:
each analysis <= 1 s on 1,000,000 events.

Run: ``python bench/reports_analyses.py [--events N] [--days D] [--runs R]``.
"""
from __future__ import annotations

import argparse
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
from bench.workbench_query import _libpq  # noqa: E402
from pipelines.database import embedded  # noqa: E402
from workbench_app.analyses.compiler import compile_analysis  # noqa: E402
from workbench_app.engine import CatalogSource, EngineSettings, GroupPermissions, UserContext, WorkbenchEngine  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(31)
    with tempfile.TemporaryDirectory(prefix="bench-analyses-") as tmp:
        pgdata = Path(tmp) / "pgdata"
        state = embedded.start(pgdata)
        try:
            url, site_id = shop_database(state.url("postgres"), "bench", args.days)
            end = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=1)
            start = end - timedelta(days=args.days)
            started = time.perf_counter()
            loaded = load(url, synthetic_events(site_id, args.events, start, end, rng))
            print(f"loaded {loaded:,} events in {time.perf_counter() - started:.1f} s")
            build = DbtBuilds(url, 2, False, Path(tmp) / "dbt-target").build()
            print(f"dbt build: {build:.1f} s")
            engine = WorkbenchEngine(EngineSettings(timeout_seconds=120, row_limit=10_000, mask_salt="bench-salt"))
            try:
                engine.attach_catalog(CatalogSource("warehouse", "postgres", _libpq(url), schemas=("analytics",)))
                user = UserContext("bench", (GroupPermissions("all", frozenset({"warehouse"})),), {})
                print(f"{'statement':<36} {'p50 ms':>8} {'p95 ms':>8} {'rows':>6}   (runs: {args.runs}, "
                      f"load {os.getloadavg()[0]:.1f})")
                for name, sql, types, values in statements(site_id, start, end):
                    timings, rows = timed(engine, user, sql, types, values, args.runs)
                    verdict = "" if name.startswith("baseline") else (
                        "  OK" if percentile(timings, 0.5) <= 1000 else "  OVER TARGET (1 s)")
                    print(f"{name:<36} {statistics.median(timings):8.0f} {percentile(timings, 0.95):8.0f} "
                          f"{rows:>6}{verdict}")
            finally:
                engine.close()
        finally:
            embedded.stop(pgdata)


if __name__ == "__main__":
    main()
