"""The lake's files: written from PostgreSQL, partitioned by site and day, swapped in whole."""
from __future__ import annotations

from datetime import timedelta

import duckdb
import psycopg

from pipelines.lake.export import LakeWriter
from pipelines.lake.layout import DATA_FILE, SITE_DAY, WHOLE, Partition
from tests.pipeline.conftest import NOW


def lake_count(root, schema, table) -> int:
    files = sorted((root / schema / table).rglob("*.parquet"))
    if not files:
        return 0
    listed = ", ".join(f"'{f}'" for f in files)
    return duckdb.connect().execute(f"select count(*) from read_parquet([{listed}])").fetchone()[0]


def test_views_exported_partitioned_with_the_same_rows(built):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        results = {r.table: r for r in writer.refresh_views()}
    lake = settings.lake_path
    with psycopg.connect(built["url"]) as db:
        for table in ("visits", "events", "pageviews", "conversions", "orders", "channel_rules", "event_sign_up"):
            expected = db.execute(f"select count(*) from analytics.{table}").fetchone()[0]
            assert expected > 0, table
            assert lake_count(lake, "analytics", table) == expected, table
            assert results[table].rows == expected
    visit_files = sorted((lake / "analytics" / "visits").rglob(DATA_FILE))
    assert all(f.parent.name.startswith("day=") and f.parent.parent.name == f"site_id={built['site_id']}"
               for f in visit_files)
    assert len(visit_files) == 4  # the fixture's visits fall on four days
    assert (lake / "analytics" / "channel_rules" / DATA_FILE).is_file()
    state = (lake / "analytics" / "visits" / "_lake.json").read_text()
    assert SITE_DAY in state and WHOLE in (lake / "analytics" / "channel_rules" / "_lake.json").read_text()
    assert not any((lake / ".staging").iterdir())


def test_raw_day_export(built):
    settings = built["settings"]
    day = (NOW - timedelta(days=3)).date()
    with LakeWriter(settings).open() as writer:
        result = writer.export_raw_day(day)
    files = list((settings.lake_path / "raw" / "events").rglob(DATA_FILE))
    assert [f.parent.name for f in files] == [f"day={day.isoformat()}"]
    with psycopg.connect(built["url"]) as db:
        expected = db.execute("select count(*) from raw.events where (occurred_at at time zone 'UTC')::date = %s",
                              (day,)).fetchone()[0]
    assert result.rows == expected == lake_count(settings.lake_path, "raw", "events")


def test_a_refresh_of_some_days_equals_a_full_export(built):
    """Views PostgreSQL cannot filter by day cheaply are read with their keys named (NARROWING): the
    partitions a refresh rewrites hold exactly what a full export writes."""
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views(full=True)
        full = {table: rows_of(settings.lake_path, table) for table in ("visits", "attribution")}
        everything = {Partition(built["site_id"], (NOW - timedelta(days=n)).date()) for n in range(0, 12)}
        for table in ("visits", "attribution"):
            result = writer.rewrite_partitions(writer.table("analytics", table), everything)
            assert result.written > 0, table
            assert rows_of(settings.lake_path, table) == full[table], table


def rows_of(root, table) -> list:
    files = sorted((root / "analytics" / table).rglob("*.parquet"))
    listed = ", ".join(f"'{f}'" for f in files)
    return sorted(map(repr, duckdb.connect().execute(
        f"select * from read_parquet([{listed}], hive_partitioning = true)").fetchall()))
