"""Benchmark of the lake (issue 27): the workbench's statements through the lake and through PostgreSQL.

Starts an embedded PostgreSQL in a temporary directory, loads N synthetic events over 90 days
(bench/pipeline.py's generator, COPY), builds every model with dbt, then:

1. writes the lake (every analytics view, every closed raw day) and prints its size beside
   PostgreSQL's for the same rows (raw events and the dbt tables the views read);
2. times the export of one raw day (about N/90 events; the target is 111,000 events in <= 2 s);
3. loads one more day, runs the incremental build, and times the lake's refresh after it (<= 5 s);
4. runs five workbench statements through the engine as the product builds it, once reading the
   lake and once PostgreSQL (the reader role), warm, median of 5, and prints each one's speed-up
   beside the floor (the lake >= 10x faster at 10,000,000 events);
5. prints the peak RSS of the engine's process during the lake statements, sampled every 0.05 s
   (with several sizes, the table shows whether it grows with the data: it should not, DuckDB
   streams the files).

Several sizes (`--events 1000000 10000000`) run one after another on fresh servers. With
`--keep DIR` (one size), the server, its data and the lake stay in DIR, and a later run with the
same DIR skips the load, the full build and the first export (steps 2 to 5 again, on one more day).
Run: ``python bench/lake.py [--events N [N ...]] [--days D] [--repeat R] [--keep DIR]``.
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
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil  # noqa: E402
import psycopg  # noqa: E402

from bench.pipeline import DbtBuilds, load, shop_database, synthetic_events  # noqa: E402
from pipelines.database import embedded  # noqa: E402
from pipelines.key_derivation import reader_password  # noqa: E402
from pipelines.lake.export import LakeWriter  # noqa: E402
from pipelines.settings import Settings  # noqa: E402
from workbench_app.engine import GroupPermissions, UserContext, WorkbenchEngine  # noqa: E402
from workbench_app.sources import catalogs  # noqa: E402
from workbench_app.sources.engine_catalogs import engine_settings  # noqa: E402

SECRET = "bench-lake-secret"
ADMIN = UserContext("bench", (GroupPermissions("admins", unrestricted_catalogs=frozenset({"warehouse"})),), {})
SPEED_UP_FLOOR = 10.0
EXPORT_DAY_TARGET_S = 2.0
REFRESH_TARGET_S = 5.0


def statements(site_id: str, day: str, since: str) -> list[tuple[str, str]]:
    return [
        ("count of events", "SELECT count(*) FROM events"),
        ("visits by channel", "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 ORDER BY 2 DESC"),
        ("top 20 pages, 90 days", f"SELECT path, count(*) AS views FROM pageviews WHERE occurred_at >= "
                                  f"TIMESTAMPTZ '{since}' GROUP BY 1 ORDER BY 2 DESC LIMIT 20"),
        ("attribution, one site", f"SELECT attribution_model, sum(credit), sum(revenue_credit) FROM attribution "
                                  f"WHERE site_id = '{site_id}' GROUP BY 1 ORDER BY 1"),
        ("events x visits, a day", f"SELECT count(*), sum(v.pageview_count) FROM events e JOIN visits v "
                                   f"USING (visit_id) WHERE e.occurred_at >= TIMESTAMPTZ '{day} 00:00:00+00' "
                                   f"AND e.occurred_at < TIMESTAMPTZ '{day} 00:00:00+00' + INTERVAL 1 DAY"),
    ]


class PeakRss:
    """The peak resident memory of this process while it is entered (sampled)."""

    def __enter__(self):
        self.peak, self._stop = 0, threading.Event()
        process = psutil.Process()

        def sample():
            while not self._stop.wait(0.05):
                self.peak = max(self.peak, process.memory_info().rss)
        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def timed(engine: WorkbenchEngine, sql: str, repeat: int) -> tuple[float, list]:
    """Median seconds of `repeat` warm runs (one run first to warm caches and the rewrite)."""
    rows = engine.run(sql, ADMIN).rows
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        engine.run(sql, ADMIN)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), rows


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def postgres_bytes(url: str) -> int:
    """PostgreSQL's size of what the lake holds: raw events and the dbt tables the views read."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            """select coalesce(sum(pg_total_relation_size(c.oid)), 0)
                 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where n.nspname in ('raw', 'intermediate', 'marts') and c.relkind = 'r'""").fetchone()[0]


def bench_size(events: int, args: argparse.Namespace) -> dict:
    rng = random.Random(27 if not args.keep else time.time_ns())
    with tempfile.TemporaryDirectory(prefix="bench-lake-") as tmp:
        base = Path(args.keep) if args.keep else Path(tmp)
        pgdata, kept = base / "pgdata", base / "bench.json"
        state = embedded.start(pgdata)
        try:
            settings = Settings(home=base / "home", database_url="postgresql://unused/analytics",
                                server_secret_value=SECRET, lake_dir=base / "lake")
            now = datetime.now(timezone.utc).replace(microsecond=0)
            builds_target = base / "dbt-target"
            if kept.is_file():
                previous = json.loads(kept.read_text())
                url, site_id, loaded = previous["url"], previous["site_id"], previous["events"]
                history_end = datetime.fromisoformat(previous["history_end"])
                settings = dataclasses.replace(settings, database_url=url)
                builds = DbtBuilds(url, 4, False, builds_target)
                print(f"== {loaded:,} events over {args.days} days and the days added since, kept in {base} "
                      f"(load average {os.getloadavg()[0]:.1f})")
            else:
                url, site_id = shop_database(state.url("postgres"), "analytics", args.days,
                                             reader_password=reader_password(settings))
                settings = dataclasses.replace(settings, database_url=url)
                history_end = now - timedelta(days=1)
                loaded, builds = load_and_export(url, site_id, events, history_end, settings, builds_target,
                                                 args, rng)
                if args.keep:
                    kept.write_text(json.dumps({"url": url, "site_id": site_id, "events": loaded,
                                                "history_end": history_end.isoformat()}))
            lake_size, pg_size = folder_bytes(settings.lake_path), postgres_bytes(url)
            print(f"size on disk: lake {lake_size / 2**20:,.0f} MiB, PostgreSQL {pg_size / 2**20:,.0f} MiB "
                  f"(raw events and dbt tables): {pg_size / max(lake_size, 1):.1f}x smaller")

            day = (history_end - timedelta(days=args.days // 2)).date()
            with LakeWriter(settings).open() as writer:
                started = time.perf_counter()
                exported = writer.export_raw_day(day)
                export_seconds = time.perf_counter() - started
            print(f"export of one raw day: {exported.rows_written:,} events in {export_seconds:.2f} s "
                  f"(target: 111,000 events <= {EXPORT_DAY_TARGET_S:.0f} s)")

            per_day = max(1, events // args.days)
            load(url, synthetic_events(site_id, per_day, now - timedelta(days=1), now, rng))
            started = time.perf_counter()
            builds.build("--exclude", "config.materialized:view")
            build_seconds = time.perf_counter() - started
            with LakeWriter(settings).open() as writer:
                started = time.perf_counter()
                refreshed = writer.refresh_views()
                refresh_seconds = time.perf_counter() - started
            written = sum(r.written for r in refreshed)
            print(f"incremental build of one day ({per_day:,} events): {build_seconds:.1f} s; "
                  f"lake refresh after it: {refresh_seconds:.2f} s, {written} files rewritten "
                  f"(target <= {REFRESH_TARGET_S:.0f} s)")
            print("    slowest tables: " + ", ".join(f"{r.table} {r.seconds:.2f} s" for r in
                                                    sorted(refreshed, key=lambda r: -r.seconds)[:5]))

            lake_engine = WorkbenchEngine(engine_settings(settings), [catalogs.catalog_source(
                settings, {"name": "warehouse", "kind": "warehouse", "options": {}})])
            pg_engine = WorkbenchEngine(engine_settings(dataclasses.replace(settings, workbench_reads="postgres")),
                                        [catalogs.catalog_source(dataclasses.replace(
                                            settings, workbench_reads="postgres"),
                                            {"name": "warehouse", "kind": "warehouse", "options": {}})])
            sources = {t: f.source for t, f in lake_engine.lake_freshness()["warehouse"].items()}
            print(f"lake engine reads: {sources['events']} (events), {sources['visits']} (visits)")
            figures = []
            since = (now - timedelta(days=90)).isoformat()
            with PeakRss() as rss:
                for name, sql in statements(site_id, day.isoformat(), since):
                    lake_s, lake_rows = timed(lake_engine, sql, args.repeat)
                    figures.append([name, lake_s, lake_rows])
            for figure, (_, sql) in zip(figures, statements(site_id, day.isoformat(), since)):
                pg_s, pg_rows = timed(pg_engine, sql, args.repeat)
                figure += [pg_s, _same(figure[2], pg_rows)]
            print(f"{'statement':<24} | lake ms | postgres ms | speed-up | same rows")
            for name, lake_s, _, pg_s, same in figures:
                print(f"{name:<24} | {lake_s * 1000:7.1f} | {pg_s * 1000:11.1f} | {pg_s / lake_s:7.1f}x | {same}")
            print(f"peak RSS of the engine's process during the lake statements: {rss.peak / 2**20:,.0f} MiB")
            lake_engine.close()
            pg_engine.close()
            return {"events": loaded, "figures": figures, "rss": rss.peak, "export": export_seconds,
                    "export_rows": exported.rows, "refresh": refresh_seconds, "lake": lake_size, "pg": pg_size}
        finally:
            embedded.stop(pgdata)


def load_and_export(url: str, site_id: str, events: int, history_end: datetime, settings: Settings,
                    builds_target: Path, args: argparse.Namespace, rng: random.Random) -> tuple[int, DbtBuilds]:
    """Step 1: the history loaded and built, then the whole lake written (every view, every day)."""
    print(f"== {events:,} events over {args.days} days (load average {os.getloadavg()[0]:.1f})")
    started = time.perf_counter()
    loaded = load(url, synthetic_events(site_id, events, history_end - timedelta(days=args.days), history_end, rng))
    builds = DbtBuilds(url, 4, False, builds_target)
    builds.build()
    print(f"loaded and built in {time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    with LakeWriter(settings).open() as writer:
        views = writer.refresh_views(full=True)
        views_seconds = time.perf_counter() - started
        first_day = (history_end - timedelta(days=args.days)).date()
        for offset in range(args.days + 1):
            writer.export_raw_day(first_day + timedelta(days=offset))
    print(f"first export of the lake: every view {views_seconds:.1f} s (slowest: " + ", ".join(
        f"{r.table} {r.seconds:.1f} s" for r in sorted(views, key=lambda r: -r.seconds)[:4])
        + f"), then {args.days + 1} raw days: {time.perf_counter() - started - views_seconds:.1f} s")
    return loaded, builds


def _same(a: list, b: list) -> bool:
    """Whether two results hold the same rows (floats within 1e-9 relative: sums in another order)."""
    if len(a) != len(b):
        return False
    for left, right in zip(sorted(a, key=repr), sorted(b, key=repr)):
        for x, y in zip(left, right):
            if isinstance(x, float) and isinstance(y, float):
                if abs(x - y) > 1e-9 * max(abs(x), abs(y), 1.0):
                    return False
            elif x != y:
                return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", metavar="DIR", help="keep the server and the lake in DIR (and reuse them)")
    args = parser.parse_args()
    if args.keep and len(args.events) > 1:
        parser.error("--keep takes one size")
    runs = [bench_size(events, args) for events in args.events]
    print("\n    events | slowest speed-up | export day s | refresh s | lake MiB | pg MiB | peak RSS MiB")
    for run in runs:
        slowest = min(pg_s / lake_s for _, lake_s, _, pg_s, _ in run["figures"])
        print(f"{run['events']:>10,} | {slowest:15.1f}x | {run['export']:12.2f} | {run['refresh']:9.2f} | "
              f"{run['lake'] / 2**20:8,.0f} | {run['pg'] / 2**20:6,.0f} | {run['rss'] / 2**20:12,.0f}")
    print(f"floors: each statement >= {SPEED_UP_FLOOR:.0f}x at 10,000,000 events; one day of 111,000 events "
          f"exported <= {EXPORT_DAY_TARGET_S:.0f} s; refresh after an incremental build <= {REFRESH_TARGET_S:.0f} s")


if __name__ == "__main__":
    main()
