"""Annotations of a site: a dated note (a release, a campaign launch, an outage) shown on charts."""
from __future__ import annotations

import datetime as dt
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.errors import InvalidInput, NotFound

_COLUMNS = "annotation_id as id, on_date as date, text, created_at"


def parse_date(value: Any, field: str) -> dt.date:
    if not isinstance(value, str) or len(value) != 10:
        raise InvalidInput(f"{field} must be a date as YYYY-MM-DD", {"field": field})
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{field} must be a date as YYYY-MM-DD", {"field": field}) from None


def _validated(body: Any) -> tuple[dt.date, str]:
    body = validation.require_object(body)
    validation.reject_unknown(body, ("date", "text"))
    if "date" not in body:
        raise InvalidInput("date is required", {"field": "date"})
    on_date = parse_date(body["date"], "date")
    return on_date, validation.text(body, "text", required=True, min_length=1, max_length=1000, single_line=False)


def list_annotations(conn: psycopg.Connection, site_id: object, *, date_from: dt.date | None = None,
                     date_to: dt.date | None = None) -> list[dict[str, Any]]:
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(
            f"""select {_COLUMNS} from collect.annotations
                 where site_id = %s and (%s::date is null or on_date >= %s) and (%s::date is null or on_date <= %s)
                 order by on_date, created_at, annotation_id""",
            (site, date_from, date_from, date_to, date_to),
        ).fetchall()


def get_annotation(conn: psycopg.Connection, site_id: object, annotation_id: object) -> dict[str, Any]:
    site = require_site(conn, site_id)
    annotation = parse_id(annotation_id, "annotation")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(f"select {_COLUMNS} from collect.annotations where site_id = %s and annotation_id = %s",
                             (site, annotation)).fetchone()
    if record is None:
        raise NotFound("annotation not found", {"annotation_id": str(annotation)})
    return record


def create_annotation(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id)
    on_date, text = _validated(body)
    annotation = conn.execute(
        "insert into collect.annotations (site_id, on_date, text) values (%s, %s, %s) returning annotation_id",
        (site, on_date, text),
    ).fetchone()[0]
    audit.record(conn, actor, "annotation.created", str(annotation), {"site_id": str(site)})
    return get_annotation(conn, site, annotation)


def replace_annotation(conn: psycopg.Connection, site_id: object, annotation_id: object, body: Any, *,
                       actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id)
    existing = get_annotation(conn, site, annotation_id)["id"]
    on_date, text = _validated(body)
    conn.execute("update collect.annotations set on_date = %s, text = %s where annotation_id = %s",
                 (on_date, text, existing))
    audit.record(conn, actor, "annotation.updated", str(existing), {"site_id": str(site)})
    return get_annotation(conn, site, existing)


def delete_annotation(conn: psycopg.Connection, site_id: object, annotation_id: object, *, actor: str) -> None:
    site = require_site(conn, site_id)
    existing = get_annotation(conn, site, annotation_id)["id"]
    conn.execute("delete from collect.annotations where annotation_id = %s", (existing,))
    audit.record(conn, actor, "annotation.deleted", str(existing), {"site_id": str(site)})
