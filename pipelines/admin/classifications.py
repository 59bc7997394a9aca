"""Classifications: what a dimension value belongs to, imported from CSV.

CSV columns (header required, any order): `dimension,value,attribute,attribute_value`; for instance
`campaign,spring_fb,product_line,Shoes` says campaign `spring_fb` belongs to product line `Shoes`.
An import is all or nothing: when any line is wrong, the answer lists every wrong line (up to
MAX_REPORTED_ERRORS) and nothing is written. Valid files upsert: an existing
(dimension, value, attribute) gets the new attribute_value.
"""
from __future__ import annotations

import csv
import io
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import require_site
from pipelines.admin.errors import InvalidInput

COLUMNS = ("dimension", "value", "attribute", "attribute_value")
MAX_ROWS = 100_000
MAX_REPORTED_ERRORS = 100
MAX_VALUE_LENGTH = 1000
MAX_VALUE_BYTES = 2000


def parse_csv(data: bytes | str) -> list[tuple[str, str, str, str]]:
    """Rows of a classification CSV, or InvalidInput (code `csv_invalid`) listing the wrong lines."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidInput("the file is not UTF-8 text", {"byte": exc.start}, code="csv_invalid") from None
    elif data.startswith("\ufeff"):
        data = data[1:]
    if "\x00" in data:
        raise InvalidInput("the file contains NUL characters", {}, code="csv_invalid")
    reader = csv.reader(io.StringIO(data, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InvalidInput("the file is empty: expected a header dimension,value,attribute,attribute_value",
                           {"lines": [{"line": 1, "message": "missing header"}]}, code="csv_invalid") from None
    except csv.Error as exc:
        raise InvalidInput(f"the header is not valid CSV: {exc}", {"lines": [{"line": 1, "message": str(exc)}]},
                           code="csv_invalid") from None
    names = [column.strip().lower() for column in header]
    if sorted(names) != sorted(COLUMNS):
        raise InvalidInput("the header must name the columns dimension,value,attribute,attribute_value",
                           {"lines": [{"line": 1, "message": f"got columns {names[:10]}"}]}, code="csv_invalid")
    order = [names.index(column) for column in COLUMNS]

    rows: list[tuple[str, str, str, str]] = []
    errors: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], int] = {}
    error_count = 0

    def fail(line: int, message: str, column: str | None = None) -> None:
        nonlocal error_count
        error_count += 1
        if len(errors) < MAX_REPORTED_ERRORS:
            errors.append({"line": line, "column": column, "message": message})

    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            fail(reader.line_num, f"not valid CSV: {exc}")
            break
        line = reader.line_num
        if not fields or all(not field.strip() for field in fields):
            continue  # blank lines, including a trailing one, are not data
        if len(rows) + error_count >= MAX_ROWS:
            fail(line, f"more than {MAX_ROWS} rows: split the file")
            break
        if len(fields) != len(COLUMNS):
            fail(line, f"expected 4 fields, got {len(fields)}")
            continue
        dimension, value, attribute, attribute_value = (fields[i].strip() for i in order)
        problems = []  # (column, reason)
        if not validation.IDENTIFIER.match(dimension):
            problems.append(("dimension", "dimension must be a lowercase identifier such as campaign or page_path"))
        if not validation.IDENTIFIER.match(attribute):
            problems.append(("attribute", "attribute must be a lowercase identifier such as product_line"))
        # The value is part of the primary key, whose index entries must stay under PostgreSQL's
        # btree limit (about 2,700 bytes): bytes count, not characters.
        if not 1 <= len(value) <= MAX_VALUE_LENGTH or len(value.encode("utf-8")) > MAX_VALUE_BYTES:
            problems.append(("value", f"value must have 1 to {MAX_VALUE_LENGTH} characters ({MAX_VALUE_BYTES} bytes)"))
        if not 1 <= len(attribute_value) <= MAX_VALUE_LENGTH:
            problems.append(("attribute_value", f"attribute_value must have 1 to {MAX_VALUE_LENGTH} characters"))
        if problems:
            # The line's first wrong column names it; the reason lists them all.
            fail(line, "; ".join(reason for _, reason in problems), problems[0][0])
            continue
        key = (dimension, value, attribute)
        if key in seen:
            fail(line, f"same dimension, value and attribute as line {seen[key]}")
            continue
        seen[key] = line
        rows.append((dimension, value, attribute, attribute_value))
    if errors:
        raise InvalidInput(f"{error_count} line{'s' if error_count > 1 else ''} of the file "
                           f"{'are' if error_count > 1 else 'is'} wrong; nothing was imported",
                           {"lines": errors, "error_count": error_count}, code="csv_invalid")
    return rows


def import_csv(conn: psycopg.Connection, site_id: object, data: bytes | str, *, actor: str) -> dict[str, Any]:
    """Validate the whole file, then upsert every row in the caller's transaction."""
    site = require_site(conn, site_id, lock=True)
    rows = parse_csv(data)
    if not rows:
        raise InvalidInput("the file has a header but no rows", {"lines": []}, code="csv_invalid")
    with conn.cursor() as cur:
        cur.executemany(
            """insert into collect.classifications (site_id, dimension, value, attribute, attribute_value)
               values (%s, %s, %s, %s, %s)
               on conflict (site_id, dimension, value, attribute) do update set attribute_value = excluded.attribute_value""",
            [(site, *row) for row in rows],
        )
    dimensions = sorted({row[0] for row in rows})
    audit.record(conn, actor, "classifications.imported", str(site), {"rows": len(rows), "dimensions": dimensions})
    return {"imported": len(rows), "dimensions": dimensions}


def list_classifications(conn: psycopg.Connection, site_id: object, *, dimension: str | None = None,
                         attribute: str | None = None, limit: int = 100, offset: int = 0) -> dict[str, Any]:
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """select dimension, value, attribute, attribute_value, count(*) over () as total
                 from collect.classifications
                where site_id = %s and (%s::text is null or dimension = %s) and (%s::text is null or attribute = %s)
                order by dimension, attribute, value limit %s offset %s""",
            (site, dimension, dimension, attribute, attribute, limit, offset),
        ).fetchall()
    total = rows[0]["total"] if rows else conn.execute(
        """select count(*) from collect.classifications
            where site_id = %s and (%s::text is null or dimension = %s) and (%s::text is null or attribute = %s)""",
        (site, dimension, dimension, attribute, attribute)).fetchone()[0]
    for row in rows:
        del row["total"]
    return {"classifications": rows, "total": total, "limit": limit, "offset": offset}


def delete_classifications(conn: psycopg.Connection, site_id: object, *, dimension: str | None = None,
                           attribute: str | None = None, actor: str) -> int:
    """Delete the site's classifications, all or those of one dimension and/or attribute."""
    site = require_site(conn, site_id, lock=True)
    deleted = conn.execute(
        """delete from collect.classifications
            where site_id = %s and (%s::text is null or dimension = %s) and (%s::text is null or attribute = %s)""",
        (site, dimension, dimension, attribute, attribute),
    ).rowcount
    audit.record(conn, actor, "classifications.deleted", str(site),
                 {"dimension": dimension, "attribute": attribute, "rows": deleted})
    return deleted
