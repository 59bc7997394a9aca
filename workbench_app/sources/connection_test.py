""""Test connection": reach a source as it is (or would be) configured and say why it fails.

Used before saving (the Sources screen's "Test" button) and on a saved source. Each kind is
reached with the driver the engine itself uses (psycopg for PostgreSQL, DuckDB's MySQL scanner,
the CouchDB and Snowflake catalogs), briefly, and the failure is sorted into one of a few
reasons a person can act on. The drivers' own texts are never passed on: they can echo the
connection string and its password.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import re
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import psycopg

from pipelines.settings import Settings
from workbench_app.engine import CatalogSource
from workbench_app.engine.external_tables import SourceUnavailable
from workbench_app.engine.lake_catalog import lake_postgres_conninfo
from workbench_app.engine.offline_extensions import load_extension
from workbench_app.errors import WorkbenchError
from workbench_app.sources import catalogs

log = logging.getLogger(__name__)

CONNECT_SECONDS = 5

# Each reason's refusal (its message is in the catalogues, so it is answered translated). It is
# not raised: a test that found the source unreachable has worked, so the status is unused.
_FAILURES = {
    "unreachable": lambda: WorkbenchError(
        200, "source_unreachable", "The server cannot be reached: check the host, the port or the address."),
    "authentication_failed": lambda: WorkbenchError(
        200, "source_authentication_failed", "Authentication failed: the user or the password was refused."),
    "database_not_found": lambda: WorkbenchError(
        200, "source_database_not_found", "The server has no such database."),
    "path_not_found": lambda: WorkbenchError(
        200, "source_path_not_found", "There is no such file or folder on the workbench server."),
    "unreadable": lambda: WorkbenchError(
        200, "source_unreadable", "The file cannot be read as a database of this kind."),
    "failed": lambda: WorkbenchError(200, "source_connection_failed", "The connection failed for another reason."),
}
REASONS = tuple(_FAILURES)


class ConnectionProblem(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def failure(reason: str) -> WorkbenchError:
    error = _FAILURES[reason]()
    error.details = {"reason": reason}
    return error


def run_test(settings: Settings, name: str, kind: str, options: dict[str, Any], password: str | None) -> dict:
    """`{"ok": true, "tables": n}` or `{"ok": false, "error": {code, message, details: {reason}}}`.

    `options` are checked already (registry.check_options); `name` only names the catalog."""
    source = catalogs.catalog_source(settings, {"source_id": None, "name": name, "kind": kind, "options": options,
                                                "sealed_secret": None, "password": password})
    try:
        tables = _TESTS[source.kind](source)  # the warehouse is a postgres or a lake source
    except ConnectionProblem as problem:
        return {"ok": False, "error": failure(problem.reason)}
    return {"ok": True, "tables": tables}


def _postgres(source: CatalogSource) -> int:
    try:
        with psycopg.connect(source.target, connect_timeout=CONNECT_SECONDS, autocommit=True) as conn:
            return conn.execute("select count(*) from information_schema.tables where table_schema not in "
                                "('pg_catalog', 'information_schema')").fetchone()[0]
    except psycopg.Error as error:
        raise ConnectionProblem(_postgres_reason(error)) from None


def _postgres_reason(error: psycopg.Error) -> str:
    state = getattr(error, "sqlstate", None)
    text = str(error)
    if state in ("28P01", "28000") or re.search(r"password authentication failed|no password supplied|"
                                                r"role \S+ does not exist|authentication", text, re.I):
        return "authentication_failed"
    if state == "3D000" or re.search(r"database \S+ does not exist", text, re.I):
        return "database_not_found"
    if isinstance(error, psycopg.OperationalError):
        return "unreachable"
    return "failed"


def _mysql(source: CatalogSource) -> int:
    # The engine reads MySQL through DuckDB's scanner: the test goes the same way.
    with duckdb.connect(":memory:", config={"autoinstall_known_extensions": False,
                                            "autoload_known_extensions": False}) as con:
        load_extension(con, "mysql_scanner")
        try:
            con.execute(f"ATTACH '{_sql_string(source.target)}' AS probe (TYPE mysql, READ_ONLY)")
            return con.execute("select count(*) from duckdb_tables() where database_name = 'probe'").fetchone()[0]
        except duckdb.Error as error:
            raise ConnectionProblem(_mysql_reason(str(error))) from None


def _mysql_reason(text: str) -> str:
    if re.search(r"Access denied", text, re.I):
        return "authentication_failed"
    if re.search(r"Unknown database", text, re.I):
        return "database_not_found"
    if re.search(r"Can't connect|Unknown (MySQL|MariaDB) server host|Lost connection|timed out|refused", text, re.I):
        return "unreachable"
    log.warning("MySQL connection test failed: %s", type(text).__name__)
    return "failed"


def _external(source: CatalogSource) -> int:
    from workbench_app.engine.duckdb_engine import open_external_catalog

    arguments = json.loads(source.target)
    # A test reads as little as it can: one document per database, a short wait.
    arguments["connect_timeout"] = float(CONNECT_SECONDS)
    if source.kind == "couchdb":
        arguments["sample_size"] = 1
    try:
        catalog = open_external_catalog(source.kind, arguments)
    except SourceUnavailable as error:
        raise ConnectionProblem(error.reason) from None
    try:
        return len(catalog.tables())
    finally:
        getattr(catalog, "close", lambda: None)()


def _sqlite(source: CatalogSource) -> int:
    path = _existing(source.target, folder=False)
    try:
        with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=CONNECT_SECONDS) as conn:
            return conn.execute("select count(*) from sqlite_master where type in ('table', 'view')").fetchone()[0]
    except sqlite3.Error:
        raise ConnectionProblem("unreadable") from None


def _duckdb(source: CatalogSource) -> int:
    path = _existing(source.target, folder=False)
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            return con.execute("select count(*) from duckdb_tables() union all "
                               "select count(*) from duckdb_views() where not internal").fetchall()[0][0]
    except duckdb.Error:
        raise ConnectionProblem("unreadable") from None


def _files(source: CatalogSource) -> int:
    from workbench_app.engine.duckdb_engine import FILE_READERS

    folder = _existing(source.target, folder=True)
    try:
        return sum(1 for path in folder.iterdir() if path.suffix.lower() in FILE_READERS and path.is_file())
    except OSError:
        raise ConnectionProblem("unreadable") from None


def _existing(path: str, *, folder: bool) -> Path:
    found = Path(path)
    if not (found.is_dir() if folder else found.is_file()):
        raise ConnectionProblem("path_not_found")
    return found


def _sql_string(value: str) -> str:
    return value.replace("'", "''")


def _lake(source: CatalogSource) -> int:
    """The warehouse read through the lake: the PostgreSQL behind it must answer (files need no login)."""
    return _postgres(dataclasses.replace(source, kind="postgres", target=lake_postgres_conninfo(source.target)))


_TESTS = {"postgres": _postgres, "mysql": _mysql, "couchdb": _external, "snowflake": _external,
          "sqlite": _sqlite, "duckdb": _duckdb, "files": _files, "lake": _lake}
