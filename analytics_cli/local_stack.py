"""A throwaway instance of the product for browser tests and benchmarks: a fresh home with the
demo data, then `analytics up` on free ports, exactly as a person runs it."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import requests

ANALYTICS = str(Path(sys.executable).parent / "analytics")
REPO_ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LocalStack:
    root: Path
    env: dict
    workbench_url: str
    collector_url: str
    log: Path
    process: subprocess.Popen | None = None
    demo_output: str = ""
    demo_errors: str = ""

    @classmethod
    def prepare(cls, workbench_workers: int = 2) -> LocalStack:
        """A new home with the demo site and its 90 days of traffic (about a minute)."""
        root = Path(tempfile.mkdtemp(prefix="analytics-stack-"))
        workbench, collector = free_port(), free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
        env.update(ANALYTICS_HOME=str(root / "home"), ANALYTICS_WORKBENCH_PORT=str(workbench),
                   ANALYTICS_COLLECTOR_PORT=str(collector), ANALYTICS_WORKBENCH_WORKERS=str(workbench_workers))
        demo = subprocess.run([ANALYTICS, "demo"], env=env, cwd=REPO_ROOT, capture_output=True, text=True,
                              timeout=900)
        if demo.returncode != 0:
            raise RuntimeError(f"analytics demo failed:\n{demo.stdout[-3000:]}\n{demo.stderr[-3000:]}")
        return cls(root, env, f"http://127.0.0.1:{workbench}", f"http://127.0.0.1:{collector}", root / "up.log",
                   demo_output=demo.stdout, demo_errors=demo.stderr)

    def start(self, seconds: float = 120) -> LocalStack:
        with self.log.open("w") as out:
            self.process = subprocess.Popen([ANALYTICS, "up", "--no-dagster"], env=self.env, cwd=REPO_ROOT,
                                            stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"analytics up exited:\n{self.log.read_text()[-3000:]}")
            try:
                if requests.get(f"{self.workbench_url}/healthz", timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"the workbench did not answer within {seconds} s:\n{self.log.read_text()[-3000:]}")

    def console(self) -> str:
        """What `analytics up` printed so far."""
        return self.log.read_text()

    def printed_setup_link(self, seconds: float = 60, collector: bool = False) -> str:
        """The first-run setup link `analytics up` prints once every component answers: the
        workbench's, or the collector's administration pages' one."""
        start = f"{self.collector_url}/admin/setup?token=" if collector else f"{self.workbench_url}/setup?token="
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = re.search(re.escape(start) + r"[\w-]+", self.console())
            if found:
                return found.group(0)
            time.sleep(0.2)
        raise RuntimeError(f"no setup link printed within {seconds} s:\n{self.console()[-3000:]}")

    def analytics(self, *args: str) -> str:
        """Run an `analytics` command against this instance; its standard output."""
        return subprocess.run([ANALYTICS, *args], env=self.env, cwd=REPO_ROOT, check=True, capture_output=True,
                              text=True).stdout

    def create_admin(self, email: str, password: str, name: str = "Administrator") -> str:
        """A workbench administrator; their API token."""
        out = self.analytics("workbench", "create-admin", "--email", email, "--password", password, "--name", name,
                             "--with-token")
        return next(line.strip() for line in out.splitlines() if line.strip().startswith("wbt_"))

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.root, ignore_errors=True)
