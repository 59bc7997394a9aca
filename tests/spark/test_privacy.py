"""The privacy rules hold on Spark: no IP address or user agent in any file of the home, the salt in
no lake file, and an erasure reaches every Parquet file of the lake and of Spark's warehouse.

Events go through the real collector that the session's `analytics up` started (server events and
a browser beacon behind a trusted proxy, with distinctive addresses and a distinctive user agent),
into that home's PostgreSQL; their days and the metadata are exported to the cluster's lake, built
by dbt on Spark (and on PostgreSQL, whose catalog names the analytics views the lake's writer
writes) and written into the lake's view folders by Spark. Then every file under the home is
searched: Parquet files by their values (DuckDB), the others byte for byte. An erasure follows the
product's path (erase_everywhere), then the next export, incremental Spark build and lake views.
(After test_parity: it shares the session's lake and warehouse, and runs on another database.)
"""
from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import duckdb
import psycopg
import pytest
import requests
from pyhive import hive

from pipelines.admin.server_keys import create_server_key
from pipelines.database import connection
from pipelines.lake.export import LakeWriter
from pipelines.lake.layout import ANALYTICS, Lake
from pipelines.lake.privacy import PersonIds
from pipelines.lake.spark import SparkViewsWriter
from pipelines.maintenance.privacy import erase_everywhere, resolve_subject
from tests.pipeline.conftest import run_dbt
from tests.spark.builds import export_days, spark_dbt

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

# Distinctive values: found anywhere they were written. Documentation addresses (RFC 5737, 3849).
ERASED_IP = "198.51.100.173"
KEPT_IP = "203.0.113.219"
PROXIED_IP = "2001:db8:feed:f00d::2a"
AGENT_PROBE = "Zq7xSparkPrivacyProbe"
AGENT = f"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36 {AGENT_PROBE}/4.1"
ORIGIN = "https://privacy-shop.example"
ERASED_USER = "privacy-user-erased-5c1f"
ERASED_COOKIE = "erasedcookie0123456789abcd"
KEPT_USER = "privacy-user-kept-9d2e"
EVENTS = 7


def post_events(settings, site_id: str, secret: str) -> None:
    """The person to erase (a user id and a cookie: a visit with a purchase), a person kept (a
    user id), and a browser beacon through the trusted proxy (its address in X-Forwarded-For)."""
    base = f"http://{settings.bind_host}:{settings.collector_port}"
    person = {"ip": ERASED_IP, "user_agent": AGENT, "user_id": ERASED_USER, "visitor": ERASED_COOKIE}
    server = [
        {"type": "pageview", "url": f"{ORIGIN}/?utm_source=news&utm_medium=email", **person},
        {"type": "pageview", "url": f"{ORIGIN}/pricing", **person},
        {"type": "event", "name": "purchase", "url": f"{ORIGIN}/checkout", **person,
         "props": {"transaction_id": "T-PRIV-1", "value": 42, "currency": "EUR"},
         "items": [{"id": "SKU-P", "name": "Privacy mug", "price": 21, "quantity": 2}]},
        {"type": "pageview", "url": f"{ORIGIN}/", "ip": KEPT_IP, "user_agent": AGENT, "user_id": KEPT_USER},
        {"type": "pageview", "url": f"{ORIGIN}/blog", "ip": KEPT_IP, "user_agent": AGENT, "user_id": KEPT_USER},
    ]
    answer = requests.post(f"{base}/collect/server", json={"events": server},
                           headers={"Authorization": f"Bearer {secret}"}, timeout=30)
    assert answer.status_code == 202 and answer.json()["accepted"] == len(server), answer.text
    beacon = {"site": site_id, "events": [
        {"type": "pageview", "url": f"{ORIGIN}/p?utm_source=probe", "title": "P", "page_id": "0123456789abcdefghijklmnop",
         "screen": "desktop", "ts": 1},
        {"type": "pageview", "url": f"{ORIGIN}/q", "title": "Q", "page_id": "abcdefghijklmnop0123456789",
         "screen": "desktop", "ts": 2}]}
    answer = requests.post(f"{base}/collect", data=json.dumps(beacon).encode(), timeout=30, headers={
        "Content-Type": "text/plain;charset=UTF-8", "Origin": ORIGIN, "User-Agent": AGENT,
        "X-Forwarded-For": PROXIED_IP})
    assert answer.status_code == 204, answer.text


def write_lake_views(settings, url: str) -> None:
    with LakeWriter(settings, url).open() as writer:
        assert SparkViewsWriter(writer, settings.bind_host, settings.spark_thrift_port).refresh_views()


@pytest.fixture(scope="module")
def privacy_build(spark_cluster_running, tmp_path_factory):
    """The events through the collector, in the lake, built on Spark, with the views in the lake."""
    settings = spark_cluster_running["settings"]
    url = connection.server_url(settings)
    with psycopg.connect(url, autocommit=True) as db:
        site_id = str(db.execute(
            "insert into collect.sites (name, accept_user_id) values ('Privacy shop', true) returning site_id"
        ).fetchone()[0])
        db.execute("insert into collect.site_domains (site_id, domain) values (%s, %s)",
                   (site_id, ORIGIN.removeprefix("https://")))
        with db.transaction():
            secret = create_server_key(db, site_id, actor="test")["secret"]
    post_events(settings, site_id, secret)
    deadline = time.monotonic() + 60
    with psycopg.connect(url, autocommit=True) as db:
        while db.execute("select count(*) from raw.events where site_id = %s", (site_id,)).fetchone()[0] < EVENTS:
            assert time.monotonic() < deadline, "the events did not reach raw.events"
            time.sleep(0.2)
        salts = [bytes(salt) for (salt,) in db.execute("select salt from collect.daily_salts")]
    assert salts
    export_days(settings, url)
    # PostgreSQL's catalog names the analytics views the lake's writer writes (and their columns' types).
    run_dbt(url, "run")
    spark_dbt(settings, url, tmp_path_factory.mktemp("dbt-spark-privacy"), "run", "--select", "path:models")
    write_lake_views(settings, url)
    return {"settings": settings, "url": url, "site_id": site_id, "secrets": [*salts, secret.encode(),
                                                                           settings.server_secret()]}


def parquet_files(*roots: Path) -> list[Path]:
    return sorted(path for root in roots for path in root.rglob("*.parquet") if path.is_file())


def parquet_holding(files: list[Path], values: list[str]) -> dict[str, list[str]]:
    """For each value, the Parquet files with a row whose text (every column, nested ones included)
    contains it: the values themselves, not the compressed bytes."""
    found: dict[str, list[str]] = {value: [] for value in values}
    with duckdb.connect() as duck:
        for path in files:
            literal = str(path).replace("'", "''")
            checks = ", ".join(f"bool_or(contains(cast(t as varchar), ${i + 1}))" for i in range(len(values)))
            hits = duck.execute(f"select {checks} from read_parquet('{literal}') as t", values).fetchone()
            for value, hit in zip(values, hits):
                if hit:
                    found[value].append(str(path))
    return {value: paths for value, paths in found.items() if paths}


def bytes_holding(root: Path, needles: list[bytes]) -> dict[bytes, list[str]]:
    """For each needle, the files under `root` whose bytes contain it."""
    found: dict[bytes, list[str]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            content = path.read_bytes()
        except FileNotFoundError:
            continue  # a temporary file of a running process, gone since it was listed
        for needle in needles:
            if needle in content:
                found.setdefault(needle, []).append(str(path))
    return found


def test_no_file_of_the_home_holds_an_ip_or_the_user_agent(privacy_build):
    """Lake, Spark's warehouse, metastore, work and scratch folders, logs, PostgreSQL's files."""
    settings = privacy_build["settings"]
    needles = [ERASED_IP, KEPT_IP, PROXIED_IP, AGENT_PROBE, "198.51.100.", "203.0.113.", "2001:db8:feed"]
    assert bytes_holding(settings.home, [needle.encode() for needle in needles]) == {}
    assert parquet_holding(parquet_files(settings.home), needles) == {}
    # The search does find what is there: the events' own values.
    assert parquet_holding(parquet_files(settings.lake_path), [ERASED_USER, KEPT_USER])


def test_no_lake_or_warehouse_file_holds_a_salt_or_a_secret(privacy_build):
    settings = privacy_build["settings"]
    secrets = privacy_build["secrets"]
    texts = [form for secret in secrets for form in (secret.hex(), base64.b64encode(secret).decode())]
    texts += [secret.decode() for secret in secrets if secret.isascii()]
    for root in (settings.lake_path, settings.spark_dir):
        assert bytes_holding(root, [*secrets, *(text.encode() for text in texts)]) == {}, root
        assert parquet_holding(parquet_files(root), texts) == {}, root
    # The search does find them where they are: the salts in PostgreSQL's files, the secret in its own.
    found = bytes_holding(settings.home, secrets)
    assert all(any(path.startswith(str(settings.pgdata)) for path in found.get(salt, [])) for salt in secrets[:-2])
    assert found.get(settings.server_secret())


def test_an_erasure_reaches_every_parquet_file_of_the_lake_and_the_warehouse(privacy_build, tmp_path):
    """The person is erased as a privacy request does (PostgreSQL and the lake's files), then the
    next export, incremental Spark build and lake views: none of their identifiers (user id, cookie,
    visitor key, visits, events) is in any Parquet file of the lake or of Spark's warehouse, and the
    person kept still is."""
    settings, url, site_id = privacy_build["settings"], privacy_build["url"], privacy_build["site_id"]
    warehouse = settings.spark_dir / "warehouse"
    with psycopg.connect(url, autocommit=True) as db:
        subject = resolve_subject(db, site_id, "user_id", ERASED_USER)
        assert ERASED_COOKIE in subject.visitor_ids
        ids = PersonIds(site_id, set(subject.user_ids), set(subject.visitor_ids))
        ids.event_ids = {str(e) for (e,) in db.execute(
            "select event_id from raw.events where site_id = %s and user_id = %s", (site_id, ERASED_USER))}
    with hive.connect(host=settings.bind_host, port=settings.spark_thrift_port) as conn:
        spark = conn.cursor()
        keys = ", ".join(f"'{key}'" for key in sorted(ids.visitor_keys))
        spark.execute(f"select visit_id from intermediate.int_visits where visitor_key in ({keys})")
        ids.visit_ids = {visit for (visit,) in spark.fetchall()}
    assert ids.visit_ids and len(ids.event_ids) == 3
    identifiers = sorted({*ids.user_ids, *ids.visitor_ids, *ids.visitor_keys, *ids.visit_ids, *ids.event_ids})
    before = parquet_holding(parquet_files(settings.lake_path, warehouse), identifiers)
    assert {ERASED_USER, *ids.visit_ids} <= set(before)
    assert any(str(warehouse) in path for paths in before.values() for path in paths)

    with psycopg.connect(url, autocommit=True) as db:
        deleted, _ = erase_everywhere(db, settings, resolve_subject(db, site_id, "user_id", ERASED_USER))
    assert deleted["raw.events"] == 3
    # At once, before the next build: the lake's files hold none of them (Spark's views rewritten
    # from their own files less the person's rows), the other person's stay, the views are Spark's.
    assert parquet_holding(parquet_files(settings.lake_path), identifiers) == {}
    assert parquet_holding(parquet_files(settings.lake_path), [KEPT_USER])
    assert Lake(settings.lake_path).read_state(ANALYTICS, "visits").extra["built_by"] == "spark"
    export_days(settings, url)
    spark_dbt(settings, url, tmp_path, "run", "--select", "path:models", "--exclude", "config.materialized:view")
    write_lake_views(settings, url)

    assert parquet_holding(parquet_files(settings.lake_path, warehouse), identifiers) == {}
    assert set(parquet_holding(parquet_files(settings.lake_path, warehouse), [KEPT_USER])) == {KEPT_USER}

