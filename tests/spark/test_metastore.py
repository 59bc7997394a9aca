"""The Hive metastore in PostgreSQL (ANALYTICS_SPARK_METASTORE_URL): a Thrift server of its own, on the
session's master, whose tables outlive its restart."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from pyhive import hive

from analytics_cli import spark_cluster
from pipelines.database import connection, embedded
from pipelines.settings import Settings
from tests.conftest import free_port

pytestmark = pytest.mark.slow
READY_SECONDS = 300


@pytest.fixture
def metastore_root():
    """A folder for the test's PostgreSQL and home: not under pytest's tmp_path, as in tests/conftest.py (a
    concurrent pytest session prunes old basetemp folders, under a running server)."""
    root = Path(tempfile.mkdtemp(prefix="analytics-test-metastore-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def tcp_postgres(metastore_root):
    """A PostgreSQL server on 127.0.0.1 (JDBC reaches no Unix socket) with an empty `metastore` database."""
    port = free_port()
    pgdata = metastore_root / "pgdata"
    embedded.start(pgdata, extra_settings={"listen_addresses": "'127.0.0.1'", "port": str(port), "fsync": "off"})
    url = f"postgresql://{embedded.SUPERUSER}@127.0.0.1:{port}/postgres"
    connection.ensure_database(url, "metastore")
    yield connection.with_database(url, "metastore")
    embedded.stop(pgdata)


def start_thrift(settings: Settings, env: dict[str, str], log: Path) -> subprocess.Popen:
    spark_cluster.prepare_spark_dir(settings)
    [thrift] = spark_cluster.spark_children(settings)
    with log.open("a") as out:
        process = subprocess.Popen(thrift.argv, env=spark_cluster.spark_environment(settings, env), stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + READY_SECONDS
    while not thrift.ready():
        assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-4000:]
        time.sleep(0.5)
    return process


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def query(settings: Settings, statement: str) -> list[tuple]:
    with hive.connect(host=settings.bind_host, port=settings.spark_thrift_port) as conn:
        cursor = conn.cursor()
        cursor.execute(statement)
        return cursor.fetchall() if cursor.description else []


def test_metastore_in_postgresql_keeps_tables_across_restarts(spark_cluster_running, tcp_postgres, metastore_root):
    cluster = spark_cluster_running["settings"]
    # Only a Thrift server starts here: the session's master and workers are the cluster's (DDL needs no executor).
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANALYTICS_")}
    env.update(ANALYTICS_HOME=str(metastore_root / "home"), ANALYTICS_ENGINE="spark", ANALYTICS_SPARK_WORKERS="0",
               ANALYTICS_SPARK_MASTER_URL=cluster.spark_master, ANALYTICS_SPARK_METASTORE_URL=tcp_postgres,
               ANALYTICS_SPARK_THRIFT_PORT=str(free_port()), ANALYTICS_SPARK_THRIFT_UI_PORT=str(free_port()))
    settings = Settings.from_env(env)
    log = metastore_root / "thrift.log"
    process = start_thrift(settings, env, log)
    try:
        query(settings, "create schema kept_schema")
        query(settings, "create table kept_schema.kept (id int, label string) using parquet")
    finally:
        stop(process)
    # The metastore's tables are PostgreSQL's (created at the first start), Derby was never opened.
    with connection.connect(tcp_postgres) as conn:
        assert conn.execute('select "TBL_NAME" from "TBLS" join "DBS" using ("DB_ID") '
                            'where "NAME" = %s', ("kept_schema",)).fetchall() == [("kept",)]
        assert conn.execute("select count(*) from information_schema.tables where table_schema = 'public'"
                            " and table_name in ('DBS', 'TBLS', 'SDS', 'COLUMNS_V2')").fetchone() == (4,)
    assert not (settings.spark_dir / "metastore" / "metastore_db").exists()
    assert (settings.spark_dir / "conf" / "hive-site.xml").stat().st_mode & 0o077 == 0
    process = start_thrift(settings, env, log)
    try:
        assert query(settings, "show tables in kept_schema") == [("kept_schema", "kept", False)]
        assert [row[:2] for row in query(settings, "describe kept_schema.kept")] == [("id", "int"), ("label", "string")]
    finally:
        stop(process)


def test_metastore_in_postgresql_without_its_driver_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(spark_cluster, "POSTGRESQL_JDBC_JAR", tmp_path / "postgresql.jar")
    settings = Settings.from_env({"ANALYTICS_HOME": str(tmp_path / "home"), "ANALYTICS_ENGINE": "spark",
                                  "ANALYTICS_SPARK_METASTORE_URL": "postgresql://hive@10.0.0.5/metastore"})
    with pytest.raises(spark_cluster.SparkUnavailable) as raised:
        spark_cluster.spark_children(settings)
    assert raised.value.message == (f"ANALYTICS_SPARK_METASTORE_URL needs PostgreSQL's JDBC driver, which is not "
                                    f"installed ({tmp_path / 'postgresql.jar'}): Debian: apt-get install "
                                    "libpostgresql-jdbc-java")
