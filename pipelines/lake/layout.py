"""The lake's folders and files: the one contract between the exporter, Spark and the workbench.

    <lake>/raw/events/site_id=<uuid>/day=<YYYY-MM-DD>/part-0.parquet
    <lake>/analytics/<view>/site_id=<uuid>/day=<YYYY-MM-DD>/part-0.parquet   a view with a site and a date
    <lake>/analytics/<view>/day=<YYYY-MM-DD>/part-0.parquet                  a date but no site
    <lake>/analytics/<view>/part-0.parquet                                   neither (small dimensions)
    <lake>/<table folder>/_lake.json                                         the table's state (TableState)
    <lake>/.staging/                                                         files being written

Hive partitions named like columns; the partition columns are in the path, not in the files
(what Spark writes too). A partition is one file, written in `.staging` (same filesystem) and
renamed over the old one, so a reader sees the old file or the new one, never half of either, and
a crash leaves the old one. Files and folders whose names start with `_` or `.` are not data
(Spark and Hive skip them too).
"""
from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path

DATA_FILE = "part-0.parquet"
STATE_FILE = "_lake.json"
STAGING = ".staging"
RAW_EVENTS = ("raw", "events")
ANALYTICS = "analytics"

# How a table is split into files.
SITE_DAY = "site_day"
DAY = "day"
WHOLE = "whole"


@dataclass(frozen=True, order=True)
class Partition:
    """One file of a table: (site, day), (day) or the whole table (both None)."""

    site_id: str | None = None
    day: date | None = None

    def relative(self) -> Path:
        parts = []
        if self.site_id is not None:
            parts.append(f"site_id={self.site_id}")
        if self.day is not None:
            parts.append(f"day={self.day.isoformat()}")
        return Path(*parts, DATA_FILE) if parts else Path(DATA_FILE)


@dataclass
class TableState:
    """What the lake holds of one table, kept beside its files (`_lake.json`).

    `columns` are the table's columns in order with their DuckDB types (partition columns
    included); `newest_day` is the newest day the last refresh exported, and `mark` what it
    reflects of PostgreSQL (the build mark of the views, the reception mark of raw days).
    """

    table: str
    layout: str
    day_column: str | None
    columns: list[list[str]]
    refreshed_at: str
    newest_day: str | None = None
    mark: str | None = None
    rows: int = 0
    bytes: int = 0
    extra: dict = field(default_factory=dict)


class Lake:
    """A lake rooted at a folder (local or a mounted shared filesystem)."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def table_dir(self, schema: str, table: str) -> Path:
        return self.root / schema / table

    def analytics_dir(self) -> Path:
        return self.root / ANALYTICS

    def staging_dir(self) -> Path:
        path = self.root / STAGING
        path.mkdir(parents=True, exist_ok=True)
        return path

    def staging_path(self, suffix: str = ".parquet") -> Path:
        """A fresh file name in the staging folder (unique: two writers never share one)."""
        return self.staging_dir() / f"{uuid.uuid4().hex}{suffix}"

    # --- partitions ---------------------------------------------------------------------

    def partitions(self, schema: str, table: str) -> dict[Partition, Path]:
        """Every data file of a table, by partition."""
        base = self.table_dir(schema, table)
        found: dict[Partition, Path] = {}
        if not base.is_dir():
            return found
        for path in base.rglob(DATA_FILE):
            relative = path.relative_to(base).parts[:-1]
            if any(part.startswith(("_", ".")) for part in relative):
                continue
            found[partition_of(relative)] = path
        return found

    def replace_partition(self, schema: str, table: str, partition: Partition, written: Path) -> Path:
        """Move a file written in staging into place, over the partition's old file (atomic)."""
        target = self.table_dir(schema, table) / partition.relative()
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(written, target)
        return target

    def drop_partition(self, schema: str, table: str, partition: Partition) -> bool:
        """Remove a partition's file and its folders left empty; False when it had none."""
        base = self.table_dir(schema, table)
        target = base / partition.relative()
        try:
            target.unlink()
        except FileNotFoundError:
            return False
        folder = target.parent
        while folder != base and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
        return True

    def drop_table(self, schema: str, table: str) -> None:
        shutil.rmtree(self.table_dir(schema, table), ignore_errors=True)

    # --- state --------------------------------------------------------------------------

    def read_state(self, schema: str, table: str) -> TableState | None:
        """The table's state, or None when it was never exported (or its state is unreadable)."""
        try:
            data = json.loads((self.table_dir(schema, table) / STATE_FILE).read_text())
            return TableState(**data)
        except (OSError, ValueError, TypeError):
            return None

    def write_state(self, schema: str, table: str, state: TableState) -> None:
        """Write the state beside the files, whole (written in staging, then renamed)."""
        staged = self.staging_path(".json")
        staged.write_text(json.dumps(asdict(state), indent=1, sort_keys=True))
        target = self.table_dir(schema, table) / STATE_FILE
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)

    def analytics_tables(self) -> list[str]:
        """Names of the analytics tables the lake has a state for."""
        base = self.analytics_dir()
        if not base.is_dir():
            return []
        return sorted(path.name for path in base.iterdir() if (path / STATE_FILE).is_file())

    def clear_staging(self, older_than_seconds: float = 3600) -> None:
        """Remove files a crashed writer left in staging (old enough that no writer still owns them)."""
        folder = self.root / STAGING
        if not folder.is_dir():
            return
        limit = time.time() - older_than_seconds
        for path in folder.iterdir():
            try:
                if path.stat().st_mtime < limit:
                    shutil.rmtree(path) if path.is_dir() else path.unlink()
            except OSError:
                pass


def partition_of(relative_parts: tuple[str, ...]) -> Partition:
    """The partition of a file's folders below its table (`site_id=.../day=...`)."""
    values = dict(part.split("=", 1) for part in relative_parts if "=" in part)
    day = values.get("day")
    return Partition(values.get("site_id"), date.fromisoformat(day) if day else None)
