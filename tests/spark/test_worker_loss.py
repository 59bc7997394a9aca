"""A worker killed in the middle of a build on Spark, with Dagster driving it.

A cluster of its own, outside the supervisor (a killed worker stays dead until the test starts it
again): one master, one worker, the Thrift server. Dagster's full build of the pipeline tests' shop
on Spark succeeds (building PostgreSQL's catalog of views on the way: the shop was never built
there) and the lake's view folders are written from it; then a late event arrives, the
next build starts, and its only worker (with its executor) is killed. The run fails with the reason
once the master has counted no worker for ANALYTICS_SPARK_WORKER_WAIT_SECONDS (here 20 s), instead
of waiting for an executor forever; the lake still holds the first build's files, whole. The worker
is started again and the run again completes: every table, and the views written into the lake,
equal PostgreSQL's build of the same events.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest
import requests
from dagster import Definitions
from pyhive import hive

from analytics_cli.spark_cluster import prepare_spark_dir, spark_children, spark_environment
from orchestration.defs.dbt.assets import analytics_dbt_incremental_models, analytics_dbt_models
from orchestration.defs.dbt.schedules import full_build_job, month_partition_key
from orchestration.defs.lake.assets import FULL_REFRESH, FULL_REFRESH_TAG, lake_analytics_views
from orchestration.defs.resources import build_resources
from pipelines.lake.export import LakeWriter
from pipelines.settings import Settings
from pipelines.spark_master import alive_workers
from tests.conftest import TEST_SECRET, free_port
from tests.pipeline.conftest import CAROL_COOKIE, insert_event, run_dbt, shop_database
from tests.spark.builds import export_days
from tests.spark.test_parity import MODELS, compare

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

READY_SECONDS = 420
WAIT_SECONDS = 20


class LoneCluster:
    """The cluster's processes started directly (as bench/spark.py does), each in its own process
    group: killing the worker's group kills its executor too."""

    def __init__(self, home: Path):
        self.settings = dataclasses.replace(
            Settings(home=home, server_secret_value=TEST_SECRET), engine="spark", spark_workers=1,
            spark_worker_memory="768m", spark_shuffle_partitions=4, spark_master_port=free_port(),
            spark_master_ui_port=free_port(), spark_thrift_port=free_port(), spark_thrift_ui_port=free_port(),
            spark_worker_wait_seconds=WAIT_SECONDS)
        self.children = {child.name: child for child in spark_children(self.settings)}
        self.processes: dict[str, subprocess.Popen] = {}

    def start(self, name: str) -> None:
        child = self.children[name]
        logs = self.settings.home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        with open(logs / f"{name}.log", "a") as log:
            self.processes[name] = subprocess.Popen(child.argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                                    start_new_session=True)
        deadline = time.monotonic() + READY_SECONDS
        while not child.ready():
            assert self.processes[name].poll() is None, f"{name} exited: {(logs / (name + '.log')).read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{name} not ready within {READY_SECONDS} s"
            time.sleep(0.5)

    def kill(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait(timeout=60)

    def __enter__(self) -> "LoneCluster":
        prepare_spark_dir(self.settings)
        self.env = spark_environment(self.settings, dict(os.environ))
        try:
            for name in self.children:
                self.start(name)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def lone_cluster():
    # Not under pytest's temporary folder, which another pytest process on the machine may prune
    # while the cluster runs (as the session's cluster in conftest.py).
    root = Path(tempfile.mkdtemp(prefix="analytics-spark-lone-"))
    try:
        with LoneCluster(root / "home") as cluster:
            yield cluster
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def shop(pg_server_url, template_database, lone_cluster):
    """The shop's events, never built on PostgreSQL (an installation started on Spark), its raw
    days in the lone cluster's lake."""
    with shop_database(pg_server_url, template_database, None, prefix="test_spark_worker_loss") as built:
        settings = dataclasses.replace(lone_cluster.settings, database_url=built["url"])
        export_days(settings, built["url"])
        yield {**built, "settings": settings}


def full_build(settings: Settings):
    """Dagster's full build job on the engine of `settings`, in process, as the daemon runs it."""
    defs = Definitions(assets=[analytics_dbt_incremental_models, analytics_dbt_models], jobs=[full_build_job],
                       resources=build_resources(settings))
    return defs.resolve_job_def("full_build_job").execute_in_process(
        partition_key=month_partition_key(datetime.now(timezone.utc)), raise_on_error=False)


def refresh_lake_views(settings: Settings) -> None:
    from dagster import materialize
    assert materialize([lake_analytics_views], resources=build_resources(settings),
                       tags={FULL_REFRESH_TAG: FULL_REFRESH}).success


def lake_files(settings: Settings) -> dict[str, tuple[int, int]]:
    """Every file of the lake's analytics folders, with its size and modification time."""
    root = settings.lake_path / "analytics"
    return {str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in sorted(root.rglob("*")) if path.is_file()}


def last_statement(settings: Settings) -> int:
    """The number of the latest SQL statement the Thrift server's application ran (its Spark UI
    keeps the latest 1,000: their count stops growing, their numbers do not)."""
    api = f"http://{settings.bind_host}:{settings.spark_thrift_ui_port}/api/v1/applications"
    app = requests.get(api, timeout=10).json()[0]["id"]
    executions = requests.get(f"{api}/{app}/sql", params={"offset": 0, "length": 100000, "details": "false"},
                              timeout=30).json()
    return max((execution["id"] for execution in executions), default=-1)


def test_a_build_that_loses_its_worker_fails_with_the_reason_and_a_retry_completes_it(lone_cluster, shop):
    settings = shop["settings"]
    first = full_build(settings)
    assert first.success, [event.message for event in first.all_events if event.is_failure]
    # PostgreSQL's analytics views, the catalog of the lake's view folders, were built on the way.
    with psycopg.connect(shop["url"]) as db:
        assert db.execute("select to_regclass('analytics.visits') is not null").fetchone()[0]
    refresh_lake_views(settings)
    before = lake_files(settings)
    assert any(name.startswith("visits/") for name in before), before

    # A late event joins two of Carol's visits; its day reaches the lake, and PostgreSQL builds it.
    with psycopg.connect(shop["url"], autocommit=True) as db:
        site_id, first_at = db.execute("select site_id, min(occurred_at) from raw.events where visitor_id = %s"
                                       " group by 1", (CAROL_COOKIE,)).fetchone()
        late = first_at + timedelta(minutes=20)
        insert_event(db, site_id, late, visitor=CAROL_COOKIE, path="/pricing/compare",
                     received_at=datetime.now(timezone.utc))
    with LakeWriter(settings, shop["url"]).open() as writer:
        writer.export_raw_day(late.astimezone(timezone.utc).date())
    # On PostgreSQL by name: the Dagster runs in this process set the Spark target in its environment.
    run_dbt(shop["url"], "run", "--target", "postgres")

    # The next build starts; once its first statement reached the Thrift server, the worker dies.
    statement = last_statement(settings)
    outcome = {}
    build = threading.Thread(target=lambda: outcome.update(result=full_build(settings)))
    started = time.monotonic()
    build.start()
    while last_statement(settings) == statement and build.is_alive():
        time.sleep(0.2)
    assert build.is_alive(), "the build ended before its first statement was seen"
    lone_cluster.kill("spark-worker-1")
    build.join(timeout=900)
    assert not build.is_alive(), "the run did not end without its worker"
    result = outcome["result"]
    assert not result.success
    failures = [event for event in result.all_events if event.is_step_failure]
    assert failures, "no step failed"
    reason = failures[0].step_failure_data.error.message
    assert "no worker" in reason and "ANALYTICS_SPARK_WORKER_WAIT_SECONDS" in reason, reason
    assert time.monotonic() - started < 600

    # The lake still holds the first build's files, whole: nothing was written into its folders.
    assert lake_files(settings) == before
    assert not any((settings.lake_path / ".staging").glob("**/*.parquet"))

    # The worker is back: the same run completes, and what it built equals PostgreSQL's build.
    lone_cluster.start("spark-worker-1")
    assert alive_workers(settings) == 1
    retry = full_build(settings)
    assert retry.success, [event.message for event in retry.all_events if event.is_failure]
    refresh_lake_views(settings)
    assert lake_files(settings) != before
    built = {"url": shop["url"], "settings": settings}
    with hive.connect(host=settings.bind_host, port=settings.spark_thrift_port) as conn:
        for model in ["intermediate.int_events_sessionized", "intermediate.int_visits", "intermediate.int_conversions",
                      "intermediate.int_attribution_touches", "marts.fct_visits", "analytics.visits",
                      "analytics.pageviews", "analytics.attribution"]:
            compare(built, conn.cursor(), model, MODELS[model], lake_views={"visits", "pageviews", "attribution"})
