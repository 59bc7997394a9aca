"""Benchmark of POST /collect: single-event requests, as the tracking script sends a page view.

Same set-up as bench/ingest_server.py (its own embedded PostgreSQL with default durability
settings, the collector under gunicorn with 2 workers). Concurrent clients post one page view per
request, text/plain, from an allowed origin with a desktop user agent; each request comes through
a trusted proxy (127.0.0.1) with its own X-Forwarded-For address, as many visitors would.
Prints events/s and p50/p99 latency, for 32 then 64 concurrent clients (`--clients`). Expected
(issue 17): >= 10,000 events/s, p99 <= 10 ms. Each client is a closed loop (its next beacon once
the last is answered), so its rate is at most one over the latency, which the commit's flush to
disk sets: 32 clients at 3.5 ms cannot send more than about 9,000 a second whatever the
collector's capacity; 64 clients show what the same collector sustains at twice the concurrency.
The clients are one thread over raw keep-alive sockets (bench/lean_client.py): the thread-per-
connection http.client clients of earlier runs (`--client threads`) took a third as much CPU as
the collector, on the same 2 CPUs.
Gunicorn runs the collector as `analytics up` does (uvicorn workers, the beacon answered in the event loop).
Usage: .venv/bin/python bench/ingest_browser.py [--seconds 10] [--clients 32 64]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import psycopg

from ingest_server import (USER_AGENTS, collector_under_gunicorn, cpu_seconds, describe_errors, percentile,
                           run_clients)
from lean_client import prepare, run_closed_loop

ORIGIN = "https://shop.example.com"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[32, 64],
                        help="one measured run per number of concurrent clients, on the same collector")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--client", choices=("lean", "threads"), default="lean",
                        help="lean: one thread over raw keep-alive sockets (bench/lean_client.py); "
                             "threads: http.client in a thread per connection, as before (costs more CPU)")
    args = parser.parse_args()
    rng = random.Random(11)
    results = []
    with collector_under_gunicorn(args.workers, domains=("shop.example.com",)) as bench:
        requests = []
        for n in range(2000):
            page = rng.choice(["/", "/pricing", "/blog/post", "/shop/shoes"])
            body = json.dumps({"site": bench.site_id, "events": [{
                "type": "pageview", "url": f"{ORIGIN}{page}?utm_source=news", "title": "Page", "language": "en-US",
                "screen": "desktop", "page_id": f"{n:026d}", "ts": int(time.time() * 1000)}]}).encode()
            address = f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            requests.append((body, {"Content-Type": "text/plain;charset=UTF-8", "Origin": ORIGIN,
                                    "User-Agent": rng.choice(USER_AGENTS), "X-Forwarded-For": address}))

        def load(seconds: float, clients: int):
            if args.client == "threads":
                return run_clients(bench.port, "/collect", requests, seconds, clients, ok=204, events_each=1)
            raw = [prepare("POST", "/collect", f"127.0.0.1:{bench.port}", body, headers) for body, headers in requests]
            answered, latencies, errors = run_closed_loop(bench.port, raw, seconds, clients, ok=204)
            return answered / seconds, latencies, errors

        for clients in args.clients:
            load(2.0, clients)  # warm-up
            with psycopg.connect(bench.url) as conn:
                commits_before = _commits(conn)
            before = cpu_seconds(bench.server.pid, bench.pgdata)
            rate, latencies, errors = load(args.seconds, clients)
            after = cpu_seconds(bench.server.pid, bench.pgdata)
            with psycopg.connect(bench.url) as conn:
                commits = _commits(conn) - commits_before - 1  # less this query's own
            cpu = {name: (after[name] - before[name]) / max(1, rate * args.seconds) * 1e6 for name in after}
            results.append((clients, rate, latencies, errors, cpu, rate * args.seconds / max(1, commits)))
        with psycopg.connect(bench.url) as conn:
            stored = conn.execute("select count(*) from raw.events where source = 'browser'").fetchone()[0]
            refused = conn.execute("select coalesce(sum(count), 0) from collect.rejections").fetchone()[0]
    print()
    print(f"POST /collect, one event per request, gunicorn {args.workers} workers (uvicorn), "
          f"{os.cpu_count()} CPUs, PostgreSQL with fsync on")
    for clients, rate, latencies, errors, cpu, per_commit in results:
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(f"\n{clients} clients, each sending its next beacon when the last is answered")
        print(f"{'measure':<30}{'value':>14}  {'target':<12}{'met':>4}")
        print("-" * 62)
        for name, value, target, met in [
            ("events/s", f"{rate:,.0f}", ">= 10,000", rate >= 10_000),
            ("p50 latency", f"{p50 * 1000:.1f} ms", "", None),
            ("p99 latency", f"{p99 * 1000:.1f} ms", "<= 10 ms", p99 <= 0.010),
            ("non-204 answers by status", describe_errors(errors), "0", not errors),
        ]:
            print(f"{name:<30}{value:>14}  {target:<12}{'' if met is None else ('yes' if met else 'NO'):>4}")
        print(f"CPU time per event: collector {cpu['collector']:.0f} us, PostgreSQL {cpu['postgres']:.0f} us, "
              f"client {cpu['client']:.0f} us; events per commit (group commit size): {per_commit:.1f}")
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; events stored: {stored:,}; "
          f"refused and counted: {refused:,}; client: {args.client}")
    return 0


def _commits(conn) -> int:
    """Transactions committed in the database so far (the statistics lag by up to a second)."""
    conn.execute("select pg_stat_clear_snapshot()")
    return conn.execute("select xact_commit from pg_stat_database where datname = current_database()").fetchone()[0]


if __name__ == "__main__":
    sys.exit(main())
