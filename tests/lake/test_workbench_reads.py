"""The workbench reads the lake: same names, columns, comments and answers as PostgreSQL, the
same permission rewrite, PostgreSQL for what the lake lacks, and clear errors for damaged files."""
from __future__ import annotations

import dataclasses
import json
import logging
import os
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

from pipelines.lake.export import LakeWriter
from workbench_app.engine import EngineError, GroupPermissions, TableRule, UserContext, WorkbenchEngine
from workbench_app.sources import catalogs
from tests.pipeline.conftest import NOW, insert_event, run_dbt
from workbench_app.sources.engine_catalogs import engine_settings

ADMIN = UserContext("admin", (GroupPermissions("admins", unrestricted_catalogs=frozenset({"warehouse"})),), {})


def warehouse_engine(settings) -> WorkbenchEngine:
    source = catalogs.catalog_source(settings, {"name": "warehouse", "kind": "warehouse", "options": {}})
    return WorkbenchEngine(engine_settings(settings), [source])


STATEMENTS = [
    "SELECT count(*) FROM events",
    "SELECT channel, count(*) FROM visits GROUP BY 1 ORDER BY 1",
    "SELECT path, count(*) AS views FROM pageviews GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20",
    "SELECT attribution_model, round(sum(credit), 6) FROM attribution GROUP BY 1 ORDER BY 1",
    "SELECT count(*) FROM events e JOIN visits v USING (visit_id)",
    "SELECT * FROM channel_rules ORDER BY rule_position",
    "SELECT plan, seats FROM event_sign_up",
]


def test_the_lake_answers_like_postgres(built):
    settings = built["settings"]
    postgres = warehouse_engine(dataclasses.replace(settings, workbench_reads="postgres"))
    before = warehouse_engine(settings)
    # No lake yet: every table from PostgreSQL, with the reason to show.
    assert {(f.source, f.warning) for f in before.lake_freshness()["warehouse"].values()} == {("postgres", "not_in_lake")}
    assert before.run(STATEMENTS[1], ADMIN).rows == postgres.run(STATEMENTS[1], ADMIN).rows
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
    lake = warehouse_engine(settings)
    freshness = lake.lake_freshness()["warehouse"]
    assert freshness["visits"].source == "lake" and freshness["channel_rules"].source == "lake"
    assert freshness["event_sign_up"].source == "lake+postgres"  # today comes from PostgreSQL
    for sql in STATEMENTS:
        assert lake.run(sql, ADMIN).rows == postgres.run(sql, ADMIN).rows, sql
    # The same names, columns and comments.
    by_name = {info.table.name: info for info in lake.schema.tables.values()}
    pg_by_name = {info.table.name: info for info in postgres.schema.tables.values()}
    assert set(by_name) == set(pg_by_name)
    assert by_name["visits"].comment == pg_by_name["visits"].comment and by_name["visits"].comment
    assert [(c.name, c.data_type, c.comment) for c in by_name["visits"].columns] == \
        [(c.name, c.data_type, c.comment) for c in pg_by_name["visits"].columns]
    # The hidden PostgreSQL catalog cannot be named.
    with pytest.raises(EngineError) as refused:
        lake.run("SELECT * FROM warehouse__postgres.analytics.visits", ADMIN)
    assert refused.value.code == "table_not_found"


def test_row_filters_apply_to_the_lake_views(built):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
    engine = warehouse_engine(settings)
    analyst = UserContext("analyst", (GroupPermissions("fr", table_rules=(
        TableRule("warehouse", "analytics", "pageviews", row_filter="path = '/pricing'",
                  hidden_columns=frozenset({"url"})),)),), {})
    result = engine.run("SELECT DISTINCT path FROM pageviews", analyst)
    assert result.rows == [("/pricing",)]
    with pytest.raises(EngineError):
        engine.run("SELECT url FROM pageviews", analyst)
    with pytest.raises(EngineError) as denied:
        engine.run("SELECT * FROM visits", analyst)
    assert denied.value.code == "table_not_found"


def test_a_damaged_file_fails_its_table_only_and_the_next_refresh_rewrites_it(built, caplog):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
    engine = warehouse_engine(settings)
    damaged = sorted((settings.lake_path / "analytics" / "visits").rglob("part-0.parquet"))[0]
    with open(damaged, "r+b") as handle:
        handle.truncate(100)
    with pytest.raises(EngineError) as failed:
        engine.run("SELECT count(*) FROM visits", ADMIN)
    assert failed.value.code == "query_failed" and "visits" in failed.value.message
    assert str(settings.lake_path) not in failed.value.message
    assert engine.run("SELECT count(*) FROM pageviews", ADMIN).rows[0][0] > 0
    with LakeWriter(settings).open() as writer:
        results = {r.table: r for r in writer.refresh_views()}
    assert results["visits"].written == 1 and not results["pageviews"].written
    with psycopg.connect(built["url"]) as db:
        expected = db.execute("select count(*) from analytics.visits").fetchone()[0]
    assert engine.run("SELECT count(*) FROM visits", ADMIN).rows == [(expected,)]


def test_a_lake_that_cannot_be_read_falls_back_to_postgres(built, caplog):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
    (settings.lake_path / "analytics" / "orders" / "_lake.json").write_text("{not json")
    state_of_visits = settings.lake_path / "analytics" / "visits" / "_lake.json"
    for path in (settings.lake_path / "analytics" / "visits").rglob("part-0.parquet"):
        os.remove(path)
    with caplog.at_level(logging.WARNING):
        engine = warehouse_engine(settings)
    freshness = engine.lake_freshness()["warehouse"]
    assert (freshness["orders"].source, freshness["orders"].warning) == ("postgres", "not_in_lake")
    assert (freshness["visits"].source, freshness["visits"].warning) == ("postgres", "unreadable")
    assert "visits" in caplog.text
    with psycopg.connect(built["url"]) as db:
        expected = db.execute("select count(*) from analytics.visits").fetchone()[0]
    assert engine.run("SELECT count(*) FROM visits", ADMIN).rows == [(expected,)]
    assert state_of_visits.is_file()


def test_the_days_the_lake_lacks_come_from_postgres_until_the_refresh(built):
    settings = built["settings"]
    with LakeWriter(settings).open() as writer:
        writer.refresh_views()
    # The last refresh ran yesterday: today (a new visit, built by dbt) is not in the lake.
    for state_file in settings.lake_path.glob("analytics/*/_lake.json"):
        state = json.loads(state_file.read_text())
        state["refreshed_at"] = (NOW - timedelta(days=1)).isoformat()
        state_file.write_text(json.dumps(state))
    with psycopg.connect(built["url"], autocommit=True) as db:
        insert_event(db, built["site_id"], NOW, visitor="late-visitor-0000000000001", path="/today",
                     received_at=datetime.now(timezone.utc))
    run_dbt(built["url"], "build", "--exclude-resource-type", "unit_test")
    engine = warehouse_engine(settings)
    assert engine.lake_freshness()["warehouse"]["pageviews"].source == "lake+postgres"
    assert engine.run("SELECT count(*) FROM pageviews WHERE path = '/today'", ADMIN).rows == [(1,)]
    # The refresh after the build writes the partitions of what it rebuilt (today's visit, and the
    # days of the conversions it redid), not every partition.
    partitions = len(list((settings.lake_path / "analytics" / "pageviews").rglob("part-0.parquet")))
    with LakeWriter(settings).open() as writer:
        results = {r.table: r for r in writer.refresh_views()}
    assert not results["pageviews"].full and 1 <= results["pageviews"].written < partitions + 1
    today = f"day={NOW.date().isoformat()}/part-0.parquet"
    assert any(name.endswith(today) for name in results["pageviews"].written_files)
    engine = warehouse_engine(settings)
    assert engine.lake_freshness()["warehouse"]["pageviews"].source == "lake"
    assert engine.run("SELECT count(*) FROM pageviews WHERE path = '/today'", ADMIN).rows == [(1,)]
