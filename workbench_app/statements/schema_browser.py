"""What a person may see of the attached catalogs: datasources, tables, columns.

Built from the engine's `visible_tables`, so hidden tables and columns never appear, and masked
columns are marked as such.
"""
from __future__ import annotations

from typing import Any

from workbench_app.statements.query_runner import Session


def _visible(session: Session):
    """The person's tables (the warehouse's schemas other than `analytics` are not even attached)."""
    return session.engine.visible_tables(session.user)


def datasources(session: Session) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for info, _ in _visible(session):
        counts[info.table.catalog] = counts.get(info.table.catalog, 0) + 1
    return [{"name": name, "tables": counts[name]} for name in sorted(counts, key=str.lower)]


def _freshness(session: Session, info) -> dict[str, Any] | None:
    """Where a table of a lake catalog is read from and how fresh that is (None elsewhere)."""
    fresh = session.engine.lake_freshness().get(info.table.catalog.lower(), {}).get(info.table.name)
    return fresh.as_json() if fresh else None


def _table(info, columns, with_columns: bool, freshness: dict[str, Any] | None = None) -> dict[str, Any]:
    table = {"catalog": info.table.catalog, "schema": info.table.schema, "table": info.table.name,
             "description": info.comment}
    if freshness:
        table["freshness"] = freshness
    if with_columns:
        table["columns"] = [{"name": c.name, "type": c.data_type, "masked": c.masked, "description": c.comment}
                            for c in columns]
    return table


def tables(session: Session, catalog: str | None = None, with_columns: bool = True) -> list[dict[str, Any]]:
    return [_table(info, columns, with_columns, _freshness(session, info)) for info, columns in _visible(session)
            if catalog is None or info.table.catalog.lower() == catalog.lower()]


def search(session: Session, text: str, limit: int = 50) -> list[dict[str, Any]]:
    """Tables and columns whose name or description contains `text` (case-insensitive)."""
    needle = text.lower()
    found = []
    for info, columns in _visible(session):
        table_hit = needle in info.table.name.lower() or needle in (info.comment or "").lower()
        matching = [c for c in columns if needle in c.name.lower() or needle in (c.comment or "").lower()]
        if table_hit or matching:
            entry = _table(info, matching if not table_hit else columns, True, _freshness(session, info))
            entry["matched"] = "table" if table_hit else "columns"
            found.append(entry)
        if len(found) >= limit:
            break
    return found


def describe(session: Session, name: str) -> dict[str, Any] | None:
    """One table by `table`, `schema.table` or `catalog.schema.table` (None when not visible)."""
    parts = [part.strip('"').lower() for part in name.split(".")]
    default_catalog = session.engine.settings.default_catalog or ""
    default_schema = session.engine.settings.default_schema or ""
    for info, columns in _visible(session):
        key = info.table.key
        if (len(parts) == 3 and tuple(parts) == key) or \
           (len(parts) == 2 and ((key[1], key[2]) == tuple(parts) or (key[0], key[2]) == tuple(parts))) or \
           (len(parts) == 1 and key == (default_catalog.lower(), default_schema.lower(), parts[0])):
            return _table(info, columns, True, _freshness(session, info))
    return None
