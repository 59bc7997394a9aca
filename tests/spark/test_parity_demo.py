"""The Spark target builds what the PostgreSQL target builds on the demo's data, row for row.

The demo as `make run` loads it (`analytics demo`: its site, metadata and 90 days of traffic, the
last 72 hours through the real POST /collect/server) is built by dbt on PostgreSQL and, from its
raw days exported to a lake of the module's own, by dbt on the session's Spark cluster (a full
refresh: the tables hold the previous module's shop). Every mart and `analytics` view is compared
ordered by its key, money and credit shares with a tolerance (tests/spark/parity.py), the views
from the lake's files Spark wrote for the workbench.

Then a month's ordinary changes on top of it: late events (one of them joining two visits into
one), a customer erased, a channel rule renamed, and the incremental run on both engines, compared
again.
"""
from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
from pyhive import hive

from collector_app.app import create_app
from pipelines.demo import create_demo
from pipelines.demo.send import MAX_PER_REQUEST
from pipelines.ingest.writer import stop_writer
from pipelines.lake.export import LakeWriter
from pipelines.lake.spark import SparkViewsWriter
from pipelines.maintenance.privacy import erase_everywhere, resolve_subject
from pipelines.settings import Settings
from tests.conftest import TEST_SECRET, clone_template, drop_database
from tests.pipeline.conftest import run_dbt
from tests.spark.builds import export_days, spark_dbt
from tests.spark.parity import INBOUND, MODELS, compare

# The module's first test sets up the demo's builds on both engines: minutes, more than the
# project's 600-s bound per test on a loaded machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

EVERY_MODEL = {**MODELS, **INBOUND}


def post_recent(settings: Settings):
    """The demo's sender of its last 72 hours: the collector's real server endpoint (its WSGI app, as
    tests/pipeline/test_demo.py), every batch accepted."""
    client = create_app(settings).test_client()

    def send(site_id: str, secret: str, events: list[dict]) -> int:
        accepted = 0
        for start in range(0, len(events), MAX_PER_REQUEST):
            response = client.post("/collect/server", json={"events": events[start:start + MAX_PER_REQUEST]},
                                   headers={"Authorization": f"Bearer {secret}"})
            assert response.status_code == 202, response.get_json()
            accepted += response.get_json()["accepted"]
        return accepted
    return send


def write_views(build: dict) -> dict:
    """Spark's analytics views written into the module's lake, as the lake's refresh does after a build."""
    cluster = build["cluster"]
    with LakeWriter(build["settings"], build["url"]).open() as writer:
        results = SparkViewsWriter(writer, cluster.bind_host, cluster.spark_thrift_port).refresh_views()
    return {result.table: result for result in results}


def differences(build: dict) -> dict[str, str]:
    """Each model whose rows differ between the engines, with the comparison's message (all models
    compared before the test fails, so that one failure shows every difference)."""
    cluster, found = build["cluster"], {}
    views = write_views(build)
    with hive.connect(host=cluster.bind_host, port=cluster.spark_thrift_port) as conn:
        cursor = conn.cursor()
        for model, key in EVERY_MODEL.items():
            try:
                compare(build, cursor, model, key, allow_empty=model in INBOUND, lake_views=views)
            except AssertionError as failure:
                found[model] = str(failure).splitlines()[0][:600]
    return found


@pytest.fixture(scope="module")
def demo_build(pg_server_url, template_database, spark_cluster_running, tmp_path_factory):
    """The demo loaded into a database of its own and built on both engines."""
    root = tmp_path_factory.mktemp("spark-demo")
    url = clone_template(pg_server_url, template_database, prefix="test_spark_demo")
    settings = Settings(home=root / "home", database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=root / "lake")
    # The cluster's Thrift server, reading this module's lake.
    cluster = dataclasses.replace(spark_cluster_running["settings"], lake_dir=settings.lake_path)
    try:
        try:
            summary = create_demo(url, post_recent(settings))
        finally:
            stop_writer(settings)
        with psycopg.connect(url) as db:
            stored = db.execute("select count(*) from raw.events").fetchone()[0]
        assert stored == summary.imported_events + summary.sent_events > 50_000
        run_dbt(url, "run")
        export_days(settings, url)
        spark_dbt(cluster, url, root / "target-full", "run", "--full-refresh", "--select", "path:models",
                  timeout=2400)
        yield {"url": url, "settings": settings, "cluster": cluster, "site_id": summary.site_id, "root": root,
               "events": stored}
    finally:
        drop_database(pg_server_url, url)


def test_the_demo_builds_the_same_rows_on_both_engines(demo_build):
    with psycopg.connect(demo_build["url"]) as db:
        visits, orders, touches = db.execute(
            "select (select count(*) from analytics.visits), (select count(*) from analytics.orders),"
            " (select count(*) from analytics.attribution)").fetchone()
    assert visits > 1_000 and orders > 10 and touches > orders, "the demo is too small to compare"
    assert differences(demo_build) == {}


def copy_event(db, event_id, at: datetime, path: str) -> None:
    """A late pageview of the visitor of `event_id` (same identity, country, device, received now)."""
    columns = [name for (name,) in db.execute(
        "select column_name from information_schema.columns where table_schema = 'raw' and table_name = 'events'"
        " and column_name not in ('event_id', 'occurred_at', 'received_at', 'event_type', 'event_name', 'path',"
        " 'props', 'items', 'transaction_id', 'revenue', 'currency', 'page_id') order by ordinal_position")]
    listed = ", ".join(columns)
    db.execute(f"""insert into raw.events ({listed}, occurred_at, received_at, event_type, event_name, path, props)
                   select {listed}, %s, now(), 'pageview', 'pageview', %s, '{{}}'::jsonb
                   from raw.events where event_id = %s and occurred_at between %s - interval '1 day' and %s + interval '1 day'""",
               (at, path, event_id, at, at))


def test_a_month_of_changes_builds_the_same_rows_incrementally(demo_build):
    """Late events (three visits of the last month extended, two visits of one visitor joined into
    one), a customer erased (from PostgreSQL, then from the lake's files), a channel rule renamed;
    the changed days and the metadata exported as the lake's assets do, then an incremental run on
    both engines: the same rows again. (After the full build's test: it goes on from that build.)"""
    url, settings, site_id = demo_build["url"], demo_build["settings"], demo_build["site_id"]
    now = datetime.now(timezone.utc)
    with psycopg.connect(url, autocommit=True) as db:
        extended = db.execute(
            """select (array_agg(event_id order by occurred_at))[1], min(occurred_at) from raw.events
               where occurred_at between %s and %s and event_name = 'pageview'
               group by visitor_id, date_trunc('day', occurred_at) order by 2 limit 3""",
            (now - timedelta(days=30), now - timedelta(days=5))).fetchall()
        # The two visits of one visitor closest in time (more than the 30-minute timeout apart): late
        # pageviews every 20 minutes between them make them one.
        joined = db.execute(
            """select last_event_id, visit_end, next_start from (
                   select visit_end, lead(visit_start) over (partition by site_id, visitor_key order by visit_start) as next_start,
                          (select event_id from intermediate.int_events_sessionized e where e.visit_id = v.visit_id
                           order by occurred_at desc, event_id limit 1) as last_event_id
                   from intermediate.int_visits v where visit_start between %s and %s) gaps
               where next_start - visit_end between interval '31 minutes' and interval '12 hours'
               order by next_start - visit_end, next_start limit 1""",
            (now - timedelta(days=30), now - timedelta(days=5))).fetchone()
        assert len(extended) == 3 and joined, "the demo has no visits to extend or to join"
        late_days = set()
        for event_id, first in extended:
            copy_event(db, event_id, first + timedelta(minutes=2), "/late/extended")
            late_days.add(first.astimezone(timezone.utc).date())
        last_event, bridge, next_start = joined
        while (bridge := bridge + timedelta(minutes=20)) < next_start:
            copy_event(db, last_event, bridge, "/late/joined")
            late_days.add(bridge.astimezone(timezone.utc).date())
        visits_before = db.execute("select count(*) from intermediate.int_visits").fetchone()[0]

        customer = db.execute("""select user_id from raw.events where user_id is not null and transaction_id is not null
                                 group by 1 order by count(*) desc, 1 limit 1""").fetchone()[0]
        renamed = db.execute(
            """update collect.channel_rules set channel = channel || ' (renamed)'
               where site_id = %s and channel = (select channel from intermediate.int_visits group by 1
                                                 order by count(*) desc limit 1) returning channel""",
            (site_id,)).fetchall()
        assert renamed, "no channel rule in use to rename"
        subject = resolve_subject(db, site_id, "user_id", customer)
    with psycopg.connect(url, autocommit=True) as db:
        deleted, _ = erase_everywhere(db, settings, subject)
    assert deleted["raw.events"] > 0
    with LakeWriter(settings, url).open() as writer:
        for day in sorted(late_days):
            writer.export_raw_day(day)
        writer.export_sources()

    run_dbt(url, "run")
    spark_dbt(demo_build["cluster"], url, demo_build["root"] / "target-incremental", "run", "--select", "path:models",
              timeout=2400)

    with psycopg.connect(url) as db:
        assert db.execute("select count(*) from intermediate.int_visits").fetchone()[0] < visits_before
        assert db.execute("select count(*) from intermediate.int_visits where user_id = %s", (customer,)).fetchone()[0] == 0
        assert db.execute("select count(*) from analytics.visits where channel = %s",
                          (renamed[0][0],)).fetchone()[0] > 0
    assert differences(demo_build) == {}
