"""Retention: each site keeps `retention_months` of events; older rows are deleted everywhere.

Whole monthly partitions of raw.events are dropped when no site needs any of their rows (which
is cheap and returns the space at once); rows of sites with a shorter retention are deleted.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone

import psycopg
from psycopg import sql

from pipelines import audit, partitions
from pipelines.lake.layout import Lake
from pipelines.lake.privacy import apply_lake_retention
from pipelines.maintenance.warehouse_tables import derived_tables

# Time columns by which derived rows are aged, in order of preference.
_TIME_COLUMNS = ("occurred_at", "visit_start", "converted_at", "ordered_at")


@dataclass
class RetentionResult:
    dropped_partitions: list[str] = field(default_factory=list)
    deleted_rows: dict[str, int] = field(default_factory=dict)
    lake_partitions_removed: list[str] = field(default_factory=list)


def retention_cutoff(today: date, retention_months: int) -> datetime:
    """First instant a site with this retention keeps: the start of the month N months ago."""
    month = partitions.add_months(partitions.month_start(today), -retention_months)
    return datetime(month.year, month.month, 1, tzinfo=timezone.utc)


def apply_retention(conn: psycopg.Connection, today: date | None = None, actor: str = "maintenance",
                    lake: Lake | None = None) -> RetentionResult:
    """Drop or delete every event older than its site's retention, in raw data and derived tables,
    and (given the lake) the lake's partitions of those days."""
    today = today or datetime.now(timezone.utc).date()
    result = RetentionResult()
    sites = conn.execute("select site_id, retention_months from collect.sites").fetchall()
    if not sites:
        return result
    cutoffs = {site_id: retention_cutoff(today, months) for site_id, months in sites}
    oldest_needed = min(cutoffs.values())
    with conn.transaction():
        for name, upper in partitions.partition_bounds(conn):
            if upper is not None and upper <= oldest_needed:
                conn.execute(sql.SQL("drop table {}").format(sql.Identifier("raw", name)))
                result.dropped_partitions.append(name)
        site_ids = [str(site) for site in cutoffs]
        site_cutoffs = [cutoffs[site] for site in cutoffs]
        targets = [("raw", "events", "occurred_at")]
        for table in derived_tables(conn):
            time_column = next((column for column in _TIME_COLUMNS if column in table.columns), None)
            if time_column and "site_id" in table.columns:
                targets.append((table.schema, table.name, time_column))
        for schema, name, time_column in targets:
            deleted = conn.execute(
                sql.SQL("""delete from {table} as t
                             using unnest(%s::uuid[], %s::timestamptz[]) as keep(site_id, cutoff)
                            where t.site_id = keep.site_id and t.{column} < keep.cutoff""").format(
                    table=sql.Identifier(schema, name), column=sql.Identifier(time_column)),
                (site_ids, site_cutoffs),
            ).rowcount
            if deleted:
                result.deleted_rows[f"{schema}.{name}"] = deleted
        if result.dropped_partitions or result.deleted_rows:
            audit.record(conn, actor, "retention.applied", None,
                         {"dropped_partitions": result.dropped_partitions, "deleted_rows": result.deleted_rows})
    if lake is not None:
        # After the commit: the lake's writers' lock is never awaited while this transaction holds
        # PostgreSQL's locks (an erasure holding it may be waiting for them).
        result.lake_partitions_removed = apply_lake_retention(
            conn, lake, {str(site): cutoff for site, cutoff in cutoffs.items()})
        if result.lake_partitions_removed:
            audit.record(conn, actor, "retention.lake_applied", None,
                         {"lake_partitions_removed": len(result.lake_partitions_removed)})
    return result
