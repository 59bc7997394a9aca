"""Benchmark of the inbound webhook receivers (issue 6).

Starts an embedded PostgreSQL of its own (in a temporary directory, fsync on, as in production),
migrates it, builds the inbound dbt models (live views), configures a chat webhook source, and
runs the collector under gunicorn (the product's gunicorn settings). Then, for a bounded time,
concurrent senders POST signed deliveries of 50 events each (as the chat service does at most),
while a probe measures the lag from an event's delivery to its row in the exposed view
`analytics.chat_messages` (or, if the dbt build failed, to the processed raw row; it says so).

Prints: deliveries/s and events/s answered 2xx, p50/p99/max answer time (the sender's limit is
10 s), lag p50/p99/max, and the time to drain the inbox after the load stops.

Run: ``python bench/inbound.py [--seconds 20] [--senders 8] [--workers 2]``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import requests  # noqa: E402

from analytics_cli.supervisor import collector_command  # noqa: E402
from pipelines.database import bootstrap, embedded  # noqa: E402
from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable  # noqa: E402
from pipelines.inbound import signatures, sources  # noqa: E402
from pipelines.settings import Settings  # noqa: E402

INBOUND_MODELS = ["path:models/staging/chat", "path:models/intermediate/inbound", "path:models/marts/inbound",
                  "path:models/analytics/inbound", "path:models/staging/database_service"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def chat_event(conversation_id: str, message_id: str | None = None) -> dict:
    now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return {
        "id": str(uuid.uuid4()), "type": "message.created", "occurredAt": now,
        "conversation": {"id": conversation_id, "contact": {"id": conversation_id, "name": "N", "email": "e@x",
                                                            "identified": False},
                         "site": "Bench", "siteId": conversation_id, "channel": "web", "inboxId": conversation_id,
                         "teamId": None, "status": "open", "assignee": None, "assigneeId": None, "unread": True,
                         "handedOff": False, "preview": "hello", "previewAuthor": "visitor", "previewAgent": None,
                         "previewFiles": 0, "lastMessageAt": now, "priority": "normal", "sentiment": "neutral",
                         "tags": [], "snoozedUntil": None},
        "message": {"id": message_id or str(uuid.uuid4()), "at": now, "kind": "visitor",
                    "body": "A question about my order, with a few sentences of text in it." * 3,
                    "attachments": []},
    }


def build_models(url: str, work: Path) -> tuple[bool, str]:
    env = {**os.environ, **dbt_environment(url)}
    result = subprocess.run([dbt_executable(), "run", "--select", *INBOUND_MODELS, "--project-dir", str(DBT_PROJECT_DIR),
                             "--profiles-dir", str(DBT_PROJECT_DIR), "--target-path", str(work / "dbt-target"),
                             "--log-path", str(work / "dbt-logs")],
                            env=env, capture_output=True, text=True, timeout=600, cwd=DBT_PROJECT_DIR)
    return result.returncode == 0, (result.stdout + result.stderr)[-2000:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="duration of the load (bounded)")
    parser.add_argument("--senders", type=int, default=8, help="concurrent senders")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn worker processes")
    parser.add_argument("--paced-rate", type=float, default=20.0, help="deliveries/s of the paced phase")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 120.0)

    work = Path(tempfile.mkdtemp(prefix="bench-inbound-"))
    settings = Settings(home=work / "home", server_secret_value="bench-secret-" + uuid.uuid4().hex)
    gunicorn = None
    try:
        print("starting an embedded PostgreSQL and migrating...", flush=True)
        urls, _ = bootstrap.prepare(settings)
        secret = "whsec_" + uuid.uuid4().hex
        with psycopg.connect(urls.analytics) as conn:
            source = sources.create_source(conn, sources.sealing_key(settings),
                                           {"kind": "chat_webhook", "secrets": [secret]}, actor="bench")
        print("building the inbound dbt models (live views)...", flush=True)
        views_ok, dbt_output = build_models(urls.analytics, work)
        if not views_ok:
            print("dbt build failed; lag is measured to the processed raw row instead:\n" + dbt_output, flush=True)
        lag_target = "analytics.chat_messages (exposed view)" if views_ok else "raw.chat_events (processed raw row)"
        lag_query = ("select 1 from analytics.chat_messages where message_id = %s" if views_ok
                     else "select 1 from raw.chat_events where message_id = %s")

        port = free_port()
        env = {**os.environ, "ANALYTICS_HOME": str(settings.home), "ANALYTICS_DATABASE_URL": urls.analytics,
               "ANALYTICS_SECRET": settings.server_secret_value}
        gunicorn = subprocess.Popen(
            collector_command(args.workers, f"127.0.0.1:{port}", "--access-logfile", "/dev/null"),
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.2)
        else:
            raise SystemExit("the collector did not start")
        target = f"{base}/ingest/chat/{source['id']}"

        def run_phase(seconds: float, rate: float | None) -> dict:
            """Senders for `seconds` (as fast as answered, or paced at `rate` deliveries/s in all),
            and a probe measuring the lag of single events meanwhile."""
            stop = threading.Event()
            latencies: list[float] = []
            statuses: dict[int, int] = {}
            lags: list[float] = []
            lock = threading.Lock()

            def sender(number: int) -> None:
                session = requests.Session()
                conversations = [str(uuid.uuid4()) for _ in range(20)]
                interval = args.senders / rate if rate else 0.0
                next_at = time.perf_counter() + number * interval / args.senders
                i = 0
                while not stop.is_set():
                    if interval:
                        stop.wait(max(0.0, next_at - time.perf_counter()))
                        next_at += interval
                        if stop.is_set():
                            break
                    events = [chat_event(conversations[(i + k) % 20]) for k in range(50)]
                    i += 1
                    body = json.dumps({"events": events}, separators=(",", ":")).encode()
                    headers = {"Content-Type": "application/json", "User-Agent": "msg-webhook/1",
                               "X-Msg-Signature": signatures.signature_header(secret, body),
                               "X-Msg-Delivery-Id": str(uuid.uuid4())}
                    started = time.perf_counter()
                    response = session.post(target, data=body, headers=headers, timeout=10)
                    elapsed = time.perf_counter() - started
                    with lock:
                        latencies.append(elapsed)
                        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

            def probe() -> None:
                session = requests.Session()
                with psycopg.connect(urls.analytics, autocommit=True) as conn:
                    while not stop.is_set():
                        message_id = str(uuid.uuid4())
                        body = json.dumps({"events": [chat_event(str(uuid.uuid4()), message_id)]}).encode()
                        sent = time.perf_counter()
                        session.post(target, data=body, timeout=10,
                                     headers={"X-Msg-Signature": signatures.signature_header(secret, body)})
                        while conn.execute(lag_query, (message_id,)).fetchone() is None:
                            if time.perf_counter() - sent > 60:
                                break
                            time.sleep(0.005)
                        lags.append(time.perf_counter() - sent)
                        stop.wait(0.2)

            threads = [threading.Thread(target=sender, args=(n,)) for n in range(args.senders)]
            threads.append(threading.Thread(target=probe))
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            time.sleep(seconds)
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
            duration = time.perf_counter() - started
            drain_started = time.perf_counter()
            with psycopg.connect(urls.analytics, autocommit=True) as conn:
                while conn.execute("select count(*) from raw.inbound_inbox where processed_at is null").fetchone()[0]:
                    if time.perf_counter() - drain_started > 120:
                        break
                    time.sleep(0.05)
            return {"duration": duration, "latencies": latencies, "statuses": statuses, "lags": lags,
                    "drain": time.perf_counter() - drain_started}

        def report(title: str, phase: dict) -> None:
            accepted = phase["statuses"].get(202, 0)
            duration, latencies, lags = phase["duration"], phase["latencies"], phase["lags"]
            print(f"\n{title}")
            print(f"  deliveries answered 202   {accepted} in {duration:.1f} s = {accepted / duration:.0f} deliveries/s "
                  f"({accepted * 50 / duration:.0f} events/s)")
            print(f"  other answers             {({k: v for k, v in phase['statuses'].items() if k != 202}) or 'none'}")
            print(f"  answer time               p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                  f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
                  "(sender's limit: 10 s)")
            print(f"  lag to {lag_target}: p50 {percentile(lags, 0.5) * 1000:.0f} ms, "
                  f"p99 {percentile(lags, 0.99) * 1000:.0f} ms, max {max(lags) * 1000:.0f} ms ({len(lags)} probes)")
            print(f"  inbox drained             {phase['drain']:.1f} s after the load stopped")

        print(f"phase 1: {args.senders} senders, 50-event deliveries as fast as answered, {args.seconds:.0f} s, "
              f"gunicorn with {args.workers} workers, {os.cpu_count()} CPUs shared with the senders and PostgreSQL...",
              flush=True)
        saturated = run_phase(args.seconds, None)
        print(f"phase 2: paced at {args.paced_rate:.0f} deliveries/s ({args.paced_rate * 50:.0f} events/s) "
              f"for {args.seconds / 2:.0f} s...", flush=True)
        paced = run_phase(args.seconds / 2, args.paced_rate)
        report("saturating load (throughput; the lag includes the backlog it builds)", saturated)
        report(f"paced load at {args.paced_rate:.0f} deliveries/s (lag in steady state)", paced)
        with psycopg.connect(urls.analytics, autocommit=True) as conn:
            stored = conn.execute("select count(*) from raw.chat_events").fetchone()[0]
            pending = conn.execute("select count(*) from raw.inbound_inbox where processed_at is null").fetchone()[0]
        print(f"\n{stored} events stored, {pending} deliveries left unprocessed")
        return 0
    finally:
        if gunicorn is not None:
            os.killpg(gunicorn.pid, signal.SIGTERM)
            try:
                gunicorn.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(gunicorn.pid, signal.SIGKILL)
        embedded.stop(settings.pgdata)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
