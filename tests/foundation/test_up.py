"""`analytics up` end to end: every component answers, Ctrl-C stops all, data survives."""
import os
import re
import signal
import socket
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

    links = []
    for run in (1, 2):
        log = open(tmp_path / f"up-{run}.log", "w")
        started = time.monotonic()
        process = subprocess.Popen([ANALYTICS, "up"], env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            missing = wait_for(urls, started + 90)
            assert not missing, f"not up within 90 s: {missing}\n{(tmp_path / f'up-{run}.log').read_text()[-3000:]}"
            console = wait_for_console(tmp_path / f"up-{run}.log", "Press Ctrl-C to stop.", started + 90)
            links.append(check_console(console, ports))
            if run == 1:
                subprocess.run([ANALYTICS, "db", "psql", "-c", "create table collect.kept as select 7 as answer"],
                               env=env, check=True, capture_output=True)
            else:
                # The collector's pages answer the link of this start only.
                setup = f"http://127.0.0.1:{ports['ANALYTICS_COLLECTOR_PORT']}/admin/setup"
                assert requests.get(setup, params={"token": links[0][1]}, timeout=10).status_code == 403
                assert requests.get(setup, params={"token": links[1][1]}, timeout=10).status_code == 200
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
        whole = (tmp_path / f"up-{run}.log").read_text()
        before_stop = whole.split("\nstopping...")[0]
        assert "Traceback" not in before_stop
        # Nothing to act on at start or stop: Dagster's table-creation retry and gunicorn's closed
        # socket stay in the component logs.
        for routine in ("Retrying failed database creation", "Error while closing socket"):
            assert routine not in whole, whole
    # Each run without an administrator prints new links; the previous ones stop working.
    assert links[0][0] != links[1][0] and links[0][1] != links[1][1]
    for name in ("collector", "workbench", "dagster-webserver", "dagster-daemon"):
        assert (home / "logs" / f"{name}.log").stat().st_size > 0, name
    assert "GET /healthz" in (home / "logs" / "workbench.log").read_text()


def wait_for_console(log: Path, text: str, deadline: float) -> str:
    while time.monotonic() < deadline:
        console = log.read_text()
        if text in console:
            return console
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not printed:\n{log.read_text()[-3000:]}")


def check_console(console: str, ports: dict) -> tuple[str, str]:
    """The console of `analytics up` once ready: a line per component, the URLs, the setup links
    (the workbench's and the collector's pages'), and none of the components' own chatter (DEBUG or
    INFO lines, access log, sensor ticks). Returns the two links' tokens."""
    ready = re.findall(r"^  ready  (\S+)", console, re.M)
    assert ready[0] == "database" and set(ready) == {
        "database", "collector", "workbench", "dagster-webserver", "dagster-daemon"}, console
    assert f"  workbench          http://127.0.0.1:{ports['ANALYTICS_WORKBENCH_PORT']}" in console
    link = re.search(r"^    http://127\.0\.0\.1:(\d+)/setup\?token=([\w-]+)$", console, re.M)
    assert link and int(link.group(1)) == ports["ANALYTICS_WORKBENCH_PORT"], console
    collector = re.search(r"^  Create the administrator of the collector's pages \(sites, keys; this link works once, "
                          r"for 24 hours\):\n    http://127\.0\.0\.1:(\d+)/admin/setup\?token=([\w-]+)$", console, re.M)
    assert collector and int(collector.group(1)) == ports["ANALYTICS_COLLECTOR_PORT"], console
    for noise in ("DEBUG", " - INFO - ", "[INFO]", "GET /healthz", "Booting worker"):
        assert noise not in console, (noise, console)
    return link.group(2), collector.group(2)


def test_a_port_in_use_gives_one_clear_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
        env.update(ANALYTICS_HOME=str(tmp_path / "home"), ANALYTICS_WORKBENCH_PORT=str(port),
                   ANALYTICS_COLLECTOR_PORT=str(free_port()), ANALYTICS_DAGSTER_PORT=str(free_port()))
        done = subprocess.run([ANALYTICS, "up"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"Error: port {port} (workbench) is in use by another program: stop it, or set "
        "ANALYTICS_WORKBENCH_PORT to a free port"]
    # Refused before anything started: no database was initialised.
    assert not (tmp_path / "home" / "pgdata").exists()
