"""A dbt run on Spark that is left without any worker ends, with that reason, instead of waiting.

Spark reschedules the tasks of a lost executor on the others, and a standalone master gives the
application an executor on every worker that joins (the supervisor of `analytics up` restarts a
dead worker within seconds): a worker killed in the middle of a build costs time, not the build.
With no worker at all, a statement waits for an executor without end, and so would the Dagster
run. The watch asks the master every few seconds how many workers are alive; after
`spark_worker_wait_seconds` with none, it interrupts dbt (SIGINT: dbt cancels its statements on the
Thrift server, so that none goes on writing once workers come back) and the step fails with the
reason. A retry once the workers are back redoes what the interrupted run left undone (the day
partitions' rebuild log, docs/data-engineer/spark.md); the lake's view folders are written only
after a build that succeeded, so they keep the previous build's files meanwhile.
"""
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator

from dagster import AssetExecutionContext, Failure
from dagster_dbt import DbtCliResource
from dagster_dbt.errors import DagsterDbtCliRuntimeError

from pipelines.settings import Settings
from pipelines.spark_master import alive_workers, master_ui_url

POLL_SECONDS = 2.0


class WorkerWatch:
    """Watches the master while `process` (dbt) runs; `reason` is set when it interrupted dbt."""

    def __init__(self, settings: Settings, process: subprocess.Popen,
                 count: Callable[[Settings], int] = alive_workers):
        self.settings, self.process, self.count = settings, process, count
        self.reason: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="spark-worker-watch", daemon=True)

    def _run(self) -> None:
        wait = self.settings.spark_worker_wait_seconds
        without_since = None
        while self.process.poll() is None and not self._stop.is_set():
            if self.count(self.settings) > 0:
                without_since = None
            elif without_since is None:
                without_since = time.monotonic()
            elif time.monotonic() - without_since >= wait:
                self.reason = (
                    f"the Spark cluster has no worker: its master ({master_ui_url(self.settings)}) counted no "
                    f"alive worker for {wait} s (ANALYTICS_SPARK_WORKER_WAIT_SECONDS), so the build's statements "
                    f"could not run and dbt was interrupted. Start the workers again (analytics up restarts its "
                    f"own) and run it again: the retry redoes what this run left undone.")
                self.process.send_signal(signal.SIGINT)
                return
            self._stop.wait(POLL_SECONDS)

    def __enter__(self) -> "WorkerWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=POLL_SECONDS * 2)


def stream_dbt(dbt: DbtCliResource, args: list[str], context: AssetExecutionContext) -> Iterator:
    """`dbt.cli(args).stream()`, watched on Spark: a run left without workers fails with the reason."""
    invocation = dbt.cli(args, context=context)
    warehouse = getattr(dbt, "warehouse", None)
    if getattr(warehouse, "engine", "postgres") != "spark":
        yield from invocation.stream()
        return
    with WorkerWatch(warehouse.settings(), invocation.process) as watch:
        try:
            yield from invocation.stream()
        except DagsterDbtCliRuntimeError as error:
            if watch.reason is None:
                raise
            context.log.error(watch.reason)
            raise Failure(description=watch.reason, metadata={"dbt": str(error)[-2000:]}) from error
