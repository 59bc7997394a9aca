"""CSV and Parquet folders as a catalog.

The engine reads no file once its configuration is locked, so a folder is loaded into a DuckDB
file (one table per file, in schema `main`) which is attached read-only like any DuckDB source.
The file name carries a fingerprint of the folder (names, sizes, modification times): a changed
folder gives a new file at the next refresh, and workers building the same one at once each write
a private temporary file and rename it into place.
"""
from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import duckdb

from workbench_app.errors import invalid

SUFFIXES = {".csv": "read_csv_auto", ".tsv": "read_csv_auto", ".parquet": "read_parquet"}


def data_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise invalid("path must be an existing folder of CSV or Parquet files.", field="path")
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)


def _table_name(path: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_]", "_", path.stem).lower() or "data"
    return name if re.match(r"[a-z_]", name) else f"t_{name}"


def fingerprint(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def materialize(folder: Path, cache_dir: Path, source_name: str) -> Path:
    """The DuckDB file holding the folder's current content (built when missing)."""
    files = data_files(folder)
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / f"{source_name}-{fingerprint(files)}.duckdb"
    if target.exists():
        return target
    scratch = cache_dir / f".{target.name}.{os.getpid()}.tmp"
    scratch.unlink(missing_ok=True)
    connection = duckdb.connect(str(scratch), config={"autoinstall_known_extensions": False,
                                                      "autoload_known_extensions": False})
    try:
        used: set[str] = set()
        for path in files:
            table = _table_name(path)
            while table in used:
                table += "_"
            used.add(table)
            reader = SUFFIXES[path.suffix.lower()]
            connection.execute(f'CREATE TABLE "{table}" AS SELECT * FROM {reader}(?)', [str(path)])
    finally:
        connection.close()
    os.replace(scratch, target)
    for old in cache_dir.glob(f"{source_name}-*.duckdb"):
        if old != target:
            old.unlink(missing_ok=True)
    return target
