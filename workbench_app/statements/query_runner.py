"""Running a statement for a person: the one path from every entry point to the engine.

The SQL endpoint, saved questions, dashboards, metrics and the agent tool server all call
`run_for`, which reads the person's rights fresh, runs the statement through the engine's
permission rewrite, and records the run in the query history (refusals included).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import psycopg

from workbench_app.accounts.identity import Identity
from workbench_app.engine import Cancellation, EngineError, QueryResult, UserContext, WorkbenchEngine
from workbench_app.errors import WorkbenchError
from workbench_app.permissions.permission_rules import user_context
from workbench_app.records import query_history
from workbench_app.running_statements import RunningStatements
from workbench_app.services import WorkbenchServices

_STATUS_FOR_CODE = {"table_not_found": 404, "column_not_found": 400, "query_timeout": 408, "query_cancelled": 409,
                    "catalog_error": 503, "memory_limit_exceeded": 413}


@dataclass(frozen=True)
class Session:
    """An engine and a person's permissions, read together for one request."""

    engine: WorkbenchEngine
    user: UserContext


def open_session(services: WorkbenchServices, identity: Identity, conn: psycopg.Connection | None = None) -> Session:
    """The engine and `identity`'s permissions, read in `conn`'s transaction or a transaction of their own."""
    if conn is None:
        with services.transaction() as own:
            return open_session(services, identity, own)
    engine = services.catalogs.current(conn)
    return Session(engine, user_context(conn, identity, engine.catalogs()))


def engine_refusal(error: EngineError) -> WorkbenchError:
    return WorkbenchError(_STATUS_FOR_CODE.get(error.code, 400), error.code, public_message(error.message),
                          dict(error.details))


def public_message(message: str) -> str:
    """A source's refusal without the statement the scanner sent it.

    DuckDB's PostgreSQL scanner quotes the `COPY (SELECT ...)` it sent, which holds the pushed-down
    row filters and masks: only the remote server's own error may reach the user.
    """
    if "COPY (" not in message and "Failed to prepare" not in message and "Failed to execute" not in message:
        return message
    _, marker, remote = message.rpartition("ERROR:")
    detail = remote.strip() if marker else ""
    return "The source refused the query" + (f": {detail}" if detail else ".")


def run_for(services: WorkbenchServices, identity: Identity, sql: str, *, origin: str,
            variables: Mapping[str, Any] | None = None, variable_types: Mapping[str, str] | None = None,
            row_limit: int | None = None, question_id: int | None = None,
            statement_id: str | None = None) -> dict[str, Any]:
    """Run one statement as `identity`; returns columns, rows and timing, or raises WorkbenchError.

    With a `statement_id`, the person may stop it from another request (`cancel`).
    """
    return run_statement(services, identity, sql, origin=origin, variables=variables,
                         variable_types=variable_types, row_limit=row_limit, question_id=question_id,
                         statement_id=statement_id).as_json()


def run_statement(services: WorkbenchServices, identity: Identity, sql: str, *, origin: str,
                  variables: Mapping[str, Any] | None = None, variable_types: Mapping[str, str] | None = None,
                  row_limit: int | None = None, question_id: int | None = None,
                  row_ceiling: int | None = None, statement_id: str | None = None) -> QueryResult:
    """`run_for`'s engine result, for callers that write rows themselves (CSV downloads)."""
    session = open_session(services, identity)
    started = time.perf_counter()
    try:
        with _cancellable(services, identity, statement_id) as cancellation:
            result = session.engine.run(sql, session.user, variables=variables, variable_types=variable_types,
                                        row_limit=row_limit, row_ceiling=row_ceiling, cancellation=cancellation)
    except EngineError as error:
        _record(services, identity, origin, sql, started, None, _history_status(error.code), error.code,
                question_id)
        raise engine_refusal(error) from None
    _record(services, identity, origin, sql, started, len(result.rows), "ok", None, question_id)
    return result


def cancel(services: WorkbenchServices, identity: Identity, statement_id: str) -> None:
    """Stop the person's statement `statement_id` in whichever worker runs it (no-op when it has ended)."""
    with services.transaction() as conn:
        RunningStatements.publish_cancel(conn, identity.user_id, statement_id)


@contextmanager
def _cancellable(services: WorkbenchServices, identity: Identity,
                 statement_id: str | None) -> Iterator[Cancellation | None]:
    if statement_id is None:
        yield None
        return
    with services.running_statements.running(identity.user_id, statement_id) as cancellation:
        yield cancellation


def _history_status(code: str) -> str:
    if code == "query_cancelled":
        return "cancelled"
    if code in ("query_failed", "query_timeout", "memory_limit_exceeded", "catalog_error"):
        return "failed"
    return "refused"


def _record(services: WorkbenchServices, identity: Identity, origin: str, sql: str, started: float,
            rows: int | None, status: str, error_code: str | None, question_id: int | None) -> None:
    # Its own transaction: a refused statement is recorded even though the request fails.
    with services.transaction() as conn:
        query_history.record(conn, user_id=identity.user_id, origin=origin, sql_text=sql[:100_000],
                             duration_ms=round((time.perf_counter() - started) * 1000, 3), row_count=rows,
                             status=status, error_code=error_code, question_id=question_id)
