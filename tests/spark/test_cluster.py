"""The Spark engine's cluster as `analytics up` supervises it."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from pyhive import hive

from analytics_cli import spark_cluster

ANALYTICS = str(Path(sys.executable).parent / "analytics")
pytestmark = pytest.mark.slow


def test_up_starts_the_cluster_that_answers_sql(spark_cluster_running):
    settings = spark_cluster_running["settings"]
    console = spark_cluster_running["console"].read_text()
    # One ready line each, saying where it is; no Spark warning reaches the console.
    assert re.search(rf"spark-master\s+{re.escape(settings.spark_master)} \(status http://", console)
    assert re.search(r"spark-worker-2\s+1 core, 768m, joined spark://", console)
    assert re.search(rf"spark-thrift\s+jdbc:hive2://127.0.0.1:{settings.spark_thrift_port}", console)
    status = requests.get(f"{spark_cluster.master_ui_url(settings)}/json/", timeout=10).json()
    assert status["aliveworkers"] == 2 and status["cores"] == 2
    with hive.connect(host=settings.bind_host, port=settings.spark_thrift_port) as conn:
        cursor = conn.cursor()
        cursor.execute("select count(*), sum(id) from range(1000)")
        assert cursor.fetchall() == [(1000, 499500)]
    # The metastore (Derby) and every process's log under the home, nothing in the working directory.
    assert (settings.spark_dir / "metastore" / "metastore_db").is_dir()
    for name in ("spark-master", "spark-worker-1", "spark-worker-2", "spark-thrift"):
        assert (settings.log_dir / f"{name}.log").stat().st_size > 0
    assert not Path("metastore_db").exists() and not Path("derby.log").exists()
    console = spark_cluster_running["console"].read_text()
    assert "WARN" not in console and "ERROR" not in console, console


def test_up_without_java_says_what_to_install(tmp_path):
    env = {"PATH": str(Path(sys.executable).parent) + ":/nonexistent", "ANALYTICS_HOME": str(tmp_path / "home"),
           "ANALYTICS_ENGINE": "spark", "HOME": os.environ.get("HOME", str(tmp_path))}
    done = subprocess.run([ANALYTICS, "up"], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip() == ("Error: the Spark engine needs Java, which is not installed: install Java 17 or "
                                   "newer (Debian: apt-get install openjdk-17-jre-headless)")
    assert not (tmp_path / "home" / "pgdata").exists()
