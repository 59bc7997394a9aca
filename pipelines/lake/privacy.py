"""Erasure and retention in the lake.

Erasure: the files that hold the person are found by searching the files themselves (their user
ids, visitor ids, visitor keys, visits and events), then rewritten from PostgreSQL, where the
person is already gone (a view Spark built: from its own files, less the person's rows); a last
search must find nothing, or the request fails (and says so). A
search rather than a list of days: a file the lake kept from before (a day PostgreSQL no longer
has, a failed earlier attempt) is found all the same.

Retention: whole partitions of days before a site's cutoff are removed, raw and views alike.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import psycopg

from pipelines.lake.export import LakeWriter, lake_lock
from pipelines.lake.layout import ANALYTICS, RAW_EVENTS, SITE_DAY, Lake, Partition, partition_of
from pipelines.lake.tables import LakeTable, lake_table

# Columns that identify a person's rows, and which identifiers each holds.
_IDENTIFYING = {"user_id": "user_ids", "visitor_id": "visitor_ids", "visitor_key": "visitor_keys",
                "event_id": "event_ids"}


class LakeErasureIncomplete(RuntimeError):
    """A lake file still holds the person after the rewrite."""


@dataclass
class PersonIds:
    """Everything that identifies one person's rows on one site, in raw data and in the views."""

    site_id: str
    user_ids: set[str] = field(default_factory=set)
    visitor_ids: set[str] = field(default_factory=set)
    visit_ids: set[str] = field(default_factory=set)
    event_ids: set[str] = field(default_factory=set)

    @property
    def visitor_keys(self) -> set[str]:
        """The sessionization's visitor keys (stg_raw__events: md5 of the kind and the id)."""
        keys = {f"user:{user}" for user in self.user_ids}
        keys |= {f"{kind}:{visitor}" for visitor in self.visitor_ids for kind in ("cookie", "hash", "user")}
        return {hashlib.md5(key.encode()).hexdigest() for key in keys}

    def values(self, column: str) -> set[str]:
        if column.endswith("visit_id"):
            return self.visit_ids
        return getattr(self, _IDENTIFYING[column]) if column in _IDENTIFYING else set()


def person_in_postgres(conn: psycopg.Connection, ids: PersonIds) -> None:
    """Add the person's events and visits as PostgreSQL knows them (before it erases them)."""
    users, visitors = sorted(ids.user_ids), sorted(ids.visitor_ids)
    ids.event_ids.update(str(e) for (e,) in conn.execute(
        """select event_id from raw.events where site_id = %s and (user_id = any(%s) or visitor_id = any(%s))""",
        (ids.site_id, users, visitors)))
    try:
        with conn.transaction():
            ids.visit_ids.update(str(v) for (v,) in conn.execute(
                "select visit_id from intermediate.int_visits where site_id = %s and visitor_key = any(%s)",
                (ids.site_id, sorted(ids.visitor_keys))))
    except psycopg.errors.UndefinedTable:
        pass  # never built


def _search_condition(table: LakeTable, ids: PersonIds) -> str | None:
    conditions = []
    for column in table.column_names:
        values = ids.values(column)
        if values:
            listed = ", ".join("'" + value.replace("'", "''") + "'" for value in sorted(values))
            conditions.append(f'CAST("{column}" AS VARCHAR) IN ({listed})')
    return " OR ".join(conditions) or None


def _state_table(schema: str, name: str, state) -> LakeTable:
    """A lake table as its state describes it (its columns as the files hold them)."""
    return lake_table(schema, name, [tuple(c) for c in state.columns])


def _lake_tables(writer: LakeWriter) -> list[LakeTable]:
    """The lake's tables as their states describe them (raw events and every view)."""
    tables = []
    for schema, name in [RAW_EVENTS, *((ANALYTICS, n) for n in writer.lake.analytics_tables())]:
        state = writer.lake.read_state(schema, name)
        if state is not None:
            tables.append(_state_table(schema, name, state))
    return tables


def files_holding(writer: LakeWriter, ids: PersonIds) -> dict[tuple[str, str], set[Partition]]:
    """The partitions of every lake table whose file holds one of the person's rows."""
    found: dict[tuple[str, str], set[Partition]] = {}
    for table in _lake_tables(writer):
        files = writer.lake.partitions(table.schema, table.name)
        if table.layout == SITE_DAY:
            files = {p: f for p, f in files.items() if p.site_id == ids.site_id}
        condition = _search_condition(table, ids)
        if not files or condition is None:
            continue
        listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files.values())
        hits = writer.duck.execute(
            f"SELECT DISTINCT filename FROM read_parquet([{listed}], filename = true, hive_partitioning = false)"
            f" WHERE {condition}").fetchall()
        base = writer.lake.table_dir(table.schema, table.name)
        if hits:
            found[(table.schema, table.name)] = {partition_of(Path(f).relative_to(base).parts[:-1]) for (f,) in hits}
    return found


def person_in_lake(writer: LakeWriter, ids: PersonIds) -> None:
    """Add the person's events and visits as the lake's files know them."""
    for (schema, name), partitions in files_holding(writer, ids).items():
        if (schema, name) not in (RAW_EVENTS, (ANALYTICS, "visits")):
            continue
        column = "event_id" if (schema, name) == RAW_EVENTS else "visit_id"
        table = next(t for t in _lake_tables(writer) if (t.schema, t.name) == (schema, name))
        files = [writer.lake.partitions(schema, name)[p] for p in partitions]
        listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
        rows = writer.duck.execute(
            f"SELECT DISTINCT CAST(\"{column}\" AS VARCHAR) FROM read_parquet([{listed}], hive_partitioning = false)"
            f" WHERE {_search_condition(table, ids)}").fetchall()
        (ids.event_ids if column == "event_id" else ids.visit_ids).update(v for (v,) in rows)


def erase_from_lake(writer: LakeWriter, ids: PersonIds) -> dict[str, int]:
    """Rewrite every lake file that holds the person, from PostgreSQL (already without them) or, for a
    view Spark built, from the file less their rows; returns the partitions rewritten per table.
    LakeErasureIncomplete when a file still holds them."""
    rewritten: dict[str, int] = {}
    for _ in range(2):  # a refresh that raced the first rewrite is caught by the second
        holding = files_holding(writer, ids)
        if not holding:
            return rewritten
        for (schema, name), partitions in holding.items():
            state = writer.lake.read_state(schema, name)
            if state is not None and state.extra.get("built_by") == "spark":
                # Spark built it; PostgreSQL's copy of the view is not that build (on the Spark
                # engine PostgreSQL's models are not rebuilt): the lake's rows stay, less the person's.
                table = _state_table(schema, name, state)
                writer.rewrite_partitions(table, partitions, without=_search_condition(table, ids))
            else:
                table = writer.table(schema, name)
                if table is None:  # PostgreSQL no longer has the view: its folder goes
                    writer.lake.drop_table(schema, name)
                    continue
                writer.rewrite_partitions(table, partitions)
            rewritten[f"{schema}.{name}"] = rewritten.get(f"{schema}.{name}", 0) + len(partitions)
    if files_holding(writer, ids):
        raise LakeErasureIncomplete("lake files still hold the person after the rewrite")
    return rewritten


def apply_lake_retention(conn: psycopg.Connection, lake: Lake, cutoffs: dict[str, datetime]) -> list[str]:
    """Remove every partition of a day before its site's cutoff; returns the partitions removed."""
    removed: list[str] = []
    if not lake.root.is_dir():
        return removed
    with lake_lock(conn):
        tables = [RAW_EVENTS, *((ANALYTICS, name) for name in lake.analytics_tables())]
        for schema, name in tables:
            for partition in sorted(lake.partitions(schema, name)):
                cutoff = cutoffs.get(partition.site_id) if partition.site_id else None
                if cutoff is not None and partition.day is not None and partition.day < cutoff.date():
                    if lake.drop_partition(schema, name, partition):
                        removed.append(f"{schema}/{name}/{partition.relative().parent}")
    return removed


__all__ = ["PersonIds", "LakeErasureIncomplete", "person_in_postgres", "person_in_lake", "erase_from_lake",
           "files_holding", "apply_lake_retention"]
