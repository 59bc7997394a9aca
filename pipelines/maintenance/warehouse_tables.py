"""The tables dbt builds (staging, intermediate, marts), found from the catalog.

Erasure and retention must reach every derived table, incremental ones included, without a list
that goes stale when a model is added: they ask PostgreSQL which tables have which columns.
"""
from __future__ import annotations

from dataclasses import dataclass

import psycopg

DERIVED_SCHEMAS = ("staging", "intermediate", "marts")


@dataclass(frozen=True)
class DerivedTable:
    schema: str
    name: str
    columns: frozenset[str]

    @property
    def visit_columns(self) -> list[str]:
        """Columns holding a visit id (visit_id, conversion_visit_id, ...)."""
        return sorted(column for column in self.columns if column.endswith("visit_id"))


def derived_tables(conn: psycopg.Connection) -> list[DerivedTable]:
    """Every ordinary or partitioned table of the dbt schemas, with its column names."""
    rows = conn.execute(
        """select n.nspname, c.relname, array_agg(a.attname::text)
             from pg_class c
             join pg_namespace n on n.oid = c.relnamespace
             join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
            where n.nspname = any(%s) and c.relkind in ('r', 'p') and not c.relispartition
            group by n.nspname, c.relname
            order by n.nspname, c.relname""",
        (list(DERIVED_SCHEMAS),),
    ).fetchall()
    return [DerivedTable(schema, name, frozenset(columns)) for schema, name, columns in rows]
