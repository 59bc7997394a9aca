"""Sources through the API: federated joins, catalogs in every worker without restart, sealed passwords."""
from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import uuid

import duckdb
import pytest

from pipelines.database import connection, embedded
from workbench_app import metadata_database
from workbench_app.app import create_app
from workbench_app.engine.offline_extensions import load_extension
from tests.workbench_api.conftest import Api, ok

MARIADB = {"host": "127.0.0.1", "port": 3306, "user": "root", "database": "test"}


@pytest.fixture
def sqlite_file(tmp_path):
    path = tmp_path / "reference.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("create table countries (code text, name text)")
        conn.executemany("insert into countries values (?, ?)",
                         [("FR", "France"), ("DE", "Germany"), ("US", "United States"), ("ES", "Spain")])
    return path


@pytest.fixture
def mariadb_table():
    """A table of targets per country in MariaDB's `test` database (skipped when MariaDB is absent)."""
    try:
        socket.create_connection((MARIADB["host"], MARIADB["port"]), timeout=2).close()
    except OSError:
        if os.environ.get("CI") == "true":
            pytest.fail("MariaDB is not reachable at 127.0.0.1:3306; .ci/run must start it")
        pytest.skip("MariaDB is not reachable at 127.0.0.1:3306")
    name = f"wb_targets_{uuid.uuid4().hex[:8]}"
    con = duckdb.connect()
    load_extension(con, "mysql_scanner")
    con.execute("ATTACH 'host=127.0.0.1 port=3306 user=root database=test' AS m (TYPE mysql)")
    con.execute(f"CREATE TABLE m.{name} (code VARCHAR(2), target INTEGER)")
    con.execute(f"INSERT INTO m.{name} VALUES ('FR', 100), ('US', 300), ('ES', 50)")
    yield name
    con.execute(f"DROP TABLE m.{name}")
    con.close()


def test_federated_join_of_warehouse_mariadb_and_sqlite(admin, sqlite_file, mariadb_table):
    ok(admin.post("/sources", {"name": "reference", "kind": "sqlite", "options": {"path": str(sqlite_file)}}), 201)
    created = ok(admin.post("/sources", {"name": "crm", "kind": "mysql", "options": MARIADB}), 201)
    assert created["status"] == "attached", created
    result = ok(admin.post("/sql", {"sql": f"""
        SELECT c.name, count(*) AS views, max(t.target) AS target
        FROM page_views v
        JOIN reference.countries c ON c.code = v.country
        JOIN crm.{mariadb_table} t ON t.code = v.country
        GROUP BY c.name ORDER BY c.name"""}))
    assert result["rows"] == [["France", 1, 100], ["Spain", 1, 50], ["United States", 2, 300]]


def test_a_source_added_in_one_worker_is_a_catalog_in_another_without_restart(admin, app, workbench_settings,
                                                                              sqlite_file):
    other_worker = create_app(workbench_settings)
    try:
        other = Api(other_worker.test_client(), admin.token)
        assert ok(other.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[5]]
        assert other.post("/sql", {"sql": "SELECT * FROM reference.countries"}).status_code == 404
        source = ok(admin.post("/sources", {"name": "reference", "kind": "sqlite",
                                            "options": {"path": str(sqlite_file)}}), 201)
        assert ok(other.post("/sql", {"sql": "SELECT count(*) FROM reference.countries"}))["rows"] == [[4]]
        assert "reference" in [d["name"] for d in ok(other.get("/datasources"))["datasources"]]
        assert admin.delete(f"/sources/{source['source_id']}").status_code == 204
        assert other.post("/sql", {"sql": "SELECT * FROM reference.countries"}).status_code == 404
    finally:
        other_worker.wsgi_app.close()
        other_worker.extensions["workbench"].close()


def test_csv_and_parquet_folder_and_duckdb_file(admin, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "campaigns.csv").write_text("campaign,budget\nspring,1000\nsummer,2500\n")
    duckdb.sql("SELECT 'FR' AS code, 0.2 AS vat").write_parquet(str(folder / "vat.parquet"))
    database = tmp_path / "plans.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("CREATE TABLE plans AS SELECT 'pro' AS plan, 49 AS price")
    ok(admin.post("/sources", {"name": "exports", "kind": "files", "options": {"path": str(folder)}}), 201)
    ok(admin.post("/sources", {"name": "plans", "kind": "duckdb", "options": {"path": str(database)}}), 201)
    result = ok(admin.post("/sql", {"sql": "SELECT (SELECT sum(budget) FROM exports.campaigns), "
                                           "(SELECT vat FROM exports.vat), (SELECT price FROM plans.plans)"}))
    assert result["rows"] == [[3500, 0.2, 49]]
    # The folder is read at query time: a file's new rows are there at once.
    with (folder / "campaigns.csv").open("a") as handle:
        handle.write("autumn,500\n")
    assert ok(admin.post("/sql", {"sql": "SELECT sum(budget) FROM exports.campaigns"}))["rows"] == [[4000]]


def test_source_administration_is_for_administrators_and_audited(admin, analyst, sqlite_file):
    user = Api(admin.client, analyst[1])
    refused = user.post("/sources", {"name": "x", "kind": "sqlite", "options": {"path": str(sqlite_file)}})
    assert refused.status_code == 403
    bad = admin.post("/sources", {"name": "x", "kind": "sqlite", "options": {"path": "relative.db"}})
    assert bad.status_code == 400 and bad.get_json()["error"]["details"]["field"] == "path"
    assert admin.post("/sources", {"name": "memory", "kind": "sqlite",
                                   "options": {"path": str(sqlite_file)}}).status_code == 400
    warehouse = ok(admin.get("/sources"))["sources"][0]
    assert warehouse["kind"] == "warehouse" and warehouse["status"] == "attached"
    assert admin.delete(f"/sources/{warehouse['source_id']}").status_code == 409
    actions = [e["action"] for e in ok(admin.get("/audit?action=source."))["entries"]]
    assert actions == []  # nothing was created
    ok(admin.post("/sources", {"name": "reference", "kind": "sqlite", "options": {"path": str(sqlite_file)}}), 201)
    assert [e["action"] for e in ok(admin.get("/audit?action=source."))["entries"]] == ["source.created"]


def test_no_source_password_in_clear_in_a_dump_of_the_metadata_database(admin, db, workbench_settings):
    role, password = f"wb_source_{uuid.uuid4().hex[:8]}", f"Pw-{uuid.uuid4().hex}"
    db.execute(f"create role {role} login password '{password}'")
    db.execute(f"grant usage on schema modeled to {role}")
    db.execute(f"grant select on modeled.page_views to {role}")
    parts = connection.split_url(connection.server_url(workbench_settings))
    try:
        created = ok(admin.post("/sources", {"name": "modeled_pg", "kind": "postgres", "password": password, "options": {
            "host": parts.host, "port": parts.port, "database": parts.database, "user": role,
            "default_schema": "modeled"}}), 201)
        assert created["has_password"] is True and "password" not in created
        assert ok(admin.post("/sql", {"sql": "SELECT count(*) FROM modeled_pg.page_views"}))["rows"] == [[5]]
        dump = subprocess.run([str(embedded.binary("pg_dump")), "--data-only",
                               metadata_database.metadata_url(workbench_settings)],
                              check=True, capture_output=True, text=True).stdout
        assert "modeled_pg" in dump and "v1:" in dump  # the source and its sealed password are there
        assert password not in dump
        assert admin.token not in dump and admin.token.removeprefix("wbt_") not in dump  # tokens are hashed
    finally:
        admin.delete(f"/sources/{created['source_id']}")
        db.execute(f"drop owned by {role}")
        db.execute(f"drop role {role}")


def test_an_unreachable_source_is_reported_and_does_not_stop_the_others(admin, sqlite_file):
    from tests.conftest import free_port
    down = ok(admin.post("/sources", {"name": "down", "kind": "postgres", "password": "Secret-1", "options": {
        "host": "127.0.0.1", "port": free_port(), "database": "x", "user": "x"}}), 201)
    assert down["status"] == "unavailable" and "down" in down["error"] and "Secret-1" not in str(down)
    ok(admin.post("/sources", {"name": "reference", "kind": "sqlite", "options": {"path": str(sqlite_file)}}), 201)
    assert ok(admin.post("/sql", {"sql": "SELECT count(*) FROM reference.countries"}))["rows"] == [[4]]
    assert ok(admin.post("/sql", {"sql": "SELECT count(*) FROM page_views"}))["rows"] == [[5]]
    statuses = {s["name"]: s["status"] for s in ok(admin.get("/sources"))["sources"]}
    assert statuses == {"warehouse": "attached", "down": "unavailable", "reference": "attached"}


def test_native_sql_only_with_no_restriction_on_the_source(admin, analyst, sqlite_file):
    native = ok(admin.post("/sql/native", {"catalog": "warehouse",
                                           "sql": "SELECT count(*)::int AS n, current_user AS who FROM analytics.page_views"}))
    assert native["rows"] == [[5, "analytics_reader"]]
    for statement in ("SELECT 1; SELECT 2", "COMMIT; CREATE TABLE analytics.x (a int)",
                      "CREATE TABLE analytics.x (a int)"):
        refused = admin.post("/sql/native", {"catalog": "warehouse", "sql": statement})
        assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "query_failed", statement
    # A row filter or mask cannot apply to SQL the engine does not rewrite: restricted users are refused.
    assert Api(admin.client, analyst[1]).post("/sql/native", {"catalog": "warehouse",
                                                               "sql": "SELECT 1"}).status_code == 403
    ok(admin.post("/sources", {"name": "reference", "kind": "sqlite", "options": {"path": str(sqlite_file)}}), 201)
    assert ok(admin.post("/sql/native", {"catalog": "reference", "sql": "SELECT count(*) FROM countries"}))["rows"] == [[4]]
    assert admin.post("/sql/native", {"catalog": "reference",
                                      "sql": "DELETE FROM countries"}).status_code == 400
    assert admin.post("/sql/native", {"catalog": "reference",
                                      "sql": f"ATTACH '{sqlite_file}' AS other"}).status_code == 400
    assert ok(admin.post("/sql/native", {"catalog": "reference", "sql": "SELECT count(*) FROM countries"}))["rows"] == [[4]]


def test_an_option_or_name_with_a_trailing_newline_is_refused(admin, sqlite_file):
    # `$` in a pattern also matches before a final newline: values must match whole.
    refused = admin.post("/sources", {"name": "pg", "kind": "postgres", "options": {
        "host": "db.example\n", "database": "x", "user": "x"}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "host"
    refused = admin.post("/sources", {"name": "reference\n", "kind": "sqlite", "options": {"path": str(sqlite_file)}})
    assert refused.status_code == 400 and refused.get_json()["error"]["details"]["field"] == "name"
