"""No acknowledged event is lost when the database stops and starts under load, nor when a
worker is killed.

The collector runs under real gunicorn (2 workers) against its own embedded PostgreSQL, which the
test stops in the middle of a load and starts again; a worker is killed (SIGKILL) while the
database is down, its spool segment left for the others, and another while its writer commits the
groups that check the server key with their rows. Every event carries a unique sequence number;
each one acknowledged by a 202 must be in raw.events exactly once after the replay. The spool
written during the outage, the gunicorn log and a pg_dump are searched for the IP addresses sent.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psycopg
import pytest
import requests

from analytics_cli.supervisor import collector_command
from pipelines.admin.server_keys import create_server_key
from pipelines.database import connection, embedded, migrate
from tests.conftest import free_port

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
IP_PREFIX = "198.51.100."


def _wait(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _healthy(base: str) -> bool:
    try:
        return requests.get(base + "/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def _kill_a_worker(master_pid: int) -> None:
    """SIGKILL one of gunicorn's workers (it starts another): nothing of the killed one's ends cleanly."""
    import psutil

    workers = psutil.Process(master_pid).children()
    assert workers, "no gunicorn worker to kill"
    os.kill(workers[0].pid, signal.SIGKILL)


class Load:
    """Threads posting batches of events numbered uniquely; records what was acknowledged."""

    def __init__(self, base: str, secret: str, threads: int = 6, batch: int = 20):
        self.base, self.secret, self.batch = base, secret, batch
        self.acknowledged: list[int] = []
        self.acknowledged_while_down = 0
        self.statuses: dict[int, int] = {}
        self.database_down = False
        self._next = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run) for _ in range(threads)]

    def start(self):
        for t in self._threads:
            t.start()
        return self

    def stop(self):
        self._stop.set()
        for t in self._threads:
            t.join()

    def _run(self):
        session = requests.Session()
        headers = {"Authorization": f"Bearer {self.secret}"}
        while not self._stop.is_set():
            with self._lock:
                first, self._next = self._next, self._next + self.batch
                down = self.database_down
            numbers = list(range(first, first + self.batch))
            events = [{"type": "event", "name": "load", "props": {"seq": n},
                       "ip": f"{IP_PREFIX}{n % 200 + 1}", "user_agent": "DurabilityProbe/1.0"} for n in numbers]
            try:
                r = session.post(self.base + "/collect/server", json={"events": events}, headers=headers, timeout=30)
            except requests.RequestException:
                continue
            with self._lock:
                self.statuses[r.status_code] = self.statuses.get(r.status_code, 0) + 1
                if r.status_code == 202:
                    assert r.json()["accepted"] == self.batch
                    self.acknowledged.extend(numbers)
                    if down and self.database_down:
                        self.acknowledged_while_down += self.batch


def test_no_acknowledged_event_is_lost_when_the_database_restarts(tmp_path):
    # Not under pytest's tmp_path: the server runs as another user when tests run as root, and
    # pytest's folders are owner-only (the session database does the same, see tests/conftest.py).
    pg_root = Path(tempfile.mkdtemp(prefix="analytics-durability-"))
    pgdata = pg_root / "pgdata"
    home = tmp_path / "home"
    state = embedded.start(pgdata)
    server = None
    try:
        connection.ensure_database(state.url("postgres"), "analytics")
        url = state.url("analytics")
        migrate.migrate(url)
        with psycopg.connect(url) as conn:
            site_id = conn.execute("insert into collect.sites (name) values ('Durable') returning site_id").fetchone()[0]
            secret = create_server_key(conn, site_id, actor="test", rate_limit_per_minute=1_000_000)["secret"]
        port = free_port()
        log_path = tmp_path / "gunicorn.log"
        env = {**os.environ, "ANALYTICS_DATABASE_URL": url, "ANALYTICS_HOME": str(home),
               "ANALYTICS_SECRET": "durability-test-secret"}
        with log_path.open("w") as log:
            server = subprocess.Popen(
                collector_command(2, f"127.0.0.1:{port}"),
                cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        base = f"http://127.0.0.1:{port}"
        _wait(lambda: _healthy(base), 30, "the collector")

        load = Load(base, secret).start()
        _wait(lambda: len(load.acknowledged) >= 2000, 30, "acknowledged events before the outage")
        embedded.stop(pgdata)
        # Counted as sent while down only once the server has stopped: the requests sent during its
        # stop may still commit (on a loaded machine the stop took long enough for 500 of them).
        with load._lock:
            load.database_down = True
        spool_dir = home / "spool"
        _wait(lambda: load.acknowledged_while_down >= 500, 30, "events acknowledged while the database is down")
        spooled_text = "".join(p.read_text(errors="replace") for p in spool_dir.glob("*.jsonl"))
        assert spooled_text.count('"load"') >= 500
        _kill_a_worker(server.pid)  # its segment holds acknowledged events: another process replays it
        embedded.start(pgdata)
        with load._lock:
            load.database_down = False
        mark = len(load.acknowledged)
        _wait(lambda: len(load.acknowledged) >= mark + 1000, 60, "acknowledged events after the restart")
        _kill_a_worker(server.pid)  # in the middle of its group commits
        _wait(lambda: len(load.acknowledged) >= mark + 2000, 60, "acknowledged events after a worker was killed")
        load.stop()

        acknowledged = set(load.acknowledged)
        assert len(acknowledged) == len(load.acknowledged)

        def stored() -> dict[int, int]:
            with psycopg.connect(url) as conn:
                return dict(conn.execute(
                    "select (props->>'seq')::int, count(*) from raw.events group by 1").fetchall())

        # The writers replay the spool before their next group; an idle one within a few seconds.
        _wait(lambda: acknowledged <= set(stored()), 60, "every acknowledged event in raw.events")
        counts = stored()
        assert not acknowledged - set(counts)
        assert all(counts[n] == 1 for n in acknowledged), "an acknowledged event was stored twice"
        assert not list(spool_dir.glob("*.jsonl"))

        server.terminate()
        server.wait(30)
        server = None
        dump = subprocess.run([str(embedded.binary("pg_dump")), "-d", url], check=True, capture_output=True,
                              text=True).stdout
        for where, text in {"spool": spooled_text, "gunicorn log": log_path.read_text(), "pg_dump": dump}.items():
            assert IP_PREFIX not in text, f"an IP address is in the {where}"
            assert "DurabilityProbe" not in text, f"the user agent is in the {where}"
        print(f"\nacknowledged {len(acknowledged)} events, {load.acknowledged_while_down} while the database "
              f"was down; statuses {load.statuses}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(30)
        embedded.stop(pgdata)
        shutil.rmtree(pg_root, ignore_errors=True)
