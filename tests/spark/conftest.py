"""One Spark standalone cluster for the whole test session (master, 2 workers, Thrift server on
free ports), started by `analytics up --no-dagster` with ANALYTICS_ENGINE=spark on a fresh home as
a person starts it, and stopped with Ctrl-C at the end."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from analytics_cli import spark_cluster
from pipelines.settings import Settings
from tests.conftest import REPO_ROOT, free_port

ANALYTICS = str(Path(sys.executable).parent / "analytics")
READY_SECONDS = 420
SPARK_COMPONENTS = ("spark-master", "spark-worker-1", "spark-worker-2", "spark-thrift")


@pytest.fixture(scope="session")
def spark_cluster_running():
    """The running cluster: its settings, what `up` printed, and its start time in seconds."""
    root = Path(tempfile.mkdtemp(prefix="analytics-spark-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env.update(ANALYTICS_HOME=str(root / "home"), ANALYTICS_ENGINE="spark", ANALYTICS_SPARK_WORKERS="2",
               ANALYTICS_SPARK_WORKER_MEMORY="768m", ANALYTICS_SPARK_SHUFFLE_PARTITIONS="4",
               ANALYTICS_WORKBENCH_WORKERS="1",
               ANALYTICS_COLLECTOR_WORKERS="1")
    for variable in ("COLLECTOR_PORT", "WORKBENCH_PORT", "DAGSTER_PORT", "SPARK_MASTER_PORT", "SPARK_MASTER_UI_PORT",
                     "SPARK_THRIFT_PORT", "SPARK_THRIFT_UI_PORT"):
        env[f"ANALYTICS_{variable}"] = str(free_port())
    settings = Settings.from_env(env)
    log = root / "up.log"
    started = time.monotonic()
    with log.open("w") as out:
        process = subprocess.Popen([ANALYTICS, "up", "--no-dagster"], env=env, cwd=REPO_ROOT, stdout=out,
                                   stderr=subprocess.STDOUT)
    try:
        ready: dict[str, float] = {}
        while len(ready) < len(SPARK_COMPONENTS) and time.monotonic() < started + READY_SECONDS:
            assert process.poll() is None, f"analytics up exited:\n{log.read_text()[-4000:]}"
            console = log.read_text()
            for name in re.findall(r"ready\S*\s+(spark-[\w-]+)", console):
                ready.setdefault(name, time.monotonic() - started)
            # `up` waits 120 s for its children, then goes on with a warning: on a loaded machine the
            # Thrift server (a Spark application opening the metastore) can answer later than that.
            if ("not answering yet: spark-thrift" in console and "spark-thrift" not in ready
                    and spark_cluster.port_answers(settings.bind_host, settings.spark_thrift_port)):
                ready["spark-thrift"] = time.monotonic() - started
            time.sleep(0.5)
        assert set(ready) == set(SPARK_COMPONENTS), (
            f"not ready within {READY_SECONDS} s: {set(SPARK_COMPONENTS) - set(ready)}\n{log.read_text()[-4000:]}")
        yield {"settings": settings, "env": env, "console": log, "ready_seconds": ready,
               "start_seconds": max(ready.values())}
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(root, ignore_errors=True)
