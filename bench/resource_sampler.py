"""Peak memory and CPU time of the processes a benchmark drives (PostgreSQL, dbt), for its figures.

psutil is a dependency of the project (pyproject.toml), so it is used directly rather than /proc.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import psutil


def _tree(root: psutil.Process) -> list[psutil.Process]:
    try:
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _rss(processes: list[psutil.Process]) -> int:
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def cpu_seconds(root: psutil.Process) -> float:
    """CPU time (user + system) of a process tree so far: the live processes, plus the children that
    ended and were waited for (PostgreSQL's postmaster reaps its backends, so their time counts)."""
    total = 0.0
    for process in _tree(root):
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
        if process.pid == root.pid:
            total += times.children_user + times.children_system
    return total


@dataclass
class Peaks:
    postgres: int = 0
    dbt: int = 0


class MemorySampler:
    """Samples, every `interval` seconds on a thread, the summed RSS of PostgreSQL's processes (the
    postmaster and its children; shared buffers count once per process that touched them, so the sum
    overstates) and of dbt (this process when dbt runs in it, plus any child it starts), keeping
    the peaks since the last `reset()`."""

    def __init__(self, postgres_pid: int, interval: float = 0.2):
        self.postgres = psutil.Process(postgres_pid)
        self.bench = psutil.Process(os.getpid())
        self.interval = interval
        self.peaks = Peaks()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-sampler", daemon=True)

    def __enter__(self) -> "MemorySampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def reset(self) -> Peaks:
        """The peaks since the last reset, and start afresh (one sample taken now)."""
        with self._lock:
            peaks, self.peaks = self.peaks, Peaks()
        self._sample()
        return peaks

    def _sample(self) -> None:
        postgres = _tree(self.postgres)
        postgres_pids = {p.pid for p in postgres}
        dbt = [p for p in _tree(self.bench) if p.pid not in postgres_pids]
        postgres_rss, dbt_rss = _rss(postgres), _rss(dbt)
        with self._lock:
            self.peaks.postgres = max(self.peaks.postgres, postgres_rss)
            self.peaks.dbt = max(self.peaks.dbt, dbt_rss)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()
