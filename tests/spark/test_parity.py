"""The Spark target builds what the PostgreSQL target builds, row for row.

The pipeline tests' fixture shop (three visitors, five visits, a purchase, campaign values to
decode) is built by dbt on PostgreSQL, its raw days exported to the lake, and the same models built
by dbt on the session's Spark cluster from the lake, once for the module. Each model's rows are
compared ordered by its key, money and shares with a tolerance: the tables and marts read through
one Thrift connection (one statement each), the `analytics` views from the lake's files that Spark
wrote for the workbench (each view computed by Spark once, for both checks).
"""
from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import psycopg
import pytest
from pyhive import hive

from pipelines.lake.export import LakeWriter
from pipelines.lake.layout import ANALYTICS, Lake
from pipelines.lake.spark import SparkViewsWriter
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET
from tests.lake.test_workbench_reads import ADMIN, warehouse_engine
from tests.pipeline.conftest import shop_database
from tests.spark.builds import export_days, spark_dbt
from tests.spark.parity import INBOUND, MODELS, compare
from workbench_app.engine import EngineError, GroupPermissions, TableRule, UserContext

# The module's first test sets up the shop's builds on both engines (minutes on a loaded machine,
# the dbt run on Spark bounded by its own timeout below): the project's 600-s bound per test would
# cut them short.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

# The tables whose descriptions are checked in the metastore.
DESCRIBED = ["intermediate.int_events_sessionized", "intermediate.int_visits", "intermediate.int_conversions",
             "marts.fct_events", "marts.fct_scroll_depth", "marts.fct_visits", "marts.fct_attribution"]


@pytest.fixture(scope="module")
def built_database(pg_server_url, template_database):
    """The pipeline tests' shop built by `dbt run` on PostgreSQL (its data and unit tests run in
    tests/pipeline: here only the rows matter)."""
    with shop_database(pg_server_url, template_database, "run", prefix="test_spark_parity") as built:
        yield built


@pytest.fixture(scope="module")
def spark_build(built_database, spark_cluster_running, tmp_path_factory):
    """The shop's raw days exported to the cluster's lake, and the models built there by dbt."""
    cluster = spark_cluster_running["settings"]
    url = built_database["url"]
    settings = Settings(home=cluster.home, database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=cluster.lake_path)
    days = export_days(settings, url)
    target = tmp_path_factory.mktemp("dbt-spark-target")
    # Every model (the event views are not dbt models: they read raw.events in PostgreSQL, live).
    spark_dbt(cluster, url, target, "run", "--select", "path:models", timeout=2400)
    return {"url": url, "cluster": cluster, "days": days, "manifest": json.loads((target / "manifest.json").read_text()),
            "settings": settings}


@pytest.fixture(scope="module")
def spark_cursor(spark_build):
    """One Thrift connection for the module's reads (the statements run synchronously)."""
    cluster = spark_build["cluster"]
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        yield conn.cursor()


@pytest.fixture(scope="module")
def lake_views(spark_build):
    """Spark's analytics views written into the lake's folders (SparkViewsWriter), once for the
    module: the workbench reads them, and the parity tests compare the views' rows from them."""
    cluster = spark_build["cluster"]
    with LakeWriter(spark_build["settings"], spark_build["url"]).open() as writer:
        results = SparkViewsWriter(writer, cluster.bind_host, cluster.spark_thrift_port).refresh_views()
    return {result.table: result for result in results}


@pytest.mark.parametrize("model", list(MODELS))
def test_spark_builds_the_same_rows(spark_build, spark_cursor, lake_views, model):
    compare(spark_build, spark_cursor, model, MODELS[model], lake_views=lake_views)


@pytest.mark.parametrize("model", list(INBOUND))
def test_spark_builds_the_inbound_models(spark_build, spark_cursor, lake_views, model):
    compare(spark_build, spark_cursor, model, INBOUND[model], allow_empty=True, lake_views=lake_views)


def test_the_analytics_views_are_read_from_the_lake(lake_views):
    """Every analytics view compared above was read from the lake's files, as Spark wrote them (the
    event views, which read raw events live, are not dbt models: neither built nor compared here)."""
    assert {name.split(".")[1] for name in [*MODELS, *INBOUND] if name.startswith("analytics.")} <= set(lake_views)
    assert all(result.full for result in lake_views.values())


def test_descriptions_reach_the_metastore(spark_build, spark_cursor):
    """persist_docs: the tables' and columns' descriptions are the metastore's comments (apostrophes kept)."""
    nodes = {(node["schema"], node["name"]): node for node in spark_build["manifest"]["nodes"].values()
             if node["resource_type"] == "model"}
    spark = spark_cursor
    for model in DESCRIBED:
        node = nodes[tuple(model.split("."))]
        spark.execute(f"describe table extended {model}")
        comments, details, section = {}, {}, "columns"
        for name, value, comment in spark.fetchall():
            if not name or name.startswith("#"):
                section = "details" if name and "Detailed" in name else section
                continue
            if section == "columns":
                comments[name] = comment
            else:
                details[name] = value
        assert details.get("Comment") == node["description"], model
        described = {name: column["description"] for name, column in node["columns"].items()
                     if column["description"] and name in comments}
        assert described, f"{model}: no documented column found in the metastore"
        assert {name: comments[name] for name in described} == described, model


# The workbench's statements of tests/lake/test_workbench_reads.py, on what Spark built.
WORKBENCH_STATEMENTS = [
    "SELECT count(*) FROM events",
    "SELECT channel, count(*) FROM visits GROUP BY 1 ORDER BY 1",
    "SELECT path, count(*) AS views FROM pageviews GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20",
    "SELECT attribution_model, round(sum(credit), 6) FROM attribution GROUP BY 1 ORDER BY 1",
    "SELECT count(*) FROM events e JOIN visits v USING (visit_id)",
    "SELECT * FROM channel_rules ORDER BY rule_position",
    "SELECT order_id, revenue, item_count, quantity FROM orders ORDER BY 1",
    "SELECT conversion_kind, goal_name, channel FROM conversions ORDER BY 1, 2, 3",
    "SELECT step_name, sum(visits_reaching_step) FROM ecommerce_funnel GROUP BY 1 ORDER BY 1",
]


def test_the_workbench_reads_the_views_spark_wrote_into_the_lake(spark_build, lake_views):
    """Spark's views written into the lake's folders (part-0.parquet per partition, _lake.json) are
    what the workbench reads, through its real query path and permission rewrite, with the answers
    PostgreSQL gives."""
    settings = spark_build["settings"]
    written = lake_views
    assert {"visits", "pageviews", "attribution", "orders", "conversions", "channel_rules"} <= set(written)
    lake = Lake(settings.lake_path)
    visits = lake.read_state(ANALYTICS, "visits")
    assert visits.extra["built_by"] == "spark" and visits.layout == "site_day" and visits.rows == written["visits"].rows
    assert all(path.name == "part-0.parquet" for path in lake.partitions(ANALYTICS, "visits").values())
    assert not any((settings.lake_path / ".staging").iterdir())

    lake_engine = warehouse_engine(settings)
    postgres_engine = warehouse_engine(dataclasses.replace(settings, workbench_reads="postgres"))
    freshness = lake_engine.lake_freshness()["warehouse"]
    assert {name: freshness[name].source for name in ("visits", "attribution", "channel_rules")} == \
        {"visits": "lake", "attribution": "lake", "channel_rules": "lake"}
    for sql in WORKBENCH_STATEMENTS:
        assert lake_engine.run(sql, ADMIN).rows == postgres_engine.run(sql, ADMIN).rows, sql
    analyst = UserContext("analyst", (GroupPermissions("fr", table_rules=(
        TableRule("warehouse", "analytics", "pageviews", row_filter="path = '/pricing'",
                  hidden_columns=frozenset({"url"})),)),), {})
    assert lake_engine.run("SELECT DISTINCT path FROM pageviews", analyst).rows == [("/pricing",)]
    with pytest.raises(EngineError):
        lake_engine.run("SELECT url FROM pageviews", analyst)


def test_the_data_and_unit_tests_pass_on_spark(spark_build, tmp_path):
    """`dbt test` on Spark, on the shop's build (before the tests below change it): every data test
    (generic and singular) and every unit test of the models passes, as on PostgreSQL, but the four
    of the sessionization shards' split, which Spark does not have."""
    spark_dbt(spark_build["cluster"], spark_build["url"], tmp_path, "test", "--select", "path:models",
              "--exclude", "tag:postgres_only")
    # The run's results: its on-run-start hook (an "operation"), then the tests.
    results = [result for result in json.loads((tmp_path / "run_results.json").read_text())["results"]
               if not result["unique_id"].startswith("operation.")]
    kinds = {"test": [], "unit_test": []}
    for result in results:
        kinds[result["unique_id"].split(".")[0]].append(result)
    assert all(result["status"] == "pass" for result in results), [
        (result["unique_id"], result["status"], result["message"]) for result in results if result["status"] != "pass"]
    # Every test the project has on these models ran: none is skipped on Spark.
    manifest = spark_build["manifest"]
    data_tests = {node for node, value in manifest["nodes"].items() if value["resource_type"] == "test"}
    assert {result["unique_id"] for result in kinds["test"]} == data_tests
    # But the unit tests of the sessionization shards' split by visitor key, PostgreSQL's alone (Spark
    # has one shard: models/intermediate/_unit_tests.yml).
    postgres_only = {name for name, test in manifest["unit_tests"].items() if "postgres_only" in test["config"]["tags"]}
    assert {name.rsplit(".", 1)[1] for name in postgres_only} == {
        "sessionization_splits_after_thirty_minutes", "sessionization_timeout_is_a_var",
        "sessionization_shards_split_visitors_by_key", "sessionization_shard_1_takes_the_other_visitors"}
    assert {result["unique_id"] for result in kinds["unit_test"]} == set(manifest["unit_tests"]) - postgres_only
    assert kinds["test"] and kinds["unit_test"]


# The incremental models are partitioned by day on Spark and replaced by day (insert_overwrite):
# the event shards by the event's day, visits and conversions by the visit's start day, attribution
# touches by the conversion's day.
SHARDS = ["intermediate.int_events_sessionized_shard_0", "intermediate.int_events_sessionized_shard_1"]
INCREMENTAL = ["int_events_sessionized_shard_0", "int_events_sessionized_shard_1", "int_visits", "int_conversions",
               "int_attribution_touches"]


def partition_files(spark, table: str, column: str = "event_day") -> dict[str, tuple]:
    """Each day partition folder of a Spark table, with its files' names and modification times."""
    spark.execute(f"describe table extended {table}")
    location = next(value for name, value, _ in spark.fetchall() if name == "Location")
    folder = Path(location.removeprefix("file:"))
    assert folder.is_dir(), f"{table} is not at {location}"
    return {part.name: tuple(sorted((f.name, f.stat().st_mtime_ns) for f in part.iterdir()))
            for part in folder.iterdir() if part.is_dir() and part.name.startswith(f"{column}=")}


def changed_partitions(before: dict, after: dict) -> set[str]:
    return {part for part in set(before) | set(after) if before.get(part) != after.get(part)}


def test_an_incremental_run_replaces_only_the_days_of_the_late_event(spark_build, tmp_path):
    """A late event (received now, three days after the visits it joins) is exported with its day
    again; an incremental run on both engines merges Carol's two visits of that day into one. On
    Spark only the partitions of that visit's days are written again, and both engines still build
    the same rows. (Last in the module: it adds an event to the shared build.)"""
    from tests.pipeline.conftest import CAROL_COOKIE, insert_event, run_dbt

    url, cluster = spark_build["url"], spark_build["cluster"]
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        spark = conn.cursor()
        before = {table: partition_files(spark, table) for table in SHARDS}
        visits_before = partition_files(spark, "intermediate.int_visits", "visit_day")
    assert any(before.values()), f"the shards have no day partitions: {before}"

    with psycopg.connect(url, autocommit=True) as db:
        site_id, first, last = db.execute(
            "select site_id, min(occurred_at), max(occurred_at) from raw.events where visitor_id = %s group by 1",
            (CAROL_COOKIE,)).fetchone()
        assert db.execute("select count(*) from intermediate.int_visits where visit_start >= %s and visit_start <= %s",
                          (first, last)).fetchone()[0] == 2
        late = first + timedelta(minutes=20)
        insert_event(db, site_id, late, visitor=CAROL_COOKIE, path="/pricing/compare",
                     received_at=datetime.now(timezone.utc))
    # The day the late event occurred on is the one exported again (as the lake's sensor does): not
    # always the day of the visit's first event, which the fixture puts at the run's time of day two
    # days back, so that a run started after 23:40 UTC has the late event on the next day.
    day = late.astimezone(timezone.utc).date()
    visit_days = {f"event_day={moment.astimezone(timezone.utc).date()}" for moment in (first, late, last)}
    settings = Settings(home=cluster.home, database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=cluster.lake_path)
    with LakeWriter(settings, url).open() as writer:
        writer.export_raw_day(day)

    run_dbt(url, "run", "--select", *INCREMENTAL)
    spark_dbt(cluster, url, tmp_path, "run", "--select", *INCREMENTAL)

    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        spark = conn.cursor()
        after = {table: partition_files(spark, table) for table in SHARDS}
        visits_after = partition_files(spark, "intermediate.int_visits", "visit_day")
    changed = {table: changed_partitions(before[table], after[table]) for table in SHARDS}
    assert all(parts <= visit_days for parts in changed.values()), changed
    assert any(f"event_day={day}" in parts for parts in changed.values()), changed
    assert any(set(before[table]) - visit_days for table in SHARDS), "no other day to stay unchanged"
    # Visits by their start day: only the day of Carol's visits is written again.
    visit_start_days = {part.replace("event_day=", "visit_day=") for part in visit_days}
    assert changed_partitions(visits_before, visits_after) <= visit_start_days
    assert set(visits_before) - visit_start_days, "no other day of visits to stay unchanged"

    with psycopg.connect(url) as db:
        assert db.execute("select count(*) from intermediate.int_visits where visit_start >= %s and visit_start <= %s",
                          (first, last)).fetchone()[0] == 1
    # A new Thrift session: one opened before the run may keep the tables' old file listings.
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        for model in ["intermediate.int_events_sessionized", "intermediate.int_visits", "intermediate.int_conversions",
                      "intermediate.int_attribution_touches", "marts.fct_events", "marts.fct_pageviews"]:
            compare(spark_build, conn.cursor(), model, MODELS[model])


def test_an_incremental_run_after_an_erasure_and_a_rule_change_equals_postgresql(spark_build, tmp_path):
    """Bob is erased (from PostgreSQL, then from the lake's files), a channel rule is renamed and a late
    purchase event of Alice's transaction T-100 arrives, earlier than its conversion, on the day of her
    first visit (the conversion moves there; its old day is rebuilt too): an incremental run of every
    model on both engines builds the same tables and marts. On Spark, Bob's day (his only event) loses its partitions in the
    shards and in int_visits, and the run writes no other day of visits than Alice's and Bob's. (After
    the late event's test: it goes on from that build.)"""
    from pipelines.maintenance.privacy import Subject, erase_everywhere
    from tests.pipeline.conftest import ALICE_COOKIE, ALICE_USER, BOB_COOKIE, insert_event, run_dbt

    url, cluster, settings = spark_build["url"], spark_build["cluster"], spark_build["settings"]
    with psycopg.connect(url, autocommit=True) as db:
        site_id, bob_at = db.execute("select site_id, min(occurred_at) from raw.events where visitor_id = %s group by 1",
                                     (BOB_COOKIE,)).fetchone()
        alice_first = db.execute("select min(occurred_at) from raw.events where visitor_id = %s",
                                 (ALICE_COOKIE,)).fetchone()[0]
        bob_day = bob_at.astimezone(timezone.utc).date()
        # Bob's event is alone on its day (but when the late event's test ran after 23:40 UTC).
        bob_alone = not db.execute("select count(*) from raw.events where (occurred_at at time zone 'UTC')::date = %s"
                                   " and visitor_id is distinct from %s", (bob_day, BOB_COOKIE)).fetchone()[0]
        renamed = db.execute("update collect.channel_rules set channel = channel || ' (renamed)'"
                             " where site_id = %s and channel in (select channel from intermediate.int_traffic_source_channels)"
                             " returning channel", (site_id,)).fetchall()
        assert renamed, "no rule in use to rename"
        late = alice_first + timedelta(minutes=1)
        # Of T-100, whose conversion is a week later, on a day not rebuilt: the conversion moves to this day.
        insert_event(db, site_id, late, name="purchase", visitor=ALICE_COOKIE, user_id=ALICE_USER, path="/checkout/done",
                     items=[{"id": "SKU-9", "name": "Socks", "price": 5, "quantity": 1}], transaction_id="T-100",
                     revenue=5, currency="EUR", props={"transaction_id": "T-100", "value": 5, "currency": "EUR"},
                     received_at=datetime.now(timezone.utc))
    with psycopg.connect(url, autocommit=True) as db:
        deleted, _ = erase_everywhere(db, settings, Subject(str(site_id), (), (BOB_COOKIE,)))
    assert deleted["raw.events"] == 1
    with LakeWriter(settings, url).open() as writer:
        writer.export_raw_day(late.astimezone(timezone.utc).date())
        writer.export_sources()

    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        visits_before = partition_files(conn.cursor(), "intermediate.int_visits", "visit_day")
    assert f"visit_day={bob_day}" in visits_before

    run_dbt(url, "run")
    spark_dbt(cluster, url, tmp_path, "run", "--select", "path:models")

    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        spark = conn.cursor()
        after = {table: partition_files(spark, table) for table in SHARDS}
        visits_after = partition_files(spark, "intermediate.int_visits", "visit_day")
    if bob_alone:
        assert not any(f"event_day={bob_day}" in parts for parts in after.values()), after
        assert f"visit_day={bob_day}" not in visits_after
        # Only the days of Alice's late purchase and of Bob's visit are written.
        alice_day = f"visit_day={alice_first.astimezone(timezone.utc).date()}"
        assert changed_partitions(visits_before, visits_after) <= {alice_day, f"visit_day={bob_day}"}
    with psycopg.connect(url) as db:
        assert db.execute("select converted_at from intermediate.int_conversions where transaction_id = 'T-100'"
                          ).fetchall() == [(late,)]
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        for model in [name for name in MODELS if not name.startswith("analytics.")]:
            compare(spark_build, conn.cursor(), model, MODELS[model])
