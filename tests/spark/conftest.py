"""One Spark standalone cluster for the whole test session (master, 2 workers, Thrift server on
free ports), started with the same children `analytics up` starts, and stopped at the end."""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from analytics_cli import spark_cluster
from analytics_cli.supervisor import stop_children, wait_until_ready
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET, free_port

READY_SECONDS = 120


@pytest.fixture(scope="session")
def spark_cluster_running():
    """The running cluster: its settings, children, environment and start time in seconds."""
    root = Path(tempfile.mkdtemp(prefix="analytics-spark-"))
    settings = Settings(home=root / "home", server_secret_value=TEST_SECRET, lake_dir=root / "lake", engine="spark",
                        spark_workers=2, spark_worker_memory="768m", spark_master_port=free_port(),
                        spark_master_ui_port=free_port(), spark_thrift_port=free_port())
    spark_cluster.prepare_spark_dir(settings)
    env = spark_cluster.spark_environment(settings, {"PATH": "/usr/local/bin:/usr/bin:/bin",
                                                     "ANALYTICS_HOME": str(settings.home)})
    children = spark_cluster.spark_children(settings)
    started = time.monotonic()
    ready = []
    try:
        for child in children:
            child.start(env)
        not_ready = wait_until_ready(children, started + READY_SECONDS, on_ready=ready.append)
        logs = {child.name: (settings.log_dir / f"{child.name}.log") for child in children}
        assert not not_ready, f"not ready within {READY_SECONDS} s: {not_ready}\n" + "\n".join(
            f"--- {name}\n{path.read_text()[-3000:] if path.exists() else ''}" for name, path in logs.items())
        yield {"settings": settings, "children": children, "env": env, "ready_order": [c.name for c in ready],
               "start_seconds": time.monotonic() - started}
    finally:
        stop_children(children)
        shutil.rmtree(root, ignore_errors=True)
