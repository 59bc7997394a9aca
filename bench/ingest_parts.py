"""CPU per server event of each part of the collector's own work, in one process, without HTTP.

The events are `bench/ingest_server.py`'s (the same generator and seed). Each part runs over all
of them, several times; the best CPU time (process time, which other load on the machine changes
much less than wall time) is printed per event:

- body: the request body's JSON, its events left undecoded (`batch_events`);
- events: decoding and checks of each event, then its row (`Ingestion.server_rows`, the salt given);
- copy: the rows formatted as COPY text (`writer.write_rows` into a buffer).

`--profile cprofile` prints the functions that cost most instead; `--profile none --repeat 1` is
a steady load for an instruction counter (`valgrind --tool=callgrind`), which counts the same
instructions however busy the machine is.

`--instructions [REF]` prints instructions per event, for this tree and for REF (default main,
taken out of git into a temporary directory) in the same run: each tree's script runs under
callgrind with every part once and with `--repeat 0` (imports and set-up alone); the difference
is divided by the events. CPU time on a loaded machine moves
with the load; these counts do not (a few minutes: the runs are mostly imports, under valgrind).
Usage: .venv/bin/python bench/ingest_parts.py [--repeat 7] [--profile none|cprofile]
       .venv/bin/python bench/ingest_parts.py --instructions [main] [--batches 32]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from ingest_server import BATCH, make_event  # noqa: E402

from collector_app.collect_api.server_batch import has_unicode_escape, batch_events  # noqa: E402
from pipelines.ingest import writer  # noqa: E402
from pipelines.ingest.service import Ingestion  # noqa: E402
from pipelines.ingest.visitors import utc_day  # noqa: E402

SITE_ID = "6f1c2b7e-3a54-4b8e-9c1d-2e3f4a5b6c7d"


class _Buffer:
    """Stands in for an open COPY: keeps what `write_rows` writes."""

    def __init__(self):
        self.formatter = writer.TextFormatter(_transformer()) if writer.TextFormatter else None
        self.size = 0

    def write(self, data) -> None:
        self.size += len(data)

    def write_row(self, row) -> None:  # the fallback path of write_rows
        self.size += len(row)


def _transformer():
    from psycopg.adapt import Transformer

    return Transformer()


def _ingestion(now: datetime) -> Ingestion:
    service = Ingestion.__new__(Ingestion)
    service.salts = SimpleNamespace(cached=lambda day: bytes(32) if day == utc_day(now) else None)
    return service


PARTS = ("body", "events", "copy")
_COLLECTED = re.compile(rb"Collected\s*:\s*(\d+)")


def _instructions(tree: Path, batches: int, part: str | None, repeat: int, counted: bool = True) -> int:
    """Instructions of one run of `tree`'s copy of this script, under callgrind. The same hash seed
    every run: string hashes (set and dict layouts) then cost the same."""
    command = [sys.executable, str(tree / "bench" / "ingest_parts.py"), "--profile", "none",
               "--batches", str(batches), "--repeat", str(repeat), *(("--part", part) if part else ())]
    if counted:
        command[:0] = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(command, cwd=tree, capture_output=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    return int(_COLLECTED.findall(done.stderr)[-1]) if counted else 0


def _per_event(trees: dict[str, Path], batches: int) -> dict[str, float]:
    """Per tree: the instructions of body, events and copy (once each) per event. The runs are
    mostly imports and set-up (ua-parser's expressions compile at the first parse): two runs a
    tree, all four side by side."""
    from concurrent.futures import ThreadPoolExecutor

    for tree in trees.values():
        _instructions(tree, batches, PARTS[0], 0, counted=False)  # writes the bytecode caches, uncounted
    runs = [(tree, batches, part, 0 if part else 1) for tree in trees.values() for part in (PARTS[0], None)]
    with ThreadPoolExecutor(len(runs)) as pool:
        counts = list(pool.map(lambda arguments: _instructions(*arguments), runs))
    return {name: (counts[2 * i + 1] - counts[2 * i]) / (BATCH * batches) for i, name in enumerate(trees)}


def _tree_of(ref: str, into: Path) -> Path:
    """The files of `ref` (a commit of this repository) under `into`."""
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=REPO, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def compare_instructions(ref: str, batches: int) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts", file=sys.stderr)
        return 1
    commit = subprocess.run(["git", "rev-parse", "--short", ref], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="ingest-parts-") as scratch:
        figures = _per_event({f"{ref} ({commit})": _tree_of(ref, Path(scratch)), "this tree": REPO}, batches)
    print(f"{BATCH * batches:,} server events of bench/ingest_server.py: instructions per event of body, events "
          "and copy (callgrind, less a run of imports and set-up alone)")
    for name, value in figures.items():
        print(f"  {name:<22}{value:>10,.0f}")
    (base, before), (_, after) = figures.items()
    print(f"  this tree against {base}: {after / before - 1:+.1%}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--batches", type=int, default=None, help="64 (32 with --instructions)")
    parser.add_argument("--profile", choices=["none", "cprofile"], default=None)
    parser.add_argument("--part", choices=PARTS, default=None,
                        help="with --profile none: only this part, --repeat times")
    parser.add_argument("--instructions", nargs="?", const="main", default=None, metavar="REF",
                        help="instructions per event under callgrind, this tree beside REF (default main)")
    args = parser.parse_args()
    if args.instructions:
        return compare_instructions(args.instructions, args.batches or 32)
    args.batches = args.batches or 64

    rng = random.Random(7)
    bodies = [json.dumps({"events": [make_event(rng) for _ in range(BATCH)]}).encode()
              for _ in range(args.batches)]
    count = BATCH * len(bodies)
    now = datetime.now(timezone.utc)
    service = _ingestion(now)
    identity = SimpleNamespace(site_id=SITE_ID, accept_user_id=False)

    def body():
        return [batch_events(b) for b in bodies]

    decoded = body()

    def events():
        return [service.server_rows(identity, e, now, has_unicode_escape(b))[0] for e, b in zip(decoded, bodies)]

    rows = events()

    def copy():
        buffer = _Buffer()
        for batch_rows in rows:
            writer.write_rows(buffer, batch_rows)
        return buffer

    parts = {"body": body, "events": events, "copy": copy}
    if args.profile == "none":
        for name, part in parts.items():
            for _ in range(args.repeat if args.part == name else 0 if args.part else 1):
                part()
        return 0
    if args.profile == "cprofile":
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.repeat):
            for part in parts.values():
                part()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return 0
    print(f"{count:,} server events of bench/ingest_server.py, CPU per event (best of {args.repeat})")
    total = 0.0
    for name, part in parts.items():
        best = float("inf")
        for _ in range(args.repeat):
            started = time.process_time()
            part()
            best = min(best, time.process_time() - started)
        total += best
        print(f"  {name:<8}{best / count * 1e6:6.2f} us")
    print(f"  {'total':<8}{total / count * 1e6:6.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
