"""The DuckDB engine itself: offline extensions, locked configuration, limits, catalogs at run time."""

from __future__ import annotations

import os
import socket
import sqlite3
import uuid

import duckdb
import pytest

from tests.workbench.conftest import make_engine
from workbench_app.engine import (
    CatalogSource,
    EngineError,
    GroupPermissions,
    UserContext,
    WorkbenchEngine,
)
from pipelines.duckdb_extensions import extension_path


def internal_connection(engine: WorkbenchEngine) -> duckdb.DuckDBPyConnection:
    # Tests look behind the API on purpose: users never get this connection.
    return engine._generation.connection


@pytest.mark.parametrize("extension", ["postgres_scanner", "sqlite_scanner", "mysql_scanner"])
def test_extensions_come_from_wheels_of_the_same_version(extension):
    path = extension_path(extension)
    assert path.is_file()
    assert f"v{duckdb.__version__}" in path.parts


def test_configuration_is_locked_after_attaching(engine):
    connection = internal_connection(engine)
    settings = dict(
        connection.execute(
            """SELECT name, value FROM duckdb_settings() WHERE name IN
               ('enable_external_access', 'lock_configuration', 'autoinstall_known_extensions',
                'autoload_known_extensions')"""
        ).fetchall()
    )
    assert settings == {
        "enable_external_access": "false",
        "lock_configuration": "true",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
    }
    with pytest.raises(duckdb.Error):
        connection.execute("SET enable_external_access = true")
    with pytest.raises(duckdb.Error):
        connection.execute("SELECT * FROM read_csv('/etc/passwd')")


def test_attached_scanners_still_work_after_the_lock(engine, admin):
    assert engine.run("SELECT count(*) FROM crm.customers", admin).rows == [(3,)]  # sqlite scanner
    assert engine.run("SELECT count(*) FROM warehouse.analytics.events", admin).rows == [(5,)]


def test_sources_are_attached_read_only(engine):
    connection = internal_connection(engine)
    with pytest.raises(duckdb.Error):
        connection.execute("INSERT INTO crm.customers VALUES (9, 'x', 'x', 'x', 'x')")
    with pytest.raises(duckdb.Error):
        connection.execute("DELETE FROM warehouse.analytics.events")


def test_duckdb_settings_alone_do_not_protect(engine, source_files):
    """Why the permission layer must come first (DESIGN.md): these run on a locked database."""
    connection = internal_connection(engine).cursor()
    assert connection.execute("SELECT * FROM query('SELECT 42')").fetchall() == [(42,)]
    leaked = connection.execute(f"SELECT * FROM sqlite_scan('{source_files['crm']}', 'api_keys')").fetchall()
    assert leaked == [(1, "sk-live-do-not-leak")]
    connection.close()


def test_query_timeout_interrupts(engine, admin):
    with pytest.raises(EngineError) as stopped:
        engine.run("SELECT count(*) FROM range(100000000000) a", admin, timeout_seconds=0.3)
    assert stopped.value.code == "query_timeout"
    # The engine keeps serving afterwards.
    assert engine.run("SELECT 1", admin).rows == [(1,)]


def test_row_limit_truncates_and_says_so(engine, admin):
    result = engine.run("SELECT * FROM range(50)", admin, row_limit=10)
    assert len(result.rows) == 10 and result.truncated
    result = engine.run("SELECT * FROM range(50) ORDER BY 1 DESC LIMIT 20", admin, row_limit=10)
    assert result.rows[0] == (49,) and len(result.rows) == 10 and result.truncated
    result = engine.run("SELECT * FROM range(50) LIMIT 5 OFFSET 40", admin, row_limit=10)
    assert result.rows == [(40,), (41,), (42,), (43,), (44,)] and not result.truncated
    result = engine.run("SELECT * FROM range(50) LIMIT 50%", admin, row_limit=10)
    assert len(result.rows) == 10 and result.truncated
    # Duplicate column names survive the cap unchanged.
    assert engine.run("SELECT 1 AS a, 2 AS a LIMIT 3", admin, row_limit=10).columns == ["a", "a"]
    result = engine.run("SELECT * FROM range(5)", admin, row_limit=10)
    assert len(result.rows) == 5 and not result.truncated
    # A caller can lower the engine's limit, never raise it.
    result = engine.run("SELECT * FROM range(5000)", admin, row_limit=100000)
    assert len(result.rows) == engine.settings.row_limit


def test_memory_limit_is_applied(source_files, tmp_path, admin):
    engine = make_engine(source_files, memory_limit="40MB", threads=1, temp_directory=str(tmp_path / "spill"))
    try:
        spill = internal_connection(engine).execute("SELECT current_setting('temp_directory')").fetchone()[0]
        assert spill == str(tmp_path / "spill")
        value = internal_connection(engine).execute("SELECT current_setting('memory_limit')").fetchone()[0]
        assert value.startswith("38") or value.startswith("40")  # DuckDB reports MiB
        with pytest.raises(EngineError) as refused:
            engine.run("SELECT list(range || 'padding-padding-padding') FROM range(5000000)", admin)
        assert refused.value.code == "memory_limit_exceeded"
    finally:
        engine.close()


def test_catalog_attached_and_detached_at_run_time(source_files, tmp_path, admin):
    engine = make_engine(source_files)
    try:
        extra = tmp_path / "extra.sqlite"
        connection = sqlite3.connect(extra)
        connection.execute("CREATE TABLE notes (body TEXT)")
        connection.execute("INSERT INTO notes VALUES ('hello')")
        connection.commit()
        connection.close()
        user = UserContext("x", (GroupPermissions("g", frozenset({"extra"})),), {})
        with pytest.raises(EngineError):
            engine.run("SELECT * FROM extra.notes", user)
        engine.attach_catalog(CatalogSource("extra", "sqlite", str(extra)))
        assert "extra" in engine.catalogs()
        assert engine.run("SELECT body FROM extra.notes", user).rows == [("hello",)]
        # The other catalogs are still there, and the new database is locked too.
        assert engine.run("SELECT count(*) FROM crm.customers", admin).rows == [(3,)]
        locked = internal_connection(engine).execute("SELECT current_setting('lock_configuration')").fetchone()
        assert locked == (True,)
        engine.detach_catalog("extra")
        with pytest.raises(EngineError) as refused:
            engine.run("SELECT * FROM extra.notes", user)
        assert refused.value.code == "table_not_found"
    finally:
        engine.close()


def test_set_catalogs_rebuilds_only_on_change(source_files):
    engine = make_engine(source_files)
    try:
        sources = list(engine._generation.sources)
        generation = engine._generation
        assert engine.set_catalogs(sources) is False and engine._generation is generation
        assert engine.set_catalogs(sources[:1]) is True
        assert engine.catalogs() == ["warehouse"]
        with pytest.raises(EngineError):
            engine.set_catalogs([sources[0], sources[0]])
    finally:
        engine.close()


def test_attach_failure_does_not_echo_the_connection_string(source_files):
    engine = make_engine(source_files)
    try:
        with pytest.raises(EngineError) as failed:
            engine.attach_catalog(
                CatalogSource("broken", "postgres", "host=127.0.0.1 port=1 password=hunter2 connect_timeout=1")
            )
        assert failed.value.code == "catalog_error"
        assert "hunter2" not in failed.value.message
        assert "broken" not in engine.catalogs()
    finally:
        engine.close()


def test_errors_do_not_echo_the_rewritten_statement(engine, analyst):
    with pytest.raises(EngineError) as failed:
        engine.run("SELECT CAST(page AS INTEGER) FROM events", analyst)
    assert failed.value.code == "query_failed"
    for internal in ("region", "wbp_", "LINE", "sha256", "warehouse"):
        assert internal not in failed.value.message
    # Runtime errors quote values; they could come from rows outside the row filter.
    assert "/home" not in failed.value.message and "'…'" in failed.value.message


def test_syntax_errors_have_their_code(engine, analyst):
    for sql in ("SELEC 1", "SELECT FROM WHERE", "", "   "):
        with pytest.raises(EngineError) as refused:
            engine.run(sql, analyst)
        assert refused.value.code == "syntax_error"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + "(" * 2000 + "1" + ")" * 2000,
        "SELECT " + "1 + " * 3000 + "1",
        "SELECT * FROM " + "(SELECT * FROM " * 600 + "events" + ") t" * 600,
        "SELECT 1 -- " + "x" * 300_000,
    ],
    ids=["parentheses", "operators", "subqueries", "too long"],
)
def test_pathological_statements_are_refused_cleanly(engine, analyst, sql):
    with pytest.raises(EngineError) as refused:
        engine.run(sql, analyst)
    assert refused.value.code in {"statement_not_allowed", "syntax_error"}


def test_invalid_catalog_names_are_refused():
    for name in ("memory", "system", "bad name", "x;y", ""):
        with pytest.raises(ValueError):
            CatalogSource(name, "sqlite", "/tmp/x")


def _mariadb_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 3306), timeout=1):
            return True
    except OSError:
        return False


def test_mariadb_attached_read_only_through_the_mysql_scanner(source_files, admin):
    if not _mariadb_reachable():
        if os.environ.get("CI") == "true":
            pytest.fail("MariaDB is not reachable at 127.0.0.1:3306; .ci/run must start it")
        pytest.skip("MariaDB is not reachable at 127.0.0.1:3306")
    table = f"wb_engine_test_{uuid.uuid4().hex[:8]}"
    dsn = "host=127.0.0.1 port=3306 user=root database=test"
    # Fixture data goes in through a separate, writable DuckDB connection.
    writer = duckdb.connect()
    writer.execute(f"LOAD '{extension_path('mysql_scanner')}'")
    writer.execute(f"ATTACH '{dsn}' AS maria (TYPE mysql)")
    writer.execute(f"CREATE TABLE maria.test.{table} (id INTEGER, label VARCHAR(20))")
    writer.execute(f"INSERT INTO maria.test.{table} VALUES (1, 'one'), (2, 'two')")
    engine = make_engine(source_files)
    try:
        engine.attach_catalog(CatalogSource("maria", "mysql", dsn, default_schema="test"))
        reader = UserContext("x", (GroupPermissions("g", frozenset({"crm", "maria"})),), {})
        with pytest.raises(EngineError):  # the admin group does not cover the new catalog
            engine.run(f"SELECT label FROM maria.{table}", admin)
        rows = engine.run(f"SELECT label FROM maria.{table} ORDER BY id", reader)
        assert rows.rows == [("one",), ("two",)]
        federated = engine.run(
            f"""SELECT c.name, m.label FROM crm.customers c JOIN maria.test.{table} m ON m.id = c.id
                ORDER BY c.id""",
            reader,
        )
        assert federated.rows == [("Ann", "one"), ("Bob", "two")]
        with pytest.raises(duckdb.Error):
            internal_connection(engine).execute(f"INSERT INTO maria.test.{table} VALUES (3, 'three')")
    finally:
        engine.close()
        writer.execute(f"DROP TABLE maria.test.{table}")
        writer.close()


def test_concurrent_statements_and_attach_while_running(source_files, tmp_path, analyst, admin):
    """One engine serves many threads; swapping in a new catalog does not disturb them."""
    from concurrent.futures import ThreadPoolExecutor

    engine = make_engine(source_files)
    extra = tmp_path / "late.sqlite"
    connection = sqlite3.connect(extra)
    connection.execute("CREATE TABLE t (x INTEGER)")
    connection.execute("INSERT INTO t VALUES (7)")
    connection.commit()
    connection.close()

    def work(index: int):
        if index == 10:
            engine.attach_catalog(CatalogSource("late", "sqlite", str(extra)))
            return "attached"
        user = analyst if index % 2 else admin
        return engine.run("SELECT count(*) FROM events", user).rows[0][0]

    try:
        with ThreadPoolExecutor(max_workers=6) as pool:
            results = list(pool.map(work, range(40)))
        assert results[10] == "attached"
        assert {r for i, r in enumerate(results) if i != 10 and i % 2} == {3}
        assert {r for i, r in enumerate(results) if i != 10 and not i % 2} == {5}
        reader = UserContext("x", (GroupPermissions("g", frozenset({"late"})),), {})
        assert engine.run("SELECT x FROM late.t", reader).rows == [(7,)]
    finally:
        engine.close()


def test_folder_of_files_becomes_a_catalog(source_files, tmp_path, analyst):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "Campaigns 2026.csv").write_text("campaign,budget\nspring,100\nsummer,250\n")
    writer = duckdb.connect()
    writer.execute(f"COPY (SELECT 1 AS id, 'FR' AS country) TO '{folder / 'geo.parquet'}' (FORMAT parquet)")
    writer.close()
    (folder / "notes.txt").write_text("not a table")
    engine = make_engine(source_files)
    try:
        engine.attach_catalog(CatalogSource("exports", "files", str(folder)))
        reader = UserContext("x", (GroupPermissions("g", frozenset({"exports"})),), {})
        assert engine.run("SELECT sum(budget) FROM exports.campaigns_2026", reader).rows == [(350,)]
        assert engine.run("SELECT country FROM exports.main.geo", reader).rows == [("FR",)]
        # The folder is readable through its views only, never by path.
        with pytest.raises(EngineError) as refused:
            engine.run(f"SELECT * FROM read_csv('{folder / 'Campaigns 2026.csv'}')", reader)
        assert refused.value.code == "function_not_allowed"
        with pytest.raises(EngineError):
            engine.run("SELECT * FROM exports.campaigns_2026", analyst)  # no rule for this catalog
        with pytest.raises(duckdb.Error):
            internal_connection(engine).execute("SELECT * FROM read_csv('/etc/passwd')")
    finally:
        engine.close()


def test_results_have_one_json_form(engine, admin):
    import json

    result = engine.run(
        """SELECT 1.50::DECIMAL(10, 2) AS price, DATE '2026-03-01' AS day, TIMESTAMP '2026-03-01 12:30:00' AS at,
                  INTERVAL 90 SECOND AS pause, '00000000-0000-0000-0000-000000000001'::UUID AS id,
                  'a'::BLOB AS raw, [1, 2] AS list, {'k': 'v'} AS struct, 'nan'::DOUBLE AS nan""",
        admin,
    )
    payload = result.as_json()
    assert json.loads(json.dumps(payload)) == payload
    assert payload["rows"] == [[
        1.5, "2026-03-01", "2026-03-01T12:30:00", 90.0, "00000000-0000-0000-0000-000000000001",
        "YQ==", [1, 2], {"k": "v"}, None,
    ]]
    assert payload["columns"][0] == {"name": "price", "type": "DECIMAL(10,2)"}
    assert payload["truncated"] is False and payload["row_count"] == 1
