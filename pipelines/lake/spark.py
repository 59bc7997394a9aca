"""The analytics views built by Spark, written into the lake's folders (docs/data-engineer/spark.md).

With the Spark engine the lake's views come from the cluster, not from PostgreSQL: Spark computes
each view and writes its rows once, as Parquet, into a folder of the lake's staging area (same
filesystem, shared by the workers on a cluster); the lake's writer then reads that folder with
DuckDB, gives each column the type PostgreSQL's catalog has for it (identifiers back to UUID, JSON
text back to JSON: the workbench compares the state's columns with the catalog's), and moves each
partition's file in over the old one as a refresh from PostgreSQL does (layout.py: part-0.parquet
per partition, `_lake.json` beside them, atomic per partition). The workbench reads them unchanged,
with its permission rewrite.

Spark builds every table whole (no build marks as PostgreSQL's), so every partition of every view
is rewritten; a partition no longer produced is removed.
"""
from __future__ import annotations

import shutil
import time
from contextlib import contextmanager
from typing import Iterator

from pyhive import hive

from pipelines.lake.export import ExportResult, LakeWriter, _literal, _quote, typed_columns
from pipelines.lake.layout import ANALYTICS
from pipelines.lake.tables import LakeTable


class SparkViewsWriter:
    """Writes the lake's analytics folders from the views a Spark build made (through the Thrift server)."""

    def __init__(self, writer: LakeWriter, host: str, port: int):
        self.writer = writer
        self.host = host
        self.port = port

    @contextmanager
    def _spark(self) -> Iterator:
        connection = hive.connect(host=self.host, port=self.port)
        try:
            yield connection.cursor()
        finally:
            connection.close()

    def refresh_views(self) -> list[ExportResult]:
        """Every analytics view the catalog has and Spark built (the event views stay PostgreSQL's:
        they read raw events live)."""
        tables = [table for table in self.writer.analytics_tables() if not table.live]
        with self._spark() as spark:
            spark.execute(f"show tables in {ANALYTICS}")
            built = {row[1] for row in spark.fetchall()}
            return [self.refresh_table(spark, table) for table in tables if table.name in built]

    def refresh_table(self, spark, table: LakeTable) -> ExportResult:
        started = time.perf_counter()
        lake = self.writer.lake
        stage = lake.staging_path(suffix="")
        columns = ", ".join(f"`{name}`" for name in table.column_names)
        try:
            # Spark writes the view's rows (part files and a _SUCCESS marker) into the staging folder.
            spark.execute(f"insert overwrite directory {_literal(str(stage))} using parquet "
                          f"select {columns} from {ANALYTICS}.`{table.name}`")
            files = str(stage / "*.parquet")
            existing = set(lake.partitions(table.schema, table.name))
            source = (f"(SELECT {typed_columns(table)} FROM read_parquet({_literal(files)}))"
                      if any(stage.glob("*.parquet"))
                      else "(SELECT " + ", ".join(f"CAST(NULL AS {kind}) AS {_quote(name)}"
                                                   for name, kind in table.columns) + " WHERE false)")
            result = self.writer._write(table, "true", existing, only=None, source=source)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        result.full = True
        state = self.writer._state(table, result, mark=None)
        result.seconds = time.perf_counter() - started
        state.extra["built_by"] = "spark"
        state.extra["seconds"] = round(result.seconds, 3)
        lake.write_state(table.schema, table.name, state)
        return result
