"""Benchmark of the Spark engine (issue 28): the same dbt project on PostgreSQL and on a Spark
standalone cluster with 1 and 2 workers, on the same synthetic events.

Starts an embedded PostgreSQL in a temporary directory, loads N events over D days (bench/
pipeline.py's generator), builds every model with dbt on PostgreSQL (full build, then one more day
and the incremental build), exports the raw days and the collector's metadata to a lake, then for
each worker count starts a cluster (master, workers of one core each, Thrift server: the processes
`analytics up` supervises, analytics_cli/spark_cluster.py) and times on it:

1. the full build (`dbt run --target spark`, every model, the day before the last one absent);
2. the "incremental day": the last day exported and the build run again, views aside as on
   PostgreSQL (the day-partitioned models, the sessionized events' shards, int_visits,
   int_conversions and int_attribution_touches, replace the days the new events touch,
   insert_overwrite; the marts and the small intermediate tables are built whole again).

Prints each build's seconds and events per second per worker core, the executors' task time (each
executor's share) and CPU time from the Thrift server's Spark UI, the CPU time of the driver (the
Thrift server's JVM) and of dbt, the peak resident memory of each JVM (master, workers, executors,
Thrift server: sampled every second), and the scaling of the full build from 1 to 2 workers (the
issue's goal: >= 1.6x). One run, no repetition: figures of a shared machine, read with its load
average (printed). `--keep DIR` keeps each Spark build's run_results.json and the Thrift server's
SQL executions, for the time of each statement. `--worker-cpu 0.5` holds each worker and its
executor to half a core (a cgroup CPU quota, bench/cpu_quota.py; root): the driver and dbt then keep
a core of their own with one worker and with two, as workers on machines of their own would leave them.
Run: ``python bench/spark.py [--events N] [--days D] [--workers 1 2] [--memory 1g] [--keep DIR] [--worker-cpu C]``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil  # noqa: E402
import psycopg  # noqa: E402
import requests  # noqa: E402

from analytics_cli.spark_cluster import prepare_spark_dir, spark_children, spark_environment  # noqa: E402
from bench.cpu_quota import CpuQuotas, QuotaUnavailable  # noqa: E402
from bench.pipeline import DbtBuilds, load, shop_database, synthetic_events  # noqa: E402
from bench.resource_sampler import cpu_seconds  # noqa: E402
from pipelines.database import embedded  # noqa: E402
from pipelines.dbt_environment import DBT_PROJECT_DIR, dbt_environment, dbt_executable, spark_dbt_environment  # noqa: E402
from pipelines.lake.export import LakeWriter  # noqa: E402
from pipelines.settings import Settings  # noqa: E402

SECRET = "bench-spark-secret"
READY_SECONDS = 300
SCALING_GOAL = 1.6


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class JvmPeaks:
    """Peak resident memory of every Java process below the given parents (the cluster's processes
    and the executors the workers start), by role."""

    def __init__(self, parents: dict[str, int]):
        self.parents = parents
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _role(self, process: psutil.Process, root: str) -> str:
        command = " ".join(process.cmdline())
        if "CoarseGrainedExecutorBackend" in command:
            return f"executor ({root})"
        return root

    def _sample(self) -> None:
        for root, pid in self.parents.items():
            try:
                top = psutil.Process(pid)
                for process in [top, *top.children(recursive=True)]:
                    if "java" not in process.name():
                        continue
                    role = self._role(process, root)
                    self.peaks[role] = max(self.peaks.get(role, 0), process.memory_info().rss)
            except psutil.Error:
                continue

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._sample()

    def __enter__(self) -> "JvmPeaks":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


class Cluster:
    """A standalone cluster on free ports under `home`, started as `analytics up` starts it."""

    def __init__(self, home: Path, workers: int, memory: str, quotas: CpuQuotas | None = None):
        self.quotas = quotas
        self.settings = dataclasses.replace(
            Settings(home=home, server_secret_value=SECRET), engine="spark", spark_workers=workers,
            spark_worker_cores=1, spark_worker_memory=memory, spark_master_port=free_port(),
            spark_master_ui_port=free_port(), spark_thrift_port=free_port(), spark_thrift_ui_port=free_port())
        self.processes: dict[str, subprocess.Popen] = {}

    def __enter__(self) -> "Cluster":
        prepare_spark_dir(self.settings)
        env = spark_environment(self.settings, dict(os.environ))
        logs = self.settings.home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        try:
            for child in spark_children(self.settings):
                argv = child.argv
                if self.quotas and child.name.startswith("spark-worker"):
                    argv = self.quotas.wrap(child.name, argv)
                with open(logs / f"{child.name}.log", "w") as log:
                    self.processes[child.name] = subprocess.Popen(argv, env=env, stdout=log,
                                                                  stderr=subprocess.STDOUT, start_new_session=True)
                while not child.ready():
                    if time.monotonic() > started + READY_SECONDS or self.processes[child.name].poll() is not None:
                        raise RuntimeError(f"{child.name} not ready: see {logs / (child.name + '.log')}")
                    time.sleep(0.5)
        except BaseException:
            self.__exit__()
            raise
        print(f"   cluster ready in {time.monotonic() - started:.0f} s")
        return self

    def __exit__(self, *exc) -> None:
        for process in reversed(list(self.processes.values())):
            if process.poll() is None:
                os.killpg(process.pid, 15)
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)


class ExecutorTime:
    """The executors' task time and CPU time of a build, from the Thrift server's Spark UI (its REST
    API): the work more workers divide, apart from the driver's planning and dbt's round trips.
    Task time per executor shows how the work was shared; CPU time is less inflated than wall time
    when other processes compete for the cores."""

    def __init__(self, settings: Settings, driver_pid: int):
        self.api = f"http://{settings.bind_host}:{settings.spark_thrift_ui_port}/api/v1/applications"
        self.driver = psutil.Process(driver_pid)

    def _read(self) -> tuple[dict[str, float], float]:
        app = requests.get(self.api, timeout=10).json()[0]["id"]
        executors = requests.get(f"{self.api}/{app}/allexecutors", timeout=10).json()
        stages = requests.get(f"{self.api}/{app}/stages", timeout=30).json()
        tasks = {e["id"]: e["totalDuration"] / 1000 for e in executors if e["id"] != "driver"}
        return tasks, sum(stage.get("executorCpuTime", 0) for stage in stages) / 1e9

    @staticmethod
    def _children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def __enter__(self) -> "ExecutorTime":
        self.tasks_before, self.cpu_before = self._read()
        self.driver_before, self.dbt_before = cpu_seconds(self.driver), self._children_cpu()
        return self

    def __exit__(self, *exc) -> None:
        tasks, cpu = self._read()
        self.tasks = {executor: seconds - self.tasks_before.get(executor, 0) for executor, seconds in tasks.items()}
        self.cpu = cpu - self.cpu_before
        # The driver (the Thrift server's JVM: planning, the metastore, the UI) and dbt (a child of
        # this process, waited for) do the serial part of a build, which more workers do not divide.
        self.driver_cpu = cpu_seconds(self.driver) - self.driver_before
        self.dbt_cpu = self._children_cpu() - self.dbt_before

    def sql_executions(self) -> list:
        app = requests.get(self.api, timeout=10).json()[0]["id"]
        return requests.get(f"{self.api}/{app}/sql", params={"details": "false", "length": 100000}, timeout=60).json()

    def line(self) -> str:
        shares = ", ".join(f"executor {executor} {seconds:.0f} s" for executor, seconds in sorted(self.tasks.items()))
        return (f"task time {sum(self.tasks.values()):.0f} s ({shares}); executors' CPU {self.cpu:.0f} s;"
                f" driver CPU {self.driver_cpu:.0f} s; dbt CPU {self.dbt_cpu:.0f} s")


def spark_build(url: str, cluster: Cluster, lake: Path, target: Path, *args: str) -> float:
    env = {**os.environ, **dbt_environment(url), **spark_dbt_environment(cluster.settings),
           "ANALYTICS_DBT_LAKE_PATH": str(lake), "ANALYTICS_DBT_TARGET": "spark"}
    started = time.perf_counter()
    done = subprocess.run([dbt_executable(), "run", *args, "--target-path", str(target), "--project-dir", str(DBT_PROJECT_DIR),
                           "--profiles-dir", str(DBT_PROJECT_DIR)], env=env, cwd=DBT_PROJECT_DIR,
                          capture_output=True, text=True)
    if done.returncode != 0:
        # The cluster's logs (the executors' in the workers' folders) are under the bench's temporary
        # folder, which is removed on the way out: kept elsewhere, with dbt's whole output.
        kept = Path(tempfile.mkdtemp(prefix="bench-spark-failed-"))
        (kept / "dbt.log").write_text(done.stdout + done.stderr)
        shutil.copytree(cluster.settings.home / "logs", kept / "logs", dirs_exist_ok=True)
        shutil.copytree(cluster.settings.spark_dir / "work", kept / "work", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("*.jar"))
        causes = sorted({line.strip() for line in done.stdout.splitlines() if "Caused by" in line
                         or "Exception:" in line})
        sys.exit(f"dbt on Spark failed (dbt's output and the cluster's logs kept in {kept}):\n"
                 + "\n".join(causes[:20]) + f"\n{done.stdout[-3000:]}")
    return time.perf_counter() - started


def keep(folder: Path | None, target: Path, name: str, work: ExecutorTime) -> None:
    """The build's run_results.json and the Thrift server's SQL executions so far, into `folder`."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(target / "run_results.json", folder / f"run_results-{name}.json")
    (folder / f"sql-{name}.json").write_text(json.dumps(work.sql_executions()))


def export(settings: Settings, url: str, days) -> float:
    started = time.perf_counter()
    with LakeWriter(settings, url).open() as writer:
        for day in days:
            writer.export_raw_day(day)
        writer.export_sources()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--memory", default="1g", help="each worker's (and executor's) memory")
    parser.add_argument("--worker-cpu", type=float, default=None,
                        help="hold each worker and its executor to this share of a core (a cgroup CPU quota, "
                             "bench/cpu_quota.py): workers that do not compete with the driver and dbt")
    parser.add_argument("--keep", type=Path, help="a folder to keep each Spark build's run_results.json and "
                        "the Thrift server's SQL executions (its UI's REST API) in, for per-statement times")
    args = parser.parse_args()
    try:
        quotas = CpuQuotas(args.worker_cpu) if args.worker_cpu else None
    except QuotaUnavailable as error:
        sys.exit(f"--worker-cpu: {error}")
    rng = random.Random(5)
    with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        root = Path(tmp)
        pgdata = root / "pgdata"
        state = embedded.start(pgdata)
        try:
            url, site_id = shop_database(state.url("postgres"), "bench", args.days)
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("""insert into collect.goals (site_id, name, kind, path_pattern, value)
                                values (%s, 'Product viewed', 'pageview', '/product*', 1)""", (site_id,))
            now = datetime.now(timezone.utc).replace(microsecond=0)
            history_end = (now - timedelta(days=1)).replace(hour=0, minute=0, second=0)
            print(f"== {args.events:,} events over {args.days} days (load average {os.getloadavg()[0]:.1f}, "
                  f"{os.cpu_count()} cores)")
            loaded = load(url, synthetic_events(site_id, args.events, history_end - timedelta(days=args.days),
                                                history_end, rng))
            builds = DbtBuilds(url, 2, True, root / "dbt-target")
            pg_full = builds.build()
            day = max(1, args.events // args.days)
            load(url, synthetic_events(site_id, day, history_end, history_end + timedelta(hours=23), rng))
            pg_incremental = builds.build("--exclude", "config.materialized:view")
            print(f"PostgreSQL:  full build {pg_full:7.1f} s  {loaded / pg_full:9,.0f} events/s;  "
                  f"incremental day {pg_incremental:6.1f} s ({day:,} events)")

            lake = root / "lake"
            settings = Settings(home=root / "home", database_url=url, server_secret_value=SECRET, lake_dir=lake)
            history_days = [(history_end - timedelta(days=n)).date() for n in range(args.days, 0, -1)]
            seconds = export(settings, url, history_days)
            print(f"lake export of {len(history_days)} raw days and the metadata: {seconds:.1f} s")

            full_by_workers = {}
            for workers in args.workers:
                shutil.rmtree(lake / "raw" / "events" / f"site_id={site_id}" / f"day={history_end.date()}",
                              ignore_errors=True)
                export(settings, url, [])  # the metadata only: the last day is absent again
                held = f" held to {args.worker_cpu} core each" if quotas else ""
                print(f"-- Spark, {workers} worker(s) of 1 core{held}, {args.memory} "
                      f"(load average {os.getloadavg()[0]:.1f})")
                with Cluster(root / f"spark-{workers}", workers, args.memory, quotas) as cluster:
                    parents = {name: process.pid for name, process in cluster.processes.items()}
                    driver = parents["spark-thrift"]
                    with JvmPeaks(parents) as peaks:
                        with ExecutorTime(cluster.settings, driver) as work:
                            full = spark_build(url, cluster, lake, root / f"spark-target-{workers}")
                        full_by_workers[workers] = full
                        cores = workers * (args.worker_cpu or 1)
                        print(f"   full build      {full:7.1f} s  {loaded / full / cores:9,.0f} events/s per worker core;"
                              f" {work.line()}")
                        keep(args.keep, root / f"spark-target-{workers}", f"{workers}-full", work)
                        export(settings, url, [history_end.date()])
                        with ExecutorTime(cluster.settings, driver) as work:
                            incremental = spark_build(url, cluster, lake, root / f"spark-target-{workers}",
                                                      "--exclude", "config.materialized:view")
                        keep(args.keep, root / f"spark-target-{workers}", f"{workers}-incremental", work)
                print(f"   incremental day {incremental:7.1f} s  (the new day's partitions; marts whole: {day:,} new events);"
                      f" {work.line()}")
                for role, peak in sorted(peaks.peaks.items()):
                    print(f"   peak RSS {role:<28} {peak / 2**20:7.0f} MiB")
            if 1 in full_by_workers and 2 in full_by_workers:
                scaling = full_by_workers[1] / full_by_workers[2]
                print(f"scaling of the full build 1 -> 2 workers: {scaling:.2f}x "
                      f"({'meets' if scaling >= SCALING_GOAL else 'below'} the {SCALING_GOAL}x goal)")
        finally:
            embedded.stop(pgdata)
            if quotas:
                quotas.close()


if __name__ == "__main__":
    main()
