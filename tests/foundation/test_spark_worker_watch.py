"""The watch of a dbt run on Spark (orchestration/defs/dbt/worker_watch.py), on a real process:
interrupted with the reason once the master has counted no worker for the wait, left alone while
one is alive. The whole path, a worker killed in a build on a real cluster, is in
tests/spark/test_worker_loss.py."""
from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import time

from orchestration.defs.dbt.worker_watch import WorkerWatch
from pipelines.settings import Settings

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_run_without_any_worker_is_interrupted_with_the_reason(tmp_path):
    settings = dataclasses.replace(Settings(home=tmp_path), engine="spark", spark_worker_wait_seconds=1)
    process = subprocess.Popen(SLEEPER)
    started = time.monotonic()
    with WorkerWatch(settings, process, count=lambda _: 0) as watch:
        assert process.wait(timeout=30) == -signal.SIGINT
    assert time.monotonic() - started < 10
    assert "no worker" in watch.reason and "counted no alive worker for 1 s" in watch.reason
    assert "http://127.0.0.1:7080" in watch.reason


def test_a_run_with_a_worker_is_left_alone(tmp_path):
    settings = dataclasses.replace(Settings(home=tmp_path), engine="spark", spark_worker_wait_seconds=1)
    process = subprocess.Popen(SLEEPER)
    try:
        with WorkerWatch(settings, process, count=lambda _: 1) as watch:
            time.sleep(4)
            assert process.poll() is None
        assert watch.reason is None
    finally:
        process.kill()
        process.wait()
