"""Monthly partitions of raw.events.

Rows of a month without a partition land in the default partition. Creating that month's
partition later must first take them out of the default partition (PostgreSQL refuses to attach
a partition whose rows sit in the default), so both happen in one transaction.
"""
from __future__ import annotations

from datetime import date, datetime, timezone

import psycopg
from psycopg import sql


def month_start(day: date) -> date:
    return day.replace(day=1)


def add_months(day: date, months: int) -> date:
    index = day.year * 12 + (day.month - 1) + months
    return date(index // 12, index % 12 + 1, 1)


def partition_name(month: date) -> str:
    return f"events_{month:%Y_%m}"


def partition_bounds(conn: psycopg.Connection) -> list[tuple[str, datetime | None]]:
    """Partitions of raw.events with their exclusive upper bound (None for the default)."""
    rows = conn.execute(
        """select child.relname, pg_get_expr(child.relpartbound, child.oid)
             from pg_inherits
             join pg_class parent on parent.oid = pg_inherits.inhparent
             join pg_class child on child.oid = pg_inherits.inhrelid
             join pg_namespace ns on ns.oid = parent.relnamespace
            where ns.nspname = 'raw' and parent.relname = 'events'"""
    ).fetchall()
    bounds = []
    for name, expression in rows:
        if "TO (" not in expression:
            bounds.append((name, None))
            continue
        upper = expression.split("TO (", 1)[1].strip(" )'")
        bounds.append((name, conn.execute("select %s::timestamptz", (upper,)).fetchone()[0]))
    return bounds


def existing_partitions(conn: psycopg.Connection) -> set[str]:
    return {name for name, _ in partition_bounds(conn)}


def create_month_partition(conn: psycopg.Connection, month: date) -> bool:
    """Create the partition of `month`, moving its rows out of the default partition first.

    Returns False when it already existed. Runs in the caller's transaction if there is one.
    """
    month = month_start(month)
    name = partition_name(month)
    if name in existing_partitions(conn):
        return False
    start = datetime(month.year, month.month, 1, tzinfo=timezone.utc)
    nxt = add_months(month, 1)
    end = datetime(nxt.year, nxt.month, 1, tzinfo=timezone.utc)
    table = sql.Identifier("raw", name)
    with conn.transaction():
        # The new table is filled while detached, then attached: one pass over the stray rows.
        conn.execute(sql.SQL("create table {} (like raw.events including defaults including constraints)").format(table))
        conn.execute(
            sql.SQL("""with moved as (
                          delete from raw.events_default
                           where occurred_at >= %s and occurred_at < %s
                       returning *)
                       insert into {} select * from moved""").format(table),
            (start, end),
        )
        conn.execute(
            # DDL takes no bind parameters: the bounds are quoted literals.
            sql.SQL("alter table raw.events attach partition {} for values from ({}) to ({})").format(
                table, sql.Literal(start), sql.Literal(end)),
        )
    return True


def ensure_partitions(conn: psycopg.Connection, today: date | None = None, months_back: int = 3,
                      months_ahead: int = 2) -> list[str]:
    """Create the partitions around today (and for any month that has rows in the default)."""
    today = today or datetime.now(timezone.utc).date()
    months = {add_months(month_start(today), offset) for offset in range(-months_back, months_ahead + 1)}
    stray = conn.execute(
        "select distinct date_trunc('month', occurred_at at time zone 'UTC')::date from raw.events_default"
    ).fetchall()
    months.update(month for (month,) in stray)
    created = []
    for month in sorted(months):
        if create_month_partition(conn, month):
            created.append(partition_name(month))
    return created
