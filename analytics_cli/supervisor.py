"""`analytics up`: run every component as a child process, supervise them, stop them cleanly.

The children are the collector and the workbench under gunicorn, and Dagster's webserver and
daemon. They are told the database URL explicitly, so none of them starts a database of its own.
A child that dies is restarted with a growing delay; Ctrl-C or SIGTERM stops them all, then the
embedded database if this command started it.

The console shows one line per component as it becomes ready, the URLs and what to do next, then
only warnings and errors; each component's whole output goes to `$ANALYTICS_HOME/logs/<name>.log`
(analytics_cli/component_logs.py), all of it on the console too with `--verbose`.
"""
from __future__ import annotations

import errno
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import click
import psutil
import psycopg
import requests

from analytics_cli import component_logs, spark_cluster
from pipelines.database import bootstrap, connection, embedded
from pipelines.dbt_environment import dbt_environment, manifest_path, spark_dbt_environment
from pipelines.inbound import sources
from pipelines.settings import Settings

_STOP_GRACE_SECONDS = 25
_READY_TIMEOUT_SECONDS = 120


@dataclass
class Child:
    name: str
    argv: list[str]
    url: str | None
    health_url: str | None
    process: subprocess.Popen | None = None
    restarts: list[float] = field(default_factory=list)
    port_variable: str | None = None
    # Readiness when it is not an HTTP 200 (the Spark processes), and what the ready line says.
    ready: Callable[[], bool] | None = None
    detail: str | None = None
    # A child started only once this holds (or the start deadline passed): see start_children.
    start_after: Callable[[], bool] | None = None

    def start(self, env: dict[str, str], verbose: bool = False) -> None:
        # A child in its own process group: Ctrl-C in the terminal reaches only the supervisor,
        # which then stops the children in order. Its output goes through a pipe to its log file.
        self.process = subprocess.Popen(self.argv, env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        logger = component_logs.component_logger(Path(env["ANALYTICS_HOME"]), self.name)
        component_logs.pump(self.name, self.process.stdout, logger, verbose)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def answers(self) -> bool:
        if self.ready is not None:
            return self.ready()
        try:
            return requests.get(self.health_url, timeout=2).status_code == 200
        except requests.RequestException:
            return False


def dagster_instance_yaml() -> str:
    return (
        "# Written by `analytics up`.\n"
        "telemetry:\n  enabled: false\n"
        "storage:\n  postgres:\n    postgres_url:\n      env: ANALYTICS_DAGSTER_PG_URL\n"
        "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
        "  config:\n    max_concurrent_runs: 2\n"
        # Two dbt runs at once (the 15-minute build and a channel rebuild) would write the same tables.
        "    tag_concurrency_limits:\n      - key: analytics/dbt\n        limit: 1\n"
    )


def workspace_yaml() -> str:
    return "load_from:\n  - python_module: orchestration.definitions\n"


def prepare_dagster_home(settings: Settings) -> Path:
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(dagster_instance_yaml())
    (home / "workspace.yaml").write_text(workspace_yaml())
    return home


def prepare_dbt_manifest(env: dict[str, str]) -> None:
    """Parse the dbt project once when its manifest is missing (Dagster loads assets from it)."""
    if manifest_path().exists():
        return
    click.echo("preparing the dbt manifest (dbt parse)...")
    subprocess.run([_bin("dbt"), "parse", "--quiet"], env=env, check=True,
                   cwd=env["DBT_PROJECT_DIR"])


def _bin(name: str) -> str:
    """A console script installed beside the running Python (the project's virtualenv)."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


def collector_command(workers: int, bind: str, *options: str) -> list[str]:
    """The collector under gunicorn as `analytics up` runs it (uvicorn workers over the ASGI app,
    settings from analytics_cli/gunicorn_collector.py). Tests and benchmarks start it this way."""
    return [_bin("gunicorn"), "-c", "python:analytics_cli.gunicorn_collector", "-w", str(workers), "-b", bind,
            *options, "collector_app.asgi:app"]


def build_children(settings: Settings, with_dagster: bool) -> list[Child]:
    host = settings.bind_host
    gunicorn_config = "python:analytics_cli.gunicorn_config"
    children = [
        Child("collector", collector_command(settings.collector_workers, f"{host}:{settings.collector_port}"),
              f"http://{host}:{settings.collector_port}", f"http://{host}:{settings.collector_port}/healthz",
              port_variable="ANALYTICS_COLLECTOR_PORT"),
        Child("workbench", [_bin("gunicorn"), "-c", gunicorn_config, "-w", str(settings.workbench_workers),
                            "-b", f"{host}:{settings.workbench_port}", "workbench_app.wsgi:app"],
              f"http://{host}:{settings.workbench_port}", f"http://{host}:{settings.workbench_port}/healthz",
              port_variable="ANALYTICS_WORKBENCH_PORT"),
    ]
    if with_dagster:
        workspace = str(settings.dagster_home / "workspace.yaml")
        children += [
            Child("dagster-webserver", [_bin("dagster-webserver"), "-w", workspace, "-h", host,
                                        "-p", str(settings.dagster_port)],
                  f"http://{host}:{settings.dagster_port}", f"http://{host}:{settings.dagster_port}/server_info",
                  port_variable="ANALYTICS_DAGSTER_PORT"),
            Child("dagster-daemon", [_bin("dagster-daemon"), "run", "-w", workspace], None, None),
        ]
    return children


def spark_children(settings: Settings) -> list[Child]:
    """The Spark engine's master, workers and Thrift server (analytics_cli/spark_cluster.py)."""
    return [Child(process.name, process.argv, process.url, None, port_variable=process.port_variable,
                  ready=process.ready, detail=process.detail, start_after=process.start_after)
            for process in spark_cluster.spark_children(settings)]


def follower_children(settings: Settings, database_url: str) -> list[Child]:
    """The `analytics follow` child of `analytics up`, when followers are configured."""
    try:
        with connection.connect(database_url) as conn:
            wanted = sources.has_followers(conn)
    except (connection.DatabaseUnavailable, psycopg.Error):
        wanted = False
    return [Child("follower", [_bin("analytics"), "follow"], None, None)] if wanted else []


def child_environment(settings: Settings, urls: bootstrap.DatabaseUrls) -> dict[str, str]:
    env = dict(os.environ)
    env.update(dbt_environment(urls.analytics))
    if settings.engine == "spark":
        env.update(spark_dbt_environment(settings))
    env.update({
        "ANALYTICS_HOME": str(settings.home),
        "ANALYTICS_DATABASE_URL": urls.analytics,
        # dagster-postgres issues NOTIFY with client-side parameters, which only psycopg2 does.
        "ANALYTICS_DAGSTER_PG_URL": urls.dagster.replace("postgresql://", "postgresql+psycopg2://", 1),
        "DAGSTER_HOME": str(settings.dagster_home),
        "PYTHONUNBUFFERED": "1",
    })
    return env


def port_in_use(host: str, port: int) -> bool:
    """Whether another program listens on the port (gunicorn binds with SO_REUSEADDR, so do we)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def check_ports(settings: Settings, children: list[Child]) -> None:
    """One clear line, naming the port and the variable that changes it, instead of a child's traceback."""
    for child in children:
        if child.port_variable and child.url:
            port = int(child.url.rsplit(":", 1)[1])
            if port_in_use(settings.bind_host, port):
                raise click.ClickException(
                    f"port {port} ({child.name}) is in use by another program: stop it, or set "
                    f"{child.port_variable} to a free port")


def start_children(children: list[Child], env: dict[str, str], verbose: bool, deadline: float,
                   should_stop=lambda: False) -> None:
    """Start every child, those with a `start_after` condition last, each once its condition holds
    (or at the deadline, when its own readiness will then say what is wrong)."""
    for child in children:
        if child.start_after is None:
            child.start(env, verbose)
    for child in children:
        if child.start_after is not None:
            while not child.start_after() and time.monotonic() < deadline and not should_stop():
                time.sleep(0.5)
            child.start(env, verbose)


def wait_until_ready(children: list[Child], deadline: float,
                     on_ready=lambda child: None, should_stop=lambda: False) -> list[str]:
    """Poll the health URLs until all answer 200, calling `on_ready` for each as it does; returns
    the names still not ready."""
    pending = [child for child in children if child.health_url or child.ready]
    while pending and time.monotonic() < deadline and not should_stop():
        for child in list(pending):
            if child.alive() and child.answers():
                pending.remove(child)
                on_ready(child)
        time.sleep(0.5)
    return [child.name for child in pending]


def ready_line(name: str, detail: str) -> str:
    return f"  {click.style('ready', fg='green')}  {name:<18} {detail}"


def stop_children(children: list[Child]) -> None:
    """Stop the children in reverse start order, so the Dagster daemon stops launching runs first.

    Dagster's code servers and run workers are grandchildren that may outlive their parent: every
    descendant is waited for (and killed past the grace period) before the database goes away.
    """
    descendants = []
    for child in children:
        if child.alive():
            try:
                descendants += psutil.Process(child.process.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                pass
    for child in reversed(children):
        if child.alive():
            os.killpg(child.process.pid, signal.SIGTERM)
            if child.name == "dagster-daemon":
                _wait_or_kill(child, time.monotonic() + _STOP_GRACE_SECONDS)
    deadline = time.monotonic() + _STOP_GRACE_SECONDS
    for child in children:
        _wait_or_kill(child, deadline)
    for process in descendants:
        try:
            process.terminate()
        except psutil.NoSuchProcess:
            pass
    _, still_alive = psutil.wait_procs(descendants, timeout=max(1.0, deadline - time.monotonic()))
    for process in still_alive:
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass


def _wait_or_kill(child: Child, deadline: float) -> None:
    if child.process is None:
        return
    try:
        child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(child.process.pid, signal.SIGKILL)
        child.process.wait()


def run_product(settings: Settings, with_dagster: bool = True, verbose: bool = False) -> int:
    """Run until interrupted. Returns the exit status."""
    from analytics_cli.first_run import collector_setup_url, seed_demo_folder, setup_url
    from workbench_app.metadata_database import prepare_metadata_database

    spark = settings.engine == "spark"
    # Before anything starts: a machine without Java (or pyspark) is told at once what to install.
    children = (spark_children(settings) if spark else []) + build_children(settings, with_dagster)
    if spark:
        spark_cluster.java_executable()
    check_ports(settings, children)
    database_was_running = settings.embedded and embedded.status(settings.pgdata).running
    urls, applied = bootstrap.prepare(settings)
    applied += prepare_metadata_database(settings)
    if verbose:
        for migration in applied:
            click.echo(f"applied migration {migration.version:04d}_{migration.name}")
    elif applied:
        click.echo(f"  applied {len(applied)} database migrations")
    database = f"embedded PostgreSQL under {settings.pgdata}" if settings.embedded else "configured PostgreSQL"
    click.echo(ready_line("database", database))
    demo = seed_demo_folder(settings, urls.analytics)
    if demo:
        click.echo("  created the workbench's Demo folder (questions and a dashboard over the demo site)")
    setup_links = SetupLinks(workbench=setup_url(settings), collector=collector_setup_url(settings, urls.analytics))
    env = child_environment(settings, urls)
    if spark:
        spark_cluster.prepare_spark_dir(settings)
        env = spark_cluster.spark_environment(settings, env)
    if with_dagster:
        prepare_dagster_home(settings)
        prepare_dbt_manifest(env)
    children += follower_children(settings, urls.analytics)

    stopping = False

    def request_stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    start_children(children, env, verbose, time.monotonic() + _READY_TIMEOUT_SECONDS, should_stop=lambda: stopping)
    not_ready = wait_until_ready(children, time.monotonic() + _READY_TIMEOUT_SECONDS,
                                 on_ready=lambda child: click.echo(ready_line(child.name, child.detail or child.url)),
                                 should_stop=lambda: stopping)
    if not stopping:
        for child in children:
            if not (child.health_url or child.ready) and child.alive():
                click.echo(ready_line(child.name, "running"))
        if not_ready:
            click.echo(f"warning: not answering yet: {', '.join(not_ready)} "
                       f"(see `analytics logs {not_ready[0]}`)", err=True)
        print_next_steps(settings, children, setup_links, demo is not None)

    status = 0
    while not stopping:
        for child in children:
            if child.alive() or stopping:
                continue
            now = time.monotonic()
            child.restarts = [t for t in child.restarts if now - t < 60]
            if len(child.restarts) >= 5:
                click.echo(f"{child.name} keeps failing; stopping everything (see `analytics logs {child.name}`)",
                           err=True)
                stopping, status = True, 1
                break
            delay = 2 ** len(child.restarts)
            click.echo(f"{child.name} exited ({child.process.returncode}); restarting in {delay} s", err=True)
            time.sleep(delay)
            if stopping:
                break
            child.restarts.append(now)
            child.start(env, verbose)
        time.sleep(0.5)

    click.echo("stopping...")
    stop_children(children)
    if settings.embedded and not database_was_running:
        embedded.stop(settings.pgdata)
    click.echo("stopped")
    return status


@dataclass(frozen=True)
class SetupLinks:
    """The first-run setup links of this start: None where an administrator exists already."""

    workbench: str | None
    collector: str | None


def print_next_steps(settings: Settings, children: list[Child], setup_links: SetupLinks, demo: bool) -> None:
    """The URLs and what to do next, printed once every component answers."""
    click.echo("\nAnalytics is running:")
    for child in children:
        if child.url:
            click.echo(f"  {child.name:<18} {child.url}")
    click.echo("\nNext:")
    if setup_links.workbench:
        click.echo("  Create the workbench's administrator (this link works once, for 24 hours):")
        click.echo(f"    {setup_links.workbench}")
    else:
        workbench = next(child.url for child in children if child.name == "workbench")
        click.echo(f"  Sign in to the workbench: {workbench}/")
    if demo:
        click.echo("  Then look at the Demo dashboard, pinned on the home page: it charts the demo site.")
    else:
        click.echo("  No data yet: `analytics demo` loads a demo site; README.md says how to add your own.")
    if setup_links.collector:
        click.echo("  Create the administrator of the collector's pages (sites, keys; this link works once, "
                   "for 24 hours):")
        click.echo(f"    {setup_links.collector}")
    click.echo(f"  Logs: {component_logs.logs_directory(settings.home)}/<component>.log "
               "(`analytics logs <component> -f`); only warnings and errors show here.")
    click.echo("Press Ctrl-C to stop.\n")
