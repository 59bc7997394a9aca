"""The Spark engine's cluster as `analytics up` supervises it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from pyhive import hive
from TCLIService.ttypes import TOperationState

from analytics_cli import spark_cluster

ANALYTICS = str(Path(sys.executable).parent / "analytics")
pytestmark = pytest.mark.slow
RUNNING = (TOperationState.INITIALIZED_STATE, TOperationState.PENDING_STATE, TOperationState.RUNNING_STATE)


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
        # The Hive session's folders in Java's temporary folder, which is under the home; no
        # per-statement operation log is written.
        assert list((settings.spark_dir / "tmp").glob("*_resources"))
        assert not list((settings.spark_dir / "tmp").glob("**/operation_logs"))
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


# Hive's function registry as the Thrift server loads it when a session closes (spark_cluster.LLAP_STUB_TYPES).
REGISTRY_PROBE = """
public class RegistryProbe {
    public static void main(String[] args) throws Exception {
        try {
            Class.forName("org.apache.hadoop.hive.ql.exec.FunctionRegistry");
            System.out.println("loaded");
        } catch (Throwable error) {
            Throwable cause = error;
            while (cause.getCause() != null) cause = cause.getCause();
            System.out.println("failed: " + cause);
        }
    }
}
"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="needs a JDK (Java's source launcher) to compile the probe")
def test_hive_function_registry_loads_with_the_llap_types(tmp_path):
    """Without the jar of the three LLAP types pyspark lacks, Hive's function registry cannot load
    (what failed the close of a Thrift session); with it on the class path, it loads."""
    source = tmp_path / "RegistryProbe.java"
    source.write_text(REGISTRY_PROBE)
    jar = spark_cluster.write_llap_stub_jar(tmp_path / spark_cluster.LLAP_STUB_JAR)
    jars = str(spark_cluster.spark_home() / "jars" / "*")
    opens = [f"--add-opens=java.base/{package}=ALL-UNNAMED"
             for package in ("java.lang", "java.net", "java.util", "java.lang.reflect")]

    def probe(class_path: str) -> str:
        done = subprocess.run([spark_cluster.java_executable(), *opens, "-cp", class_path, str(source)],
                              capture_output=True, text=True, timeout=120)
        return done.stdout.strip().splitlines()[-1]

    assert "LlapSigner$Signable" in probe(jars)
    assert probe(f"{jar}:{jars}") == "loaded"


def test_thrift_sessions_close_as_dbt_closes_them(spark_cluster_running):
    """Sessions opened side by side, each running statements asynchronously and polling as dbt-spark
    does, all close without error (the close reaches Hive's function registry: LLAP_STUB_TYPES)."""
    settings = spark_cluster_running["settings"]

    def session(number: int) -> str | None:
        try:
            with hive.connect(host=settings.bind_host, port=settings.spark_thrift_port) as conn:
                cursor = conn.cursor()
                for sql in ("show databases", f"select count(*) from range({number + 1})"):
                    cursor.execute(sql, async_=True)
                    while cursor.poll().operationState in RUNNING:
                        time.sleep(0.05)
                    cursor.fetchall()
                cursor.close()
            return None
        except Exception as error:  # noqa: BLE001 - every failure is reported
            return f"session {number}: {error}"[:500]

    with ThreadPoolExecutor(max_workers=6) as pool:
        failures = [failure for failure in pool.map(session, range(60)) if failure]
    assert not failures, failures
