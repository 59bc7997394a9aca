"""The warehouse read from the lake: one view per analytics table over its Parquet files.

A `lake` source is the warehouse seen through the lake (pipelines/lake/layout.py): the
PostgreSQL warehouse is attached under a hidden name (never in the engine's table snapshot, so no
statement can name it), and the catalog the analysts see holds one view per analytics table with
the same name, columns and comments as PostgreSQL's:

- a table the lake has: its files, read with partition pruning (`site_id`, `day` in the folder
  names) and filter pushdown; when the lake lacks the newest days (the refresh after a build has
  not run yet, or an event view's today, which PostgreSQL has as it arrives), those days come
  from PostgreSQL;
- a table the lake lacks, or cannot read (no file yet, a damaged state): PostgreSQL's view, with
  a warning in the log and in the table's freshness.

The permission rewrite sees only the catalog's names: row filters and masks apply to these views
exactly as they did to PostgreSQL's.
"""
from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import duckdb

from pipelines.lake.layout import ANALYTICS, DATA_FILE, SITE_DAY, WHOLE, Lake, TableState
from pipelines.lake.tables import LIVE_PREFIX

log = logging.getLogger(__name__)

HIDDEN_SUFFIX = "__postgres"


@dataclass(frozen=True)
class TableFreshness:
    """Where a table of the catalog is read from, and how fresh that is (shown in the Data screen)."""

    source: str  # "lake", "lake+postgres" or "postgres"
    refreshed_at: str | None = None
    newest_day: str | None = None
    postgres_from: str | None = None
    warning: str | None = None

    def as_json(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


def lake_target(lake_root: Path, postgres_conninfo: str) -> str:
    """The CatalogSource target of a lake source."""
    return json.dumps({"lake": str(lake_root), "postgres": postgres_conninfo}, sort_keys=True)


def lake_root_of(target: str) -> Path:
    return Path(json.loads(target)["lake"])


def lake_postgres_conninfo(target: str) -> str:
    """The warehouse's own connection string (native SQL is PostgreSQL's, sent to PostgreSQL)."""
    return json.loads(target)["postgres"]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def attach_lake(connection: duckdb.DuckDBPyConnection, name: str, target: str,
                schemas: tuple[str, ...] | None, today: date | None = None) -> dict[str, TableFreshness]:
    """Attach PostgreSQL hidden and create the catalog `name` of lake views; returns each table's freshness."""
    options = json.loads(target)
    lake = Lake(Path(options["lake"]))
    hidden = name + HIDDEN_SUFFIX
    connection.execute(f"ATTACH {_literal(options['postgres'])} AS {_quote(hidden)} (TYPE postgres, READ_ONLY)")
    connection.execute(f"ATTACH ':memory:' AS {_quote(name)}")
    today = today or datetime.now(timezone.utc).date()
    freshness: dict[str, TableFreshness] = {}
    wanted = {schema.lower() for schema in schemas} if schemas else None
    for schema, table, columns, table_comment, column_comments in _postgres_tables(connection, hidden):
        if wanted is not None and schema.lower() not in wanted:
            continue
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {_quote(name)}.{_quote(schema)}")
        view = f"{_quote(name)}.{_quote(schema)}.{_quote(table)}"
        postgres_select = f"SELECT * FROM {_quote(hidden)}.{_quote(schema)}.{_quote(table)}"
        state = lake.read_state(ANALYTICS, table) if schema == ANALYTICS else None
        fresh = TableFreshness("postgres", warning=None if state else "not in the lake yet")
        body = postgres_select
        if state is not None:
            if [list(c) for c in state.columns] != [list(c) for c in columns]:
                fresh = TableFreshness("postgres", state.refreshed_at, state.newest_day,
                                       warning="the lake has an older shape of this table (refreshed at the next build)")
            else:
                body, fresh = _lake_select(lake, state, postgres_select, today)
        try:
            connection.execute(f"CREATE VIEW {view} AS {body}")
            connection.execute(f"SELECT * FROM {view} LIMIT 0")
        except duckdb.Error as error:
            log.warning("lake table %s.%s cannot be read (%s): read from PostgreSQL", schema, table,
                        type(error).__name__)
            connection.execute(f"CREATE OR REPLACE VIEW {view} AS {postgres_select}")
            fresh = TableFreshness("postgres", state.refreshed_at if state else None,
                                   warning="the lake's files of this table cannot be read")
        if fresh.warning and state is not None:
            log.warning("lake table %s.%s: %s", schema, table, fresh.warning)
        _comment(connection, view, table_comment, column_comments)
        freshness[table] = fresh
    return freshness


def _lake_select(lake: Lake, state: TableState, postgres_select: str, today: date) -> tuple[str, TableFreshness]:
    """The view over the table's files, with PostgreSQL's rows of the days the lake lacks."""
    folder = lake.table_dir(ANALYTICS, state.table)
    columns = ", ".join(_quote(column) for column, _ in state.columns)
    if not state.extra.get("files"):
        # No file (an empty table): the right columns and types, no row.
        files = "SELECT " + ", ".join(f"CAST(NULL AS {kind}) AS {_quote(name)}" for name, kind in state.columns) \
            + " WHERE false"
    elif state.layout == WHOLE:
        files = f"SELECT {columns} FROM read_parquet({_literal(str(folder / DATA_FILE))})"
    else:
        hive_types = {"day": "DATE"}
        if state.layout == SITE_DAY:
            hive_types["site_id"] = dict(state.columns)["site_id"]
        listed_types = ", ".join(f"{_literal(k)}: {v}" for k, v in hive_types.items())
        files = (f"SELECT {columns} FROM read_parquet({_literal(str(folder / '**' / '*.parquet'))}, "
                 f"hive_partitioning = true, hive_types = {{{listed_types}}})")
    if state.layout == WHOLE:
        return files, TableFreshness("lake", state.refreshed_at, state.newest_day)
    # The lake holds PostgreSQL's rows as of its refresh: every day up to the refresh's is complete
    # then. Later days come from PostgreSQL (the refresh of a new day has not run yet); for an event
    # view, the refresh's day too (PostgreSQL has its events as they arrive).
    refreshed_day = datetime.fromisoformat(state.refreshed_at).astimezone(timezone.utc).date()
    cut = refreshed_day if state.table.startswith(LIVE_PREFIX) else refreshed_day + timedelta(days=1)
    if cut > today:
        return files, TableFreshness("lake", state.refreshed_at, state.newest_day)
    start = datetime(cut.year, cut.month, cut.day, tzinfo=timezone.utc).isoformat()
    kind = dict(state.columns)[state.day_column].upper()
    bound = f"DATE {_literal(cut.isoformat())}" if kind == "DATE" else f"TIMESTAMPTZ {_literal(start)}"
    return (f"SELECT * FROM ({files}) WHERE {_quote(state.day_column)} < {bound} UNION ALL "
            f"SELECT {columns} FROM ({postgres_select}) WHERE {_quote(state.day_column)} >= {bound}",
            TableFreshness("lake+postgres", state.refreshed_at, state.newest_day, postgres_from=cut.isoformat()))


def _postgres_tables(connection: duckdb.DuckDBPyConnection, hidden: str):
    """(schema, table, [(column, type)], table comment, {column: comment}) of the hidden catalog."""
    rows = connection.execute(
        """SELECT c.schema_name, c.table_name, c.column_name, c.data_type, c.comment,
                  coalesce(t.comment, v.comment)
             FROM duckdb_columns() c
             LEFT JOIN duckdb_tables() t USING (database_name, schema_name, table_name)
             LEFT JOIN duckdb_views() v
               ON v.database_name = c.database_name AND v.schema_name = c.schema_name AND v.view_name = c.table_name
            WHERE c.database_name = ? AND c.schema_name NOT IN ('information_schema', 'pg_catalog')
            ORDER BY c.schema_name, c.table_name, c.column_index""", [hidden]).fetchall()
    tables: dict[tuple[str, str], tuple[list, str | None, dict]] = {}
    for schema, table, column, data_type, column_comment, table_comment in rows:
        entry = tables.setdefault((schema, table), ([], table_comment, {}))
        entry[0].append([column, str(data_type)])
        if column_comment:
            entry[2][column] = column_comment
    for (schema, table), (columns, comment, column_comments) in tables.items():
        yield schema, table, columns, comment, column_comments


def _comment(connection: duckdb.DuckDBPyConnection, view: str, table_comment: str | None,
             column_comments: dict[str, str]) -> None:
    if table_comment:
        connection.execute(f"COMMENT ON VIEW {view} IS {_literal(table_comment)}")
    for column, comment in column_comments.items():
        connection.execute(f"COMMENT ON COLUMN {view}.{_quote(column)} IS {_literal(comment)}")


def lake_table_of_error(message: str, lake_roots: list[Path]) -> str | None:
    """The analytics table whose lake file an error message names (a damaged or vanished file)."""
    for root in lake_roots:
        marker = str(root / ANALYTICS) + "/"
        at = message.find(marker)
        if at >= 0:
            return message[at + len(marker):].split("/", 1)[0]
    return None
