"""`analytics up` end to end: every component answers, Ctrl-C stops all, data survives."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import requests

from tests.conftest import free_port

ANALYTICS = str(Path(sys.executable).parent / "analytics")
pytestmark = pytest.mark.slow


def wait_for(urls, deadline):
    pending = set(urls)
    while pending and time.monotonic() < deadline:
        for url in list(pending):
            try:
                if requests.get(url, timeout=2).status_code == 200:
                    pending.discard(url)
            except requests.RequestException:
                pass
        time.sleep(0.5)
    return pending


def descendants_alive(home):
    """Processes whose command line mentions this product home (children, Dagster, PostgreSQL)."""
    alive = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            if any(str(home) in part for part in proc.info["cmdline"] or []):
                alive.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    return alive


def test_up_serves_everything_and_stops_on_ctrl_c(tmp_path, product_home):
    home = product_home
    ports = {"ANALYTICS_COLLECTOR_PORT": free_port(), "ANALYTICS_WORKBENCH_PORT": free_port(),
             "ANALYTICS_DAGSTER_PORT": free_port()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env.update({k: str(v) for k, v in ports.items()}, ANALYTICS_HOME=str(home))
    urls = [f"http://127.0.0.1:{ports['ANALYTICS_COLLECTOR_PORT']}/healthz",
            f"http://127.0.0.1:{ports['ANALYTICS_WORKBENCH_PORT']}/healthz",
            f"http://127.0.0.1:{ports['ANALYTICS_DAGSTER_PORT']}/server_info"]

    for run in (1, 2):
        log = open(tmp_path / f"up-{run}.log", "w")
        started = time.monotonic()
        process = subprocess.Popen([ANALYTICS, "up"], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            missing = wait_for(urls, started + 90)
            assert not missing, f"not up within 90 s: {missing}\n{(tmp_path / f'up-{run}.log').read_text()[-3000:]}"
            if run == 1:
                subprocess.run([ANALYTICS, "db", "psql", "-c", "create table collect.kept as select 7 as answer"],
                               env=env, check=True, capture_output=True)
            else:
                out = subprocess.run([ANALYTICS, "db", "psql", "-At", "-c", "select answer from collect.kept"],
                                     env=env, check=True, capture_output=True, text=True).stdout
                assert out.strip() == "7"
        finally:
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=60) == 0
        deadline = time.monotonic() + 30
        while descendants_alive(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [p.info["cmdline"] for p in descendants_alive(home)] == []
        for url in urls:
            with pytest.raises(requests.ConnectionError):
                requests.get(url, timeout=2)
        # Dagster reports the runs that Ctrl-C interrupts; until then, no component may fail.
        before_stop = (tmp_path / f"up-{run}.log").read_text().split("\nstopping...")[0]
        assert "Traceback" not in before_stop
