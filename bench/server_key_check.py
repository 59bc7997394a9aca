"""Collector CPU per server event with the key checked on its own or in the writer's group query.

`POST /collect/server` checks a server key and counts its events against the key's minute. A
request whose key this process has authenticated before leaves both to the writer's group query
(`ServerBatches.begin_cached`, `writer.KeyCheck`); the others, and `main` before it, check the key
in a thread and a statement of its own per batch (`ServerBatches.begin`, the pool lending a
connection). This runs both ways in one process against its own embedded PostgreSQL (fsync on),
alternately, over `bench/ingest_server.py`'s 100-event batches: `--clients` coroutines in one
uvloop event loop send batches one after another through the same steps as the collector's
server (`AsgiServerBatch`), without HTTP. Printed: the process's CPU time (event loop, writer
thread, the threads of the own checks; PostgreSQL's is its own) per event, best of the rounds,
and the events per group commit. The difference is the check's cost; a loaded machine inflates
both alike.

`--way own|group` runs the warm-up and one way only, once, and `--way none` the warm-up alone: a
steady load for an instruction counter (`valgrind --tool=callgrind`), whose counts do not move
with the machine's load; a way's run less the run of `none`, divided by the events, is that way's
instructions per event (the set-up is the same; its polling loops wait on other processes, so
runs differ by a few million instructions).

Usage: .venv/bin/python bench/server_key_check.py [--batches 400] [--clients 8] [--rounds 3] [--way own|group|none]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from ingest_server import BATCH, bench_database, make_event  # noqa: E402
from pipelines.database import embedded  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=400, help="batches per round and way")
    parser.add_argument("--clients", type=int, default=8, help="coroutines sending at once")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--way", choices=["own", "group", "none"], default=None, help="this way only, once")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="analytics-bench-keys-"))
    pgdata = root / "pgdata"
    try:
        url, _, secret = bench_database(pgdata)
        os.environ.update(ANALYTICS_DATABASE_URL=url, ANALYTICS_HOME=str(root / "home"),
                          ANALYTICS_SECRET="bench-secret")
        return _measure(args, secret)
    finally:
        from pipelines.ingest.writer import _writers

        for writer in list(_writers.values()):
            writer.stop()
        embedded.stop(pgdata)
        shutil.rmtree(root, ignore_errors=True)


def _measure(args, secret: str) -> int:
    import uvloop

    from collector_app.app import create_app
    from collector_app.collect_api.context import ingestion
    from collector_app.collect_api.server_asgi import AsgiServerBatch
    from collector_app.collect_api.server_batch import ServerBatches
    from pipelines.ingest.service import utc_now

    app = create_app()
    batches = ServerBatches(ingestion(app))
    endpoint = AsgiServerBatch(batches)
    writer = batches.service.writer
    rng = random.Random(7)
    bodies = [json.dumps({"events": [make_event(rng) for _ in range(BATCH)]}).encode() for _ in range(64)]

    async def own_check(body: bytes) -> None:
        loop = asyncio.get_running_loop()
        batch = await loop.run_in_executor(None, batches.begin, secret, None, body, utc_now())
        assert (await endpoint._stored(batch)).status == 202

    async def in_group(body: bytes) -> None:
        batch = batches.begin_cached(secret, None, body, utc_now())
        assert batch is not None and (await endpoint._stored(batch)).status == 202

    async def run(way) -> None:
        queue = list(range(args.batches))

        async def client() -> None:
            while queue:
                await way(bodies[queue.pop() % len(bodies)])

        await asyncio.gather(*(client() for _ in range(args.clients)))

    ways = {"own check (main's way)": own_check, "in the group query": in_group}
    if args.way:
        ways = {"own": {"own check (main's way)": own_check}, "group": {"in the group query": in_group},
                "none": {}}[args.way]
        args.rounds = 1
    best = {name: float("inf") for name in ways}
    per_group = {}

    async def rounds() -> None:  # one event loop, as a worker has, with its executor's threads
        await run(own_check)  # warm-up: pool, salt, the key in the cache, caches of the events
        for _ in range(args.rounds):
            for name, way in ways.items():
                groups = writer.groups_committed
                started = time.process_time()
                await run(way)
                best[name] = min(best[name], time.process_time() - started)
                per_group[name] = args.batches * BATCH / max(1, writer.groups_committed - groups)

    uvloop.run(rounds())
    events = args.batches * BATCH
    if args.way:
        return 0
    print(f"{events:,} server events a round ({args.batches} batches of {BATCH}, {args.clients} at once), "
          f"collector CPU per event, best of {args.rounds} (load average {os.getloadavg()[0]:.1f})")
    for name, seconds in best.items():
        print(f"  {name:<24}{seconds / events * 1e6:6.2f} us   ({per_group[name]:,.0f} events per commit)")
    (_, before), (_, after) = best.items()
    print(f"  difference              {(after - before) / events * 1e6:+6.2f} us ({after / before - 1:+.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
