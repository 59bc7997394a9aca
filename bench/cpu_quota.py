"""A CPU quota per Spark worker for bench/spark.py (`--worker-cpu`): each worker, and the executor it
starts, held to a share of a core by a Linux control group of its own.

On a machine of few cores the driver (the Thrift server), dbt and the workers compete for the same
cores: a second worker takes CPU from the driver as much as it adds. Workers held to half a core
each leave the driver and dbt a core of their own with one worker and with two, so the scaling from
one worker to two shows what more workers with their own cores divide. A worker's command starts
in a shell that moves itself into the group and then runs the command: every process the worker
forks (its executor) inherits the group. Needs root and the cgroup `cpu` controller (version 1
under /sys/fs/cgroup/cpu, or version 2 with `cpu` enabled).
"""
from __future__ import annotations

import os
import uuid
from pathlib import Path

PERIOD_US = 100_000
CGROUP_V1 = Path("/sys/fs/cgroup/cpu")
CGROUP_V2 = Path("/sys/fs/cgroup")


class QuotaUnavailable(RuntimeError):
    """No cgroup CPU controller this process may write to."""


class CpuQuotas:
    """Control groups of one CPU quota each, made on demand and removed on exit."""

    def __init__(self, cores: float):
        if not 0 < cores <= 64:
            raise QuotaUnavailable(f"--worker-cpu must be a share of cores above 0, not {cores}")
        self.cores = cores
        self.groups: list[Path] = []
        if (CGROUP_V1 / "cpu.cfs_quota_us").exists():
            self.root, self.version = CGROUP_V1, 1
        elif "cpu" in _read(CGROUP_V2 / "cgroup.subtree_control").split():
            self.root, self.version = CGROUP_V2, 2
        else:
            raise QuotaUnavailable("no cgroup cpu controller (cgroup v1 /sys/fs/cgroup/cpu, or v2 with cpu enabled)")

    def group(self, name: str) -> Path:
        """A new group with the quota; its folder (its `cgroup.procs` takes a process)."""
        path = self.root / f"analytics-bench-{name}-{uuid.uuid4().hex[:6]}"
        quota = int(self.cores * PERIOD_US)
        try:
            path.mkdir()
            if self.version == 1:
                (path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
                (path / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (path / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        except OSError as error:
            raise QuotaUnavailable(f"cannot make a cgroup under {self.root} ({error}): run as root") from error
        self.groups.append(path)
        return path

    def wrap(self, name: str, argv: list[str]) -> list[str]:
        """`argv` run inside a new group of the quota (the shell joins it, then becomes the command)."""
        procs = self.group(name) / "cgroup.procs"
        return ["/bin/sh", "-c", f'echo $$ > "{procs}" && exec "$@"', "worker-in-cgroup", *argv]

    def close(self) -> None:
        """Remove the groups (once their processes are gone)."""
        for path in self.groups:
            try:
                os.rmdir(path)
            except OSError:
                pass
        self.groups = []


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""
