"""`analytics up`: run every component as a child process, supervise them, stop them cleanly.

The children are the collector and the workbench under gunicorn, and Dagster's webserver and
daemon. They are told the database URL explicitly, so none of them starts a database of its own.
A child that dies is restarted with a growing delay; Ctrl-C or SIGTERM stops them all, then the
embedded database if this command started it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import click
import psutil
import requests

from analytics_cli.follow_commands import follower_children
from pipelines.database import bootstrap, embedded
from pipelines.dbt_environment import dbt_environment, manifest_path
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

    def start(self, env: dict[str, str]) -> None:
        # A child in its own process group: Ctrl-C in the terminal reaches only the supervisor,
        # which then stops the children in order.
        self.process = subprocess.Popen(self.argv, env=env, start_new_session=True)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


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
    """The collector under gunicorn as `analytics up` runs it (gevent workers, connections and
    access log from analytics_cli/gunicorn_collector.py). Tests and benchmarks start it this way."""
    return [_bin("gunicorn"), "-c", "python:analytics_cli.gunicorn_collector", "-w", str(workers), "-b", bind,
            *options, "collector_app.wsgi:app"]


def build_children(settings: Settings, with_dagster: bool) -> list[Child]:
    host = settings.bind_host
    gunicorn_config = "python:analytics_cli.gunicorn_config"
    children = [
        Child("collector", collector_command(settings.collector_workers, f"{host}:{settings.collector_port}"),
              f"http://{host}:{settings.collector_port}", f"http://{host}:{settings.collector_port}/healthz"),
        Child("workbench", [_bin("gunicorn"), "-c", gunicorn_config, "-w", str(settings.workbench_workers),
                            "-b", f"{host}:{settings.workbench_port}", "workbench_app.wsgi:app"],
              f"http://{host}:{settings.workbench_port}", f"http://{host}:{settings.workbench_port}/healthz"),
    ]
    if with_dagster:
        workspace = str(settings.dagster_home / "workspace.yaml")
        children += [
            Child("dagster-webserver", [_bin("dagster-webserver"), "-w", workspace, "-h", host,
                                        "-p", str(settings.dagster_port)],
                  f"http://{host}:{settings.dagster_port}", f"http://{host}:{settings.dagster_port}/server_info"),
            Child("dagster-daemon", [_bin("dagster-daemon"), "run", "-w", workspace], None, None),
        ]
    return children


def child_environment(settings: Settings, urls: bootstrap.DatabaseUrls) -> dict[str, str]:
    env = dict(os.environ)
    env.update(dbt_environment(urls.analytics))
    env.update({
        "ANALYTICS_HOME": str(settings.home),
        "ANALYTICS_DATABASE_URL": urls.analytics,
        # dagster-postgres issues NOTIFY with client-side parameters, which only psycopg2 does.
        "ANALYTICS_DAGSTER_PG_URL": urls.dagster.replace("postgresql://", "postgresql+psycopg2://", 1),
        "DAGSTER_HOME": str(settings.dagster_home),
        "PYTHONUNBUFFERED": "1",
    })
    return env


def wait_until_ready(children: list[Child], deadline: float) -> list[str]:
    """Poll the health URLs until all answer 200; returns the names still not ready."""
    pending = [child for child in children if child.health_url]
    while pending and time.monotonic() < deadline:
        for child in list(pending):
            if not child.alive():
                continue
            try:
                if requests.get(child.health_url, timeout=2).status_code == 200:
                    pending.remove(child)
            except requests.RequestException:
                pass
        time.sleep(0.5)
    return [child.name for child in pending]


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


def run_product(settings: Settings, with_dagster: bool = True) -> int:
    """Run until interrupted. Returns the exit status."""
    database_was_running = settings.embedded and embedded.status(settings.pgdata).running
    from workbench_app.metadata_database import prepare_metadata_database

    urls, applied = bootstrap.prepare(settings)
    applied += prepare_metadata_database(settings)
    for migration in applied:
        click.echo(f"applied migration {migration.version:04d}_{migration.name}")
    env = child_environment(settings, urls)
    if with_dagster:
        prepare_dagster_home(settings)
        prepare_dbt_manifest(env)
    children = build_children(settings, with_dagster)
    children += follower_children(settings, urls.analytics)

    stopping = False

    def request_stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    for child in children:
        child.start(env)

    not_ready = wait_until_ready(children, time.monotonic() + _READY_TIMEOUT_SECONDS)
    if not stopping:
        if not_ready:
            click.echo(f"warning: not answering yet: {', '.join(not_ready)}", err=True)
        click.echo("\nAnalytics is running:")
        for child in children:
            if child.url:
                click.echo(f"  {child.name:<18} {child.url}")
        database = "embedded PostgreSQL under " + str(settings.pgdata) if settings.embedded else "configured PostgreSQL"
        click.echo(f"  {'database':<18} {database}")
        click.echo("Press Ctrl-C to stop.\n")

    status = 0
    while not stopping:
        for child in children:
            if child.alive() or stopping:
                continue
            now = time.monotonic()
            child.restarts = [t for t in child.restarts if now - t < 60]
            if len(child.restarts) >= 5:
                click.echo(f"{child.name} keeps failing; stopping everything", err=True)
                stopping, status = True, 1
                break
            delay = 2 ** len(child.restarts)
            click.echo(f"{child.name} exited ({child.process.returncode}); restarting in {delay} s", err=True)
            time.sleep(delay)
            if stopping:
                break
            child.restarts.append(now)
            child.start(env)
        time.sleep(0.5)

    click.echo("stopping...")
    stop_children(children)
    if settings.embedded and not database_was_running:
        embedded.stop(settings.pgdata)
    click.echo("stopped")
    return status
