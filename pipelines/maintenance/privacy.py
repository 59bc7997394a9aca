"""Processing of export and erasure requests (collect.privacy_requests).

An export writes the person's events as JSON lines under `$ANALYTICS_HOME/exports/`. An erasure
deletes the person's rows from raw.events and from every derived table (incremental ones
included: views follow by themselves). Once a request is done its identifier is forgotten:
`subject_value` is cleared and only the keyed hash stays. Both are audited without the identifier.

The person is found by `user_id` or by `visitor` (the `_vis` cookie value). For a user id, the
visitor ids seen together with it (their cookie, their daily hashes) belong to the same person
and are erased too.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pipelines import audit
from pipelines.admin.privacy_requests import export_path
from pipelines.lake.export import LakeWriter, lake_of
from pipelines.lake.privacy import PersonIds, erase_from_lake, person_in_lake, person_in_postgres
from pipelines.maintenance.warehouse_tables import derived_tables
from pipelines.settings import Settings


@dataclass(frozen=True)
class Subject:
    """Identifiers of one person on one site."""

    site_id: str
    user_ids: tuple[str, ...]
    visitor_ids: tuple[str, ...]


def resolve_subject(conn: psycopg.Connection, site_id, subject_kind: str, subject_value: str) -> Subject:
    """The person's user ids and visitor ids as raw.events knows them."""
    if subject_kind == "user_id":
        visitor_ids = [v for (v,) in conn.execute(
            """select distinct visitor_id from raw.events
                where site_id = %s and user_id = %s and visitor_id is not null""",
            (site_id, subject_value))]
        return Subject(str(site_id), (subject_value,), tuple(visitor_ids))
    if subject_kind == "visitor":
        return Subject(str(site_id), (), (subject_value,))
    raise ValueError(f"unknown subject kind {subject_kind!r}")


def _person_conditions(columns: frozenset[str], subject: "Subject") -> tuple[list[sql.Composable], list]:
    """SQL conditions (and their values) matching the person's rows in a table with `columns`."""
    conditions, values = [], []
    if "user_id" in columns:
        conditions.append(sql.SQL("user_id = any(%s)"))
        values.append(list(subject.user_ids))
    if "visitor_id" in columns:
        conditions.append(sql.SQL("visitor_id = any(%s)"))
        values.append(list(subject.visitor_ids))
    return conditions, values


def _on_site(table, conditions: list[sql.Composable]) -> sql.Composable:
    either = sql.SQL("({})").format(sql.SQL(" or ").join(conditions))
    return sql.SQL("site_id = %s and {}").format(either) if "site_id" in table.columns else either


def _site_values(table, subject: Subject) -> list:
    return [subject.site_id] if "site_id" in table.columns else []


def export_person(conn: psycopg.Connection, subject: Subject, path) -> int:
    """Write every raw event of the person to `path` as JSON lines; returns the row count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".jsonl.partial")
    count = 0
    with open(partial, "w", encoding="utf-8") as handle, conn.cursor() as cur:
        cur.execute(
            """select to_jsonb(e)
                 from raw.events e
                where e.site_id = %s and (e.user_id = any(%s) or e.visitor_id = any(%s))
                order by e.occurred_at, e.event_id""",
            (subject.site_id, list(subject.user_ids), list(subject.visitor_ids)))
        for (row,) in cur:
            handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            count += 1
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(partial, 0o600)
    os.replace(partial, path)
    return count


def erase_person(conn: psycopg.Connection, subject: Subject) -> dict[str, int]:
    """Delete the person's rows from raw.events and every derived table, in one transaction.

    Returns the number of rows deleted per table. Rows without the person's ids but about their
    visits (conversions, attribution touches, orders) are found by visit id.
    """
    user_ids, visitor_ids = list(subject.user_ids), list(subject.visitor_ids)
    deleted: dict[str, int] = {}
    with conn.transaction():
        tables = derived_tables(conn)
        visit_ids: set[str] = set()
        for table in tables:
            conditions, values = _person_conditions(table.columns, subject)
            if "visit_id" not in table.columns or not conditions:
                continue
            rows = conn.execute(
                sql.SQL("select distinct visit_id from {} where {}").format(
                    sql.Identifier(table.schema, table.name), _on_site(table, conditions)),
                [*_site_values(table, subject), *values]).fetchall()
            visit_ids.update(v for (v,) in rows if v is not None)
        deleted["raw.events"] = conn.execute(
            "delete from raw.events where site_id = %s and (user_id = any(%s) or visitor_id = any(%s))",
            (subject.site_id, user_ids, visitor_ids)).rowcount
        for table in tables:
            conditions, values = _person_conditions(table.columns, subject)
            for column in table.visit_columns:
                conditions.append(sql.SQL("{} = any(%s)").format(sql.Identifier(column)))
                values.append(sorted(visit_ids))
            if not conditions:
                continue
            count = conn.execute(
                sql.SQL("delete from {} where {}").format(
                    sql.Identifier(table.schema, table.name), _on_site(table, conditions)),
                [*_site_values(table, subject), *values]).rowcount
            if count:
                deleted[f"{table.schema}.{table.name}"] = count
    return deleted


def erase_everywhere(conn: psycopg.Connection, settings: Settings, subject: Subject) -> tuple[dict, dict]:
    """Erase the person from PostgreSQL, then from every lake file that holds them (found by
    searching the files, rewritten from PostgreSQL), holding the lake writers' lock throughout so
    that no refresh writes them back in between. LakeErasureIncomplete when a file still holds them."""
    lake = lake_of(settings)
    if not lake.root.is_dir():
        return erase_person(conn, subject), {}
    ids = PersonIds(subject.site_id, set(subject.user_ids), set(subject.visitor_ids))
    person_in_postgres(conn, ids)
    with LakeWriter(settings, lake=lake).open() as writer:
        person_in_lake(writer, ids)
        deleted = erase_person(conn, subject)
        return deleted, erase_from_lake(writer, ids)


def _claim_next(conn: psycopg.Connection) -> dict[str, Any] | None:
    with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
        request = cur.execute(
            """select request_id, site_id, kind, subject_kind, subject_value
                 from collect.privacy_requests
                where state = 'pending' and subject_value is not null
                order by requested_at
                limit 1
                  for update skip locked""").fetchone()
        if request:
            cur.execute("update collect.privacy_requests set state = 'running' where request_id = %s",
                        (request["request_id"],))
    return request


def process_request(conn: psycopg.Connection, settings: Settings, request: dict[str, Any],
                    actor: str = "maintenance") -> dict[str, Any]:
    """Carry out one claimed request; returns its result (also stored on the request)."""
    subject = resolve_subject(conn, request["site_id"], request["subject_kind"], request["subject_value"])
    if request["kind"] == "export":
        path = export_path(settings, request["request_id"])
        rows = export_person(conn, subject, path)
        result = {"export_file": str(path.relative_to(settings.home)), "rows": rows}
    else:
        deleted, lake_files = erase_everywhere(conn, settings, subject)
        result = {"rows_deleted": sum(deleted.values()), "tables": deleted,
                  "lake_partitions_rewritten": sum(lake_files.values())}
    with conn.transaction():
        conn.execute(
            """update collect.privacy_requests
                  set state = 'done', completed_at = %s, result = %s, subject_value = null
                where request_id = %s""",
            (datetime.now(timezone.utc), Jsonb(result), request["request_id"]))
        audit.record(conn, actor, f"privacy_request.{request['kind']}_done", str(request["request_id"]),
                     {"site_id": str(request["site_id"]), **{k: v for k, v in result.items() if k != "tables"}})
    return result


def process_privacy_requests(conn: psycopg.Connection, settings: Settings, limit: int = 100) -> list[dict[str, Any]]:
    """Process pending requests, oldest first. A failed request is marked failed and audited."""
    processed = []
    for _ in range(limit):
        request = _claim_next(conn)
        if request is None:
            break
        try:
            result = process_request(conn, settings, request)
            processed.append({"request_id": str(request["request_id"]), "kind": request["kind"], "state": "done",
                              **{k: v for k, v in result.items() if k != "tables"}})
        except Exception as exc:  # one bad request must not block the others
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
            with conn.transaction():
                conn.execute(
                    """update collect.privacy_requests set state = 'failed', completed_at = now(), result = %s
                        where request_id = %s""",
                    (Jsonb({"error": type(exc).__name__}), request["request_id"]))
                audit.record(conn, "maintenance", f"privacy_request.{request['kind']}_failed",
                             str(request["request_id"]), {"error": type(exc).__name__})
            processed.append({"request_id": str(request["request_id"]), "kind": request["kind"], "state": "failed"})
    return processed
