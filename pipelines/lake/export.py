"""Writing the lake from PostgreSQL: raw days, and the analytics views after each build.

DuckDB reads PostgreSQL through its scanner (the types the workbench has always seen) and writes
zstd Parquet, partitioned by site and day, in the lake's staging folder; each partition's file is
then renamed over the old one (layout.py). A partition that lost all its rows (an erasure, a
rebuilt day) loses its file. Writers take one PostgreSQL advisory lock, so two exports (a retry
beside a run, an erasure beside a refresh) run one after the other and the last one's files win
whole.

What a refresh rewrites (`refresh_views`): every partition of every view on a full refresh (the
first one, after a full build or a change of channel rules, which reach the past); otherwise the
(site, day) partitions of the visits built, of the conversions whose attribution a build redid and
of the raw events received since the last refresh (its marks: one per model family, since a build
writes the conversions after the visits), plus any partition whose file is missing or damaged. Tables without a day are small
and rewritten whole each time.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Iterable, Iterator

import duckdb
import psycopg
import psycopg.conninfo
import psycopg.sql

from pipelines.database import connection
from pipelines.duckdb_extensions import OFFLINE_CONFIG, load_extension
from pipelines.lake.layout import (ANALYTICS, DATA_FILE, RAW_EVENTS, SITE_DAY, WHOLE, Lake, Partition, TableState,
                                   partition_of)
from pipelines.lake.tables import NARROWING, SOURCE_TABLES, LakeTable, lake_table
from pipelines.settings import Settings

log = logging.getLogger(__name__)

# One writer of the lake at a time (any process, any host sharing the database).
LAKE_LOCK_ID = 7_205_114_051
# Rows per row group: DuckDB's default, large enough for scans, small enough to skip by statistics.
ROW_GROUP_SIZE = 122_880
PARQUET_OPTIONS = f"FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {ROW_GROUP_SIZE}"
PARQUET_MAGIC = b"PAR1"
# Views refreshed at once: PostgreSQL computes one while DuckDB compresses another (bench/lake.py).
REFRESH_THREADS = 3


@dataclass
class ExportResult:
    """What one export or refresh did to one table."""

    table: str
    written: int = 0
    dropped: int = 0
    rows_written: int = 0
    rows: int = 0  # the whole table's, after the export
    bytes: int = 0
    full: bool = False
    seconds: float = 0.0
    written_files: set = field(default_factory=set)

    def metadata(self) -> dict:
        return {"partitions_written": self.written, "partitions_dropped": self.dropped,
                "rows_written": self.rows_written, "row_count": self.rows, "bytes": self.bytes,
                "full_rewrite": self.full, "seconds": round(self.seconds, 3)}


@dataclass
class RefreshPlan:
    """The partitions a refresh rewrites, and the marks it records once done."""

    full: bool
    changed: set[tuple[str, date]] = field(default_factory=set)
    visits_mark: str | None = None
    conversions_mark: str | None = None
    received_mark: str | None = None


@contextmanager
def lake_lock(conn: psycopg.Connection) -> Iterator[psycopg.Connection]:
    """Hold the lake writers' lock on an autocommit connection (a session advisory lock: released
    if the process dies)."""
    conn.execute("select pg_advisory_lock(%s)", (LAKE_LOCK_ID,))
    try:
        yield conn
    finally:
        if not conn.closed:
            conn.execute("select pg_advisory_unlock(%s)", (LAKE_LOCK_ID,))


def lake_of(settings: Settings) -> Lake:
    return Lake(settings.lake_path)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def typed_columns(table: LakeTable) -> str:
    """The table's columns cast to their lake types: a select list over Parquet written by another
    engine (Spark) or read back from the lake."""
    return ", ".join(f"CAST({_quote(name)} AS {kind}) AS {_quote(name)}" for name, kind in table.columns)


class LakeWriter:
    """A writer of the lake: one DuckDB database reading PostgreSQL (a cursor per thread), and the
    writers' lock."""

    def __init__(self, settings: Settings, url: str | None = None, *, lake: Lake | None = None,
                 threads: int = REFRESH_THREADS):
        self.settings = settings
        self.url = url or connection.server_url(settings)
        self.lake = lake or lake_of(settings)
        self.threads = threads
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()

    @property
    def duck(self) -> duckdb.DuckDBPyConnection:
        """This thread's DuckDB connection (a DuckDB connection is not shared between threads)."""
        cursor = getattr(self._local, "duck", None)
        if cursor is None:
            cursor = self._duck.cursor()
            cursor.execute("SET TimeZone = 'UTC'")
            with self._cursors_lock:
                self._cursors.append(cursor)
            self._local.duck = cursor
        return cursor

    @contextmanager
    def open(self) -> Iterator["LakeWriter"]:
        """Take the writers' lock and open DuckDB over PostgreSQL (the owner's role: raw is read too)."""
        with connection.connect(self.url, autocommit=True) as conn, lake_lock(conn) as lock_conn:
            self.pg = lock_conn
            self._duck = duckdb.connect(":memory:", config=OFFLINE_CONFIG)
            self._local.duck = self._duck
            try:
                self._duck.execute("SET TimeZone = 'UTC'")
                self._duck.execute("SET preserve_insertion_order = false")
                load_extension(self._duck, "postgres_scanner")
                conninfo = psycopg.conninfo.make_conninfo(self.url)
                self._duck.execute(f"ATTACH {_literal(conninfo)} AS pg (TYPE postgres, READ_ONLY)")
                self.lake.root.mkdir(parents=True, exist_ok=True)
                self.lake.clear_staging()
                yield self
            finally:
                for cursor in self._cursors:
                    cursor.close()
                self._cursors.clear()
                self._local = threading.local()
                self._duck.close()

    # --- tables ---------------------------------------------------------------------------

    def table(self, schema: str, name: str) -> LakeTable | None:
        """The relation as the lake stores it, or None when PostgreSQL does not have it."""
        rows = self.duck.execute(
            """SELECT column_name, data_type FROM duckdb_columns()
                WHERE database_name = 'pg' AND schema_name = ? AND table_name = ? ORDER BY column_index""",
            [schema, name]).fetchall()
        return lake_table(schema, name, [(column, kind) for column, kind in rows]) if rows else None

    def analytics_tables(self) -> list[LakeTable]:
        names = [name for (name,) in self.duck.execute(
            """SELECT DISTINCT table_name FROM duckdb_columns()
                WHERE database_name = 'pg' AND schema_name = ? ORDER BY 1""", [ANALYTICS]).fetchall()]
        return [table for table in (self.table(ANALYTICS, name) for name in names) if table is not None]

    # --- writing --------------------------------------------------------------------------

    def export_raw_day(self, day: date) -> ExportResult:
        """Write every site's raw events of one UTC day (again: a day is exported until it is closed
        for late events, 72 hours after its end)."""
        started = time.perf_counter()
        table = self.table(*RAW_EVENTS)
        start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        where = (f'"occurred_at" >= TIMESTAMPTZ {_literal(start.isoformat())}'
                 f' AND "occurred_at" < TIMESTAMPTZ {_literal((start + timedelta(days=1)).isoformat())}')
        existing = {p for p in self.lake.partitions(*RAW_EVENTS) if p.day == day}
        mark = self.pg.execute("select coalesce(max(received_at), '-infinity')::text from raw.events"
                               " where occurred_at >= %s and occurred_at < %s",
                               (start, start + timedelta(days=1))).fetchone()[0]
        previous = self.lake.read_state(*RAW_EVENTS)
        result = self._write(table, where, existing, only=None, sort=False)
        state = self._state(table, result, mark=None)
        # What PostgreSQL had received for each exported day: the sensor exports a day again when it moved.
        marks = dict(previous.extra.get("received_marks", {})) if previous else {}
        marks[day.isoformat()] = mark
        state.extra["received_marks"] = marks
        self.lake.write_state(*RAW_EVENTS, state)
        result.seconds = time.perf_counter() - started
        return result

    def export_sources(self) -> list[ExportResult]:
        """Write the other tables the models read (tables.SOURCE_TABLES: sites, goals, channel rules,
        ...), each whole, for an engine that reads the lake rather than PostgreSQL (Spark). Small
        tables edited by people: rewritten at each export, as the views without a day are."""
        results = []
        for schema, name in SOURCE_TABLES:
            started = time.perf_counter()
            table = self.table(schema, name)
            if table is None:
                continue
            # One file each, whatever their columns (a table of chat events has a site and a time).
            table = dataclasses.replace(table, layout=WHOLE, day_column=None)
            existing = set(self.lake.partitions(schema, name))
            result = self._write(table, "true", existing, only=None)
            result.full = True
            self.lake.write_state(schema, name, self._state(table, result, mark=None))
            result.seconds = time.perf_counter() - started
            results.append(result)
        return results

    def refresh_views(self, full: bool = False) -> list[ExportResult]:
        """Bring every analytics view's folder up to PostgreSQL (see the module's docstring)."""
        tables = self.analytics_tables()
        plan = self.plan(full)
        present = {table.name for table in tables}
        # Tables side by side: each one's time is mostly PostgreSQL computing a view, then DuckDB
        # compressing it, two processes that overlap. Slowest first, as the last refresh timed them.
        tables.sort(key=lambda table: -self._last_seconds(table))
        with ThreadPoolExecutor(max_workers=max(1, self.threads), thread_name_prefix="lake-refresh") as pool:
            results = list(pool.map(lambda table: self.refresh_table(table, plan), tables))
        for stale in set(self.lake.analytics_tables()) - present:
            # A view that no longer exists (an event no longer declared): its folder goes too.
            self.lake.drop_table(ANALYTICS, stale)
        return results

    def plan(self, full: bool) -> RefreshPlan:
        """What a refresh rewrites: the marks of the last one against PostgreSQL's now."""
        visits_mark = self._scalar("select coalesce(max(built_at), '-infinity')::text from intermediate.int_visits")
        # The conversions' models are built after the visits' within one build: their own mark, or
        # every refresh would find the last build's conversions newer than the visits' mark.
        conversions_mark = self._scalar(
            """select greatest((select max(built_at) from intermediate.int_conversions),
                               (select max(built_at) from intermediate.int_attribution_touches),
                               '-infinity'::timestamptz)::text""")
        received_mark = self._scalar("select coalesce(max(received_at), '-infinity')::text from raw.events")
        plan = RefreshPlan(full=full, visits_mark=visits_mark, conversions_mark=conversions_mark,
                           received_mark=received_mark)
        previous = self._marks()
        if full or previous is None:
            plan.full = True
            return plan
        if visits_mark is not None and previous.get("visits"):
            plan.changed.update(self.pg.execute(
                """select distinct site_id::text, day::date
                     from intermediate.int_visits,
                          generate_series((visit_start at time zone 'UTC')::date,
                                          (visit_end at time zone 'UTC')::date, interval '1 day') as day
                    where built_at > %s::timestamptz""", (previous["visits"],)).fetchall())
        since = previous.get("conversions") or previous.get("visits")
        if conversions_mark is not None and since:
            # Attribution reaches back: a visit rebuilt (late events) changes the touches of the
            # visitor's later conversions, whose days the visits alone do not name.
            plan.changed.update(self.pg.execute(
                """select distinct c.site_id::text, (c.converted_at at time zone 'UTC')::date
                     from intermediate.int_conversions c
                    where c.built_at > %(mark)s::timestamptz
                       or c.conversion_id in (select conversion_id from intermediate.int_attribution_touches
                                               where built_at > %(mark)s::timestamptz)""",
                {"mark": since}).fetchall())
        if previous.get("received"):
            plan.changed.update(self.pg.execute(
                """select distinct site_id::text, (occurred_at at time zone 'UTC')::date
                     from raw.events where received_at > %s::timestamptz""", (previous["received"],)).fetchall())
        return plan

    def _last_seconds(self, table: LakeTable) -> float:
        state = self.lake.read_state(table.schema, table.name)
        return float(state.extra.get("seconds", 0.0)) if state else 0.0

    def _scalar(self, query: str) -> str | None:
        try:
            with self.pg.transaction():
                return self.pg.execute(query).fetchone()[0]
        except psycopg.errors.UndefinedTable:
            return None

    def _marks(self) -> dict | None:
        """The marks of the last refresh (None before the first one)."""
        states = [self.lake.read_state(ANALYTICS, name) for name in self.lake.analytics_tables()]
        marks = [state.extra.get("marks") for state in states if state and state.extra.get("marks")]
        return min(marks, key=lambda m: (m.get("visits") or "", m.get("conversions") or "",
                                         m.get("received") or "")) if marks else None

    def refresh_table(self, table: LakeTable, plan: RefreshPlan) -> ExportResult:
        """Rewrite what the plan says of one view (all of it when its columns changed)."""
        started = time.perf_counter()
        state = self.lake.read_state(table.schema, table.name)
        full = (plan.full or table.layout == WHOLE or state is None
                or [list(c) for c in table.columns] != state.columns)
        existing = set(self.lake.partitions(table.schema, table.name))
        if full:
            result = self._write(table, "true", existing, only=None)
        else:
            damaged = self.damaged_partitions(table, state)
            wanted = {Partition(site, day) for site, day in plan.changed} | damaged
            if table.layout != SITE_DAY:
                wanted = {Partition(None, p.day) for p in wanted}
            result = (self._write(table, self._days_filter(table, wanted), wanted, only=wanted, sort=False)
                      if wanted else ExportResult(table.name))
        result.full = full
        new_state = self._state(table, result, mark=None)
        new_state.extra["marks"] = {"visits": plan.visits_mark, "conversions": plan.conversions_mark,
                                    "received": plan.received_mark}
        result.seconds = time.perf_counter() - started
        new_state.extra["seconds"] = round(result.seconds, 3)
        self.lake.write_state(table.schema, table.name, new_state)
        return result

    def rewrite_partitions(self, table: LakeTable, partitions: set[Partition],
                           without: str | None = None) -> ExportResult:
        """Rewrite chosen partitions of a table (erasure): from PostgreSQL, where the person is gone;
        or, with `without` (a condition on the table's columns), from the lake's own files less the
        rows it matches: a view Spark built, of which PostgreSQL holds no copy of the same build."""
        existing = self.lake.partitions(table.schema, table.name)
        whole = table.layout == WHOLE
        if whole:
            partitions = set(existing)
        source = None
        if without is not None:
            files = ", ".join(_literal(str(existing[p])) for p in sorted(partitions) if p in existing)
            # The site and the day are in the folders' names, not in the files.
            source = (f"(SELECT {typed_columns(table)} FROM read_parquet([{files}], "
                      f"hive_partitioning = {str(not whole).lower()}) WHERE NOT coalesce(({without}), false))")
        where = "true" if whole or source else self._days_filter(table, partitions)
        result = self._write(table, where, partitions, only=None if whole else partitions, source=source)
        state = self.lake.read_state(table.schema, table.name)
        new_state = self._state(table, result, mark=None)
        # What the rewrite does not change: the refresh's marks, and which engine built the view.
        for kept in ("marks", "received_marks", "built_by"):
            if state and state.extra.get(kept):
                new_state.extra[kept] = state.extra[kept]
        self.lake.write_state(table.schema, table.name, new_state)
        return result

    def damaged_partitions(self, table: LakeTable, state: TableState) -> set[Partition]:
        """Partitions whose file is missing, of another size than written, or without Parquet's
        closing magic: a crash or a damaged disk; the refresh writes them again."""
        recorded = state.extra.get("files", {})
        damaged = set()
        base = self.lake.table_dir(table.schema, table.name)
        for relative, (_rows, size, *_mtime) in recorded.items():
            path = base / relative
            try:
                if path.stat().st_size != size or not _ends_with_magic(path):
                    damaged.add(partition_of(Path(relative).parts[:-1]))
            except OSError:
                damaged.add(partition_of(Path(relative).parts[:-1]))
        return damaged

    def _days_filter(self, table: LakeTable, partitions: Iterable[Partition]) -> str:
        """A filter on the day column (pushed to PostgreSQL as a range) for these partitions."""
        days = sorted({p.day for p in partitions if p.day is not None})
        if not days:
            return "false"
        kind = dict(table.columns)[table.day_column].upper()
        low, high = days[0], days[-1] + timedelta(days=1)
        column = _quote(table.day_column)
        if kind == "DATE":
            span = f"{column} >= DATE {_literal(low.isoformat())} AND {column} < DATE {_literal(high.isoformat())}"
        else:
            span = (f"{column} >= TIMESTAMPTZ {_literal(low.isoformat() + ' 00:00:00+00')}"
                    f" AND {column} < TIMESTAMPTZ {_literal(high.isoformat() + ' 00:00:00+00')}")
        listed = ", ".join(f"DATE {_literal(day.isoformat())}" for day in days)
        condition = f"{span} AND {table.day_expression()} IN ({listed})"
        sites = sorted({p.site_id for p in partitions if p.site_id is not None})
        if table.layout == SITE_DAY and sites:
            # Pushed to PostgreSQL with the range: the models' (site_id, time) indexes answer it.
            kind = dict(table.columns)["site_id"].upper()
            cast = "::UUID" if kind == "UUID" else ""
            condition += f' AND "site_id" IN ({", ".join(_literal(site) + cast for site in sites)})'
        return condition

    def _write(self, table: LakeTable, where: str, targets: set[Partition], only: set[Partition] | None,
               sort: bool = True, source: str | None = None) -> ExportResult:
        """Export the rows of `table` matching `where` and swap their partitions in; drop the target
        partitions that came out empty. With `only`, partitions outside it are not touched. `source`:
        a DuckDB relation to read instead of PostgreSQL's (the rows Spark built, lake/spark.py).

        `sort`: rows in time order, so that a day larger than a row group has row groups of distinct
        times (a whole table's export). A few days (a raw day, a refresh) are left in the order
        PostgreSQL reads them, by time through its indexes for most tables: sorting costs a third
        of such an export, and their partitions rarely outgrow a row group."""
        result = ExportResult(table.name)
        columns = ", ".join(table.stored_expression(name) for name in table.column_names)
        source = source or self._narrowed_source(table, only) or f"pg.{_quote(table.schema)}.{_quote(table.name)}"
        stage = self.lake.staging_path(suffix="")
        try:
            if table.layout == WHOLE:
                stage.mkdir(parents=True)
                written_file = stage / DATA_FILE
                self.duck.execute(f"COPY (SELECT {columns} FROM {source} WHERE {where}) "
                                  f"TO {_literal(str(written_file))} ({PARQUET_OPTIONS})")
                produced = {Partition(): written_file}
            else:
                keys = ("site_id", "day") if table.layout == SITE_DAY else ("day",)
                data_columns = ", ".join(table.stored_expression(n) for n in table.column_names if n not in keys)
                site = '"site_id", ' if table.layout == SITE_DAY else ""
                order = f" ORDER BY {_quote(table.day_column)}" if sort else ""
                self.duck.execute(
                    f"COPY (SELECT {data_columns}, {site}{table.day_expression()} AS day FROM {source} WHERE {where}"
                    f"{order}) TO {_literal(str(stage))}"
                    f" ({PARQUET_OPTIONS}, PARTITION_BY ({', '.join(keys)}), FILENAME_PATTERN 'part-{{i}}')")
                produced = self._produced(stage)
            if only is not None:
                produced = {p: f for p, f in produced.items() if p in only or p.site_id is None and
                            Partition(None, p.day) in only}
            for partition, written in produced.items():
                self.lake.replace_partition(table.schema, table.name, partition, written)
                result.written += 1
                result.written_files.add(str(partition.relative()))
            for partition in targets - set(produced):
                result.dropped += self.lake.drop_partition(table.schema, table.name, partition)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        return result

    def _narrowed_source(self, table: LakeTable, only: set[Partition] | None) -> str | None:
        """For a view PostgreSQL cannot filter by day cheaply (tables.NARROWING), the rows of these
        partitions' days read with their keys named, in PostgreSQL's own SQL; None otherwise."""
        if only is None or table.schema != ANALYTICS or table.name not in NARROWING or table.layout != SITE_DAY:
            return None
        days = sorted({p.day for p in only if p.day is not None})
        sites = sorted({p.site_id for p in only if p.site_id is not None})
        if not days or not sites:
            return None
        key, keys_query = NARROWING[table.name]
        low = datetime(days[0].year, days[0].month, days[0].day, tzinfo=timezone.utc)
        high = datetime(days[-1].year, days[-1].month, days[-1].day, tzinfo=timezone.utc) + timedelta(days=1)
        bounds = {"sites": [uuid.UUID(site) for site in sites], "low": low, "high": high}
        keys = [value for (value,) in self.pg.execute(keys_query, bounds).fetchall()]
        query = psycopg.sql.SQL("select {columns} from {table} where site_id = any({sites}) and {day} >= {low}"
                                " and {day} < {high} and {key} = any({keys})").format(
            columns=psycopg.sql.SQL(", ").join(psycopg.sql.Identifier(c) for c in table.column_names),
            table=psycopg.sql.Identifier(table.schema, table.name), sites=psycopg.sql.Literal(bounds["sites"]),
            day=psycopg.sql.Identifier(table.day_column), low=psycopg.sql.Literal(low),
            high=psycopg.sql.Literal(high), key=psycopg.sql.Identifier(key),
            keys=psycopg.sql.Literal(keys)).as_string(self.pg)
        # The scanner's types, as the lake's other files have them (postgres_query may map some otherwise).
        casts = ", ".join(f"CAST({_quote(name)} AS {kind}) AS {_quote(name)}" for name, kind in table.columns)
        return f"(SELECT {casts} FROM postgres_query('pg', {_literal(query)}))"

    def _produced(self, stage: Path) -> dict[Partition, Path]:
        """The files a partitioned COPY wrote, one per partition (several are merged into one)."""
        by_partition: dict[Partition, list[Path]] = {}
        for path in stage.rglob("*.parquet"):
            by_partition.setdefault(partition_of(path.relative_to(stage).parts[:-1]), []).append(path)
        produced = {}
        for partition, files in by_partition.items():
            if len(files) == 1:
                produced[partition] = files[0]
                continue
            merged = files[0].with_name("merged.parquet")
            listed = ", ".join(_literal(str(f)) for f in files)
            self.duck.execute(f"COPY (SELECT * FROM read_parquet([{listed}])) TO {_literal(str(merged))} "
                              f"({PARQUET_OPTIONS})")
            produced[partition] = merged
        return produced

    def _state(self, table: LakeTable, result: ExportResult, mark: str | None) -> TableState:
        """The table's state from its files as they now are (rows from the footers of the files
        written since the last state; the others as recorded, while their size and time hold)."""
        base = self.lake.table_dir(table.schema, table.name)
        previous = self.lake.read_state(table.schema, table.name)
        recorded = dict(previous.extra.get("files", {})) if previous else {}
        files = {}
        for path in self.lake.partitions(table.schema, table.name).values():
            relative = str(path.relative_to(base))
            stat = path.stat()
            known = recorded.get(relative)
            if known and len(known) == 3 and known[1:] == [stat.st_size, stat.st_mtime_ns] \
                    and relative not in result.written_files:
                files[relative] = known
                continue
            rows = self.duck.execute(f"SELECT coalesce(sum(num_rows), 0) FROM parquet_file_metadata("
                                     f"{_literal(str(path))})").fetchone()[0]
            files[relative] = [int(rows), stat.st_size, stat.st_mtime_ns]
        days = [partition_of(Path(r).parts[:-1]).day for r in files]
        days = [d for d in days if d is not None]
        result.rows = sum(entry[0] for entry in files.values())
        result.bytes = sum(entry[1] for entry in files.values())
        result.rows_written = sum(files[r][0] for r in result.written_files if r in files)
        return TableState(table=table.name, layout=table.layout, day_column=table.day_column,
                          columns=[list(c) for c in table.stored_columns], refreshed_at=_now(),
                          newest_day=max(days).isoformat() if days else None, mark=mark,
                          rows=result.rows, bytes=result.bytes, extra={"files": files})


def _ends_with_magic(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-4, os.SEEK_END)
        return handle.read(4) == PARQUET_MAGIC
