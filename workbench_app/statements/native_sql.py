"""Native SQL: a statement sent to a source as written, bypassing the engine's rewrite.

Allowed only to people with no restriction at all on that source (a group granting the whole
catalog without any restricting table rule, or administrators), since no row filter or mask can
apply to SQL the engine does not rewrite. The source is opened read-only, with the engine's time
limit and row limit (`ANALYTICS_WORKBENCH_QUERY_TIMEOUT_SECONDS`, `ANALYTICS_WORKBENCH_ROW_LIMIT`):
PostgreSQL sources (the warehouse as `analytics_reader`) in a read-only transaction,
SQLite files in read-only mode with ATTACH disabled. DuckDB sources speak the engine's own
dialect and MySQL has no native driver here: both are refused (use the SQL endpoint). So is a
source limited to some schemas, since native SQL would reach the others — except the warehouse
limited to `analytics`, the one schema its read-only role can read anyway.
"""
from __future__ import annotations

import sqlite3
import time
from typing import Any

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.engine import CatalogSource, jsonable
from workbench_app.errors import WorkbenchError, forbidden, invalid
from workbench_app.records import query_history
from workbench_app.engine.lake_catalog import lake_postgres_conninfo
from workbench_app.services import WorkbenchServices
from workbench_app.sources.catalogs import WAREHOUSE_SCHEMA
from workbench_app.sources.engine_catalogs import DEFAULT_CATALOG
from workbench_app.statements.query_runner import open_session

def run_native(services: WorkbenchServices, identity: Identity, catalog: str, sql: str, *,
               row_limit: int | None = None) -> dict[str, Any]:
    session = open_session(services, identity)
    if not session.engine.native_sql_allowed(session.user, catalog):
        raise forbidden("Native SQL needs unrestricted access to this source; use the SQL endpoint.")
    source = services.catalogs.attached.get(catalog.lower())
    if source is None:
        raise WorkbenchError(404, "table_not_found", "Source not found.")
    if not _schemas_kept_by_the_source(source):
        raise forbidden("Native SQL is not available for a source limited to some schemas; use the SQL endpoint.")
    most = services.settings.workbench_row_limit
    limit = min(row_limit or most, most)
    timeout = services.settings.workbench_query_timeout_seconds
    started = time.perf_counter()
    try:
        if source.kind in ("postgres", "lake"):
            # The warehouse read through the lake: native SQL is PostgreSQL's, sent to PostgreSQL.
            conninfo = source.target if source.kind == "postgres" else lake_postgres_conninfo(source.target)
            columns, rows = _postgres(conninfo, sql, limit, timeout)
        elif source.kind == "sqlite":
            columns, rows = _sqlite(source.target, sql, limit, timeout)
        else:
            raise invalid("Native SQL is available for PostgreSQL and SQLite sources; use the SQL endpoint.")
    except WorkbenchError as error:
        _record(services, identity, sql, started, None, "refused", error.code)
        raise
    _record(services, identity, sql, started, min(len(rows), limit), "ok", None)
    return {"columns": [{"name": name, "type": kind} for name, kind in columns],
            "rows": [[jsonable(cell) for cell in row] for row in rows[:limit]],
            "row_count": min(len(rows), limit), "truncated": len(rows) > limit,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 2)}


def _schemas_kept_by_the_source(source: CatalogSource) -> bool:
    """Whether the source itself keeps native SQL within the schemas the engine shows of it."""
    if source.schemas is None:
        return True
    # The warehouse is read as analytics_reader, which PostgreSQL lets read `analytics` only.
    return source.name.lower() == DEFAULT_CATALOG and [s.lower() for s in source.schemas] == [WAREHOUSE_SCHEMA]


def _postgres(conninfo: str, sql: str, limit: int, timeout: float):
    try:
        with psycopg.connect(conninfo, connect_timeout=5,
                             options=f"-c statement_timeout={max(1, round(timeout * 1000))}") as conn:
            conn.read_only = True
            with conn.cursor() as cur:
                # Bytes: sent as written (no client-side parameters); prepared: one statement only, so
                # a `COMMIT; ...` cannot leave the read-only transaction.
                cur.execute(sql.encode(), prepare=True)
                if cur.description is None:
                    return [], []
                columns = [(column.name, str(column.type_display)) for column in cur.description]
                return columns, cur.fetchmany(limit + 1)
    except psycopg.errors.QueryCanceled:
        raise WorkbenchError(408, "query_timeout", "The query took too long and was stopped.") from None
    except psycopg.Error as error:
        first_line = (str(error).splitlines() or ["the query failed"])[0]
        raise WorkbenchError(400, "query_failed", f"The source refused the query: {first_line}") from None


def _sqlite(path: str, sql: str, limit: int, timeout: float):
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    try:
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        deadline = time.monotonic() + timeout
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
        cur = conn.execute(sql)
        if cur.description is None:
            return [], []
        columns = [(column[0], "") for column in cur.description]
        return columns, cur.fetchmany(limit + 1)
    except sqlite3.OperationalError as error:
        if time.monotonic() > deadline:  # the progress handler stopped it
            raise WorkbenchError(408, "query_timeout", "The query took too long and was stopped.") from None
        raise WorkbenchError(400, "query_failed", f"The source refused the query: {error}") from None
    except sqlite3.Error as error:
        raise WorkbenchError(400, "query_failed", f"The source refused the query: {error}") from None
    finally:
        conn.close()


def _record(services, identity, sql, started, rows, status, error_code):
    with services.transaction() as conn:
        query_history.record(conn, user_id=identity.user_id, origin="api", sql_text=f"-- native\n{sql}"[:100_000],
                             duration_ms=round((time.perf_counter() - started) * 1000, 3), row_count=rows,
                             status=status, error_code=error_code)
