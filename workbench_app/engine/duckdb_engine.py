"""The federated engine: one DuckDB database per worker, sources attached read-only.

Usage::

    engine = WorkbenchEngine(EngineSettings(default_catalog="warehouse", default_schema="analytics"))
    engine.attach_catalog(CatalogSource("warehouse", "postgres", "host=... dbname=... user=analytics_reader"))
    result = engine.run("SELECT count(*) FROM events", user)

How a database is built (a *generation*): scanners are loaded from their
wheels, memory and thread limits set, every source attached READ_ONLY, the
table snapshot read, and only then ``enable_external_access=false`` and
``lock_configuration=true``. From that point DuckDB refuses file access and
setting changes — but not everything (DESIGN.md: ``ATTACH`` of a SQLite file,
``query()``, ``sqlite_scan``, ``postgres_query`` still run), which is why every
statement first goes through the permission rewrite and its two walls.

A locked database cannot attach a new DuckDB file or server any more, so
attaching or detaching a catalog at run time builds a new generation and swaps
it in; statements already running finish on the old one, which is closed when
the last of them ends. No worker restart is needed.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import duckdb
from sqlglot import exp

from workbench_app.engine.autocomplete import Completion, complete
from workbench_app.engine.cancellation import Cancellation
from workbench_app.engine.couchdb_catalog import CouchCatalog
from workbench_app.engine.external_tables import (
    ExternalCatalog,
    ExternalTable,
    PreparedStatement,
    SourceUnavailable,
    create_placeholders,
    prepare,
)
from workbench_app.engine.catalog_schema import ColumnInfo, SchemaCatalog, TableInfo, TableName, candidate_names
from workbench_app.engine.dialect import DIALECT
from workbench_app.engine.errors import (
    CATALOG_ERROR,
    COLUMN_NOT_FOUND,
    FUNCTION_NOT_ALLOWED,
    MEMORY_LIMIT_EXCEEDED,
    QUERY_CANCELLED,
    QUERY_FAILED,
    QUERY_TIMEOUT,
    TABLE_NOT_FOUND,
    EngineError,
)
from pipelines.lake.layout import ANALYTICS
from workbench_app.engine.lake_catalog import TableFreshness, attach_lake, lake_root_of, lake_table_of_error
from workbench_app.engine.offline_extensions import EXTENSION_FOR_SOURCE_KIND, load_extension
from workbench_app.engine.permissions import (
    UserContext,
    VisibleColumn,
    native_sql_allowed,
    table_access,
    visible_schema,
)
from workbench_app.engine.result_values import jsonable_rows
from workbench_app.engine.rewrite import RewriteOptions, RewrittenStatement, rewrite_statement
from workbench_app.engine.variables import bind_variables

log = logging.getLogger(__name__)

SOURCE_KINDS = ("duckdb", "sqlite", "postgres", "mysql", "files", "couchdb", "snowflake", "lake")
# Sources read through Python and handed to DuckDB as Arrow per statement (external_tables.py).
EXTERNAL_KINDS = ("couchdb", "snowflake")
# Readers of a "files" source (a folder of CSV/Parquet/JSON files), by extension.
FILE_READERS = {
    ".csv": "read_csv",
    ".tsv": "read_csv",
    ".parquet": "read_parquet",
    ".json": "read_json_auto",
    ".jsonl": "read_json_auto",
    ".ndjson": "read_json_auto",
}
_CATALOG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}\Z")
# Names DuckDB uses for itself; a source may not take them.
_RESERVED_CATALOGS = frozenset({"memory", "system", "temp", "main"})
# Schemas of a source that describe the server rather than hold data.
_SYSTEM_SCHEMAS = {
    "postgres": {"information_schema", "pg_catalog", "pg_toast"},
    "mysql": {"information_schema", "mysql", "performance_schema", "sys"},
    "duckdb": {"information_schema", "pg_catalog"},
    "sqlite": {"information_schema", "pg_catalog"},
    "files": {"information_schema", "pg_catalog"},
    "couchdb": {"information_schema", "pg_catalog"},
    "snowflake": {"information_schema", "pg_catalog"},
    "lake": {"information_schema", "pg_catalog", "pg_toast"},
}


@dataclass(frozen=True)
class CatalogSource:
    """A source attached as a catalog.

    ``target`` is a file path (``duckdb``, ``sqlite``), a folder (``files``: each
    CSV, TSV, Parquet or JSON file directly in it becomes a table ``<name>.main.<file stem>``)
    or a connection string (``postgres``: libpq key=value or URI; ``mysql``:
    ``host=... user=... database=...``); for ``lake``, the JSON of the lake's folder and the
    warehouse's connection string (lake_catalog.py); for ``couchdb`` and ``snowflake``, the JSON
    object of the keyword arguments of :class:`CouchCatalog` / :class:`SnowflakeCatalog`
    (``snowflake`` takes ``private_key_path`` for key-pair authentication).
    It may hold a password: it is never logged nor put in an error message.

    ``schemas``, when given, are the only schemas whose tables exist (case-insensitive):
    the others are left out of the engine's snapshot, so for every user they are not in
    any listing and naming one of their tables is "table not found". The warehouse lists
    schemas its read-only role cannot read (``raw``, ``collect``...): it keeps ``analytics``.
    """

    name: str
    kind: str
    target: str = field(repr=False)
    default_schema: str | None = None
    schemas: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not _CATALOG_NAME.match(self.name) or self.name.lower() in _RESERVED_CATALOGS:
            raise ValueError(f"invalid catalog name {self.name!r}")
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"unknown source kind {self.kind!r}")
        if self.schemas is not None:
            schemas = tuple(self.schemas)
            if not schemas or not all(isinstance(name, str) and name for name in schemas):
                raise ValueError("schemas must name at least one schema")
            object.__setattr__(self, "schemas", schemas)
            if self.default_schema and self.default_schema.lower() not in {name.lower() for name in schemas}:
                raise ValueError(f"default schema {self.default_schema!r} is not among the schemas")

    def has_schema(self, schema: str) -> bool:
        """Whether tables of ``schema`` exist in this catalog (system schemas never do)."""
        lowered = schema.lower()
        if lowered in _SYSTEM_SCHEMAS[self.kind]:
            return False
        return self.schemas is None or lowered in {name.lower() for name in self.schemas}


@dataclass(frozen=True)
class EngineSettings:
    """Limits and defaults of one engine (one per worker)."""

    timeout_seconds: float = 30.0
    row_limit: int = 10_000
    memory_limit: str = "1GB"
    threads: int | None = None
    default_catalog: str | None = None
    default_schema: str | None = None
    #: Key for ``hash`` masks; set it from the workbench secret.
    mask_salt: str = ""
    #: Where DuckDB spills large sorts and joins (e.g. under ANALYTICS_HOME); None keeps DuckDB's default.
    temp_directory: str | None = None


@dataclass(frozen=True)
class QueryResult:
    """Rows of one statement; ``truncated`` when the row limit cut the result."""

    columns: list[str]
    column_types: list[str]
    rows: list[tuple]
    truncated: bool
    elapsed_seconds: float
    rewrite_seconds: float
    tables: tuple[TableName, ...]

    def as_json(self) -> dict[str, Any]:
        """The result as a JSON-serialisable object (columns, types, rows, truncated, timings)."""
        return {
            "columns": [{"name": name, "type": kind} for name, kind in zip(self.columns, self.column_types)],
            "rows": jsonable_rows(self.rows),
            "row_count": len(self.rows),
            "truncated": self.truncated,
            "elapsed_ms": round(self.elapsed_seconds * 1000, 3),
        }


class _Generation:
    """One locked DuckDB database with a fixed set of catalogs."""

    def __init__(self, settings: EngineSettings, sources: Sequence[CatalogSource]):
        self.sources = tuple(sources)
        self.connection = duckdb.connect(
            ":memory:",
            config={
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "allow_community_extensions": False,
            },
        )
        self.running = 0
        self.retired = False
        # Per lake catalog (lowercased): each table's freshness (lake_catalog.TableFreshness).
        self.lake_freshness: dict[str, dict[str, TableFreshness]] = {}
        # Lowercased catalog name -> (catalog, {(schema, table) lowercased: ExternalTable}).
        self.external: dict[str, tuple[ExternalCatalog, dict[tuple[str, str], ExternalTable]]] = {}
        try:
            self._configure(settings)
            self.schema = self._read_schema()
            # Last: after these two, DuckDB refuses file access and setting changes.
            self.connection.execute("SET enable_external_access = false")
            self.connection.execute("SET lock_configuration = true")
        except Exception:
            self.close()
            raise

    @property
    def lake_roots(self) -> list[Path]:
        return [lake_root_of(source.target) for source in self.sources if source.kind == "lake"]

    def close(self) -> None:
        self.connection.close()
        for catalog, _ in self.external.values():
            getattr(catalog, "close", lambda: None)()

    def _configure(self, settings: EngineSettings) -> None:
        con = self.connection
        con.execute(f"SET memory_limit = '{_sql_string(settings.memory_limit)}'")
        if settings.threads:
            con.execute(f"SET threads = {int(settings.threads)}")
        if settings.temp_directory:
            con.execute(f"SET temp_directory = '{_sql_string(settings.temp_directory)}'")
        needed = {EXTENSION_FOR_SOURCE_KIND.get(source.kind) for source in self.sources} - {None}
        for extension in sorted(needed):
            load_extension(con, extension)
        for source in self.sources:
            if source.kind in EXTERNAL_KINDS:
                catalog = _open_external(source)
                self.external[source.name.lower()] = (
                    catalog, {(t.schema.lower(), t.name.lower()): t for t in catalog.tables()})
                create_placeholders(con, source.name, catalog.tables())
            elif source.kind == "lake":
                self.lake_freshness[source.name.lower()] = _attach_lake(con, source)
            else:
                _attach(con, source)
        # Once external access is off, DuckDB reads files only under these folders.
        folders = [source.target for source in self.sources if source.kind == "files"]
        folders += [str(root / ANALYTICS) for root in self.lake_roots]
        if folders:
            # The views of "files" and "lake" sources keep working, nothing else does.
            listed = ", ".join(f"'{_sql_string(str(Path(f).resolve()) + '/')}'" for f in folders)
            con.execute(f"SET allowed_directories = [{listed}]")

    def _read_schema(self) -> SchemaCatalog:
        names = {source.name.lower(): source for source in self.sources}
        if not names:
            return SchemaCatalog()
        rows = self.connection.execute(
            """
            SELECT c.database_name, c.schema_name, c.table_name, c.column_name, c.data_type, c.comment,
                   coalesce(t.comment, v.comment)
            FROM duckdb_columns() c
            LEFT JOIN duckdb_tables() t USING (database_name, schema_name, table_name)
            LEFT JOIN duckdb_views() v
              ON v.database_name = c.database_name AND v.schema_name = c.schema_name AND v.view_name = c.table_name
            ORDER BY c.database_name, c.schema_name, c.table_name, c.column_index
            """
        ).fetchall()
        tables: dict[tuple[str, str, str], tuple[TableName, list[ColumnInfo], str | None]] = {}
        for database, schema, table, column, data_type, column_comment, table_comment in rows:
            source = names.get(str(database).lower())
            if source is None or not source.has_schema(str(schema)):
                continue
            entry = tables.setdefault(
                (database, schema, table), (TableName(source.name, schema, table), [], table_comment)
            )
            entry[1].append(ColumnInfo(column, str(data_type), column_comment))
        return SchemaCatalog.from_tables(
            (TableInfo(name, tuple(columns), comment) for name, columns, comment in tables.values()),
            {s.name.lower(): s.default_schema for s in self.sources if s.default_schema},
        )


def _sql_string(value: str) -> str:
    return value.replace("'", "''")


def _open_external(source: CatalogSource) -> ExternalCatalog:
    """Connect to a CouchDB or Snowflake source and read its tables (EngineError with the reason)."""
    try:
        return open_external_catalog(source.kind, json.loads(source.target))
    except SourceUnavailable as error:
        raise EngineError(CATALOG_ERROR, f"Could not attach catalog {source.name!r} ({source.kind}): {error}.") from None


def open_external_catalog(kind: str, options: dict) -> ExternalCatalog:
    """A CouchDB or Snowflake catalog with its tables read (SourceUnavailable with the reason)."""
    if kind == "couchdb":
        return CouchCatalog(**options)
    from workbench_app.engine.snowflake_catalog import SnowflakeCatalog  # the connector is slow to import

    key_path = options.pop("private_key_path", None)
    if key_path:
        options["private_key"] = _private_key(key_path)
    return SnowflakeCatalog(**options)


def _private_key(path: str):
    from cryptography.hazmat.primitives import serialization

    try:
        return serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        raise SourceUnavailable("the private key file cannot be read (an unencrypted PEM key)") from None


def _attach_lake(connection: duckdb.DuckDBPyConnection, source: CatalogSource) -> dict[str, TableFreshness]:
    try:
        return attach_lake(connection, source.name, source.target, source.schemas)
    except duckdb.Error as error:
        log.warning("attaching catalog %s (lake) failed: %s", source.name, type(error).__name__)
        raise EngineError(CATALOG_ERROR, f"Could not attach catalog {source.name!r} ({source.kind}).") from None


def _attach(connection: duckdb.DuckDBPyConnection, source: CatalogSource) -> None:
    if source.kind == "files":
        _attach_folder(connection, source)
        return
    options = {"duckdb": "READ_ONLY", "sqlite": "TYPE sqlite, READ_ONLY"}.get(
        source.kind, f"TYPE {source.kind}, READ_ONLY"
    )
    try:
        connection.execute(f"ATTACH '{_sql_string(source.target)}' AS \"{source.name}\" ({options})")
    except duckdb.Error as error:
        # The driver's message can echo the connection string: keep only its kind.
        log.warning("attaching catalog %s (%s) failed: %s", source.name, source.kind, type(error).__name__)
        raise EngineError(CATALOG_ERROR, f"Could not attach catalog {source.name!r} ({source.kind}).") from None


def _attach_folder(connection: duckdb.DuckDBPyConnection, source: CatalogSource) -> None:
    """Expose a folder's data files as views of an in-memory catalog named after the source."""
    folder = Path(source.target).resolve()
    if not folder.is_dir():
        raise EngineError(CATALOG_ERROR, f"Could not attach catalog {source.name!r} (files): no such folder.")
    connection.execute(f'ATTACH \':memory:\' AS "{source.name}"')
    taken: set[str] = set()
    for path in sorted(folder.iterdir()):
        reader = FILE_READERS.get(path.suffix.lower())
        if reader is None or not path.is_file():
            continue
        table = re.sub(r"[^a-z0-9_]+", "_", path.stem.lower()).strip("_") or "file"
        if table in taken:
            continue  # same stem twice (a.csv, a.parquet): the first one wins
        taken.add(table)
        try:
            connection.execute(
                f'CREATE VIEW "{source.name}".main."{table}" AS '
                f"SELECT * FROM {reader}('{_sql_string(str(path))}')"
            )
            connection.execute(f'SELECT * FROM "{source.name}".main."{table}" LIMIT 0')
        except duckdb.Error:
            log.warning("catalog %s: file %s could not be read, skipped", source.name, path.name)
            connection.execute(f'DROP VIEW IF EXISTS "{source.name}".main."{table}"')


class WorkbenchEngine:
    """A worker's engine: attach sources, and run users' statements under their permissions."""

    def __init__(self, settings: EngineSettings | None = None, sources: Sequence[CatalogSource] = ()):
        settings = settings or EngineSettings()
        if not settings.mask_salt:
            # An unkeyed hash of an email can be reversed by hashing guesses: fail
            # closed with a random key (hashes then change when the worker restarts).
            log.warning("no mask salt configured: hash masks use a random key for this process")
            settings = dataclasses.replace(settings, mask_salt=secrets.token_hex(32))
        self.settings = settings
        self._lock = threading.Lock()
        self._generation = _Generation(self.settings, sources)

    # --- catalogs -----------------------------------------------------------------------

    @property
    def schema(self) -> SchemaCatalog:
        """The tables and columns of every attached catalog (not filtered by user)."""
        return self._generation.schema

    def lake_freshness(self) -> dict[str, dict[str, TableFreshness]]:
        """Per lake catalog (lowercased name), where each table is read from and how fresh it is."""
        return self._generation.lake_freshness

    def catalogs(self) -> list[str]:
        """Names of the attached catalogs."""
        return [source.name for source in self._generation.sources]

    def attach_catalog(self, source: CatalogSource) -> None:
        """Attach (or re-attach with new settings) a source as a read-only catalog, without restart."""
        sources = [s for s in self._generation.sources if s.name.lower() != source.name.lower()]
        self._swap(sources + [source])

    def detach_catalog(self, name: str) -> None:
        """Remove a catalog; statements already running on it finish first."""
        sources = [s for s in self._generation.sources if s.name.lower() != name.lower()]
        if len(sources) == len(self._generation.sources):
            raise EngineError(CATALOG_ERROR, f"Catalog {name!r} is not attached.")
        self._swap(sources)

    def set_catalogs(self, sources: Sequence[CatalogSource]) -> bool:
        """Make the attached catalogs exactly ``sources`` (one rebuild at most).

        For workers that sync with the sources table of the metadata database:
        returns True when something changed and the database was rebuilt.
        """
        wanted = {source.name.lower(): source for source in sources}
        if len(wanted) != len(sources):
            raise EngineError(CATALOG_ERROR, "Two sources have the same catalog name.")
        current = {source.name.lower(): source for source in self._generation.sources}
        if wanted == current:
            return False
        self._swap(list(sources))
        return True

    def refresh_schema(self) -> None:
        """Re-read the sources' tables (after the warehouse gained a view, for instance)."""
        self._swap(list(self._generation.sources))

    def _swap(self, sources: list[CatalogSource]) -> None:
        fresh = _Generation(self.settings, sources)
        with self._lock:
            old, self._generation = self._generation, fresh
            old.retired = True
            close_now = old.running == 0
        if close_now:
            old.close()

    # --- statements ---------------------------------------------------------------------

    def _options(self) -> RewriteOptions:
        return RewriteOptions(
            default_catalog=self.settings.default_catalog,
            default_schema=self.settings.default_schema,
            mask_salt=self.settings.mask_salt,
        )

    def rewrite(
        self,
        sql: str,
        user: UserContext,
        variables: Mapping[str, Any] | None = None,
        variable_types: Mapping[str, str] | None = None,
        row_limit: int | None = None,
    ) -> RewrittenStatement:
        """Bind variables and apply the user's permissions; returns the SQL that would run.

        The rewritten SQL contains row filters and masks: log it for
        administrators if needed, never show it to the user.
        """
        bound = bind_variables(sql, variable_types, variables)
        return rewrite_statement(
            bound.sql, user, self.schema, self._options(), parameters=bound.parameters, row_limit=row_limit
        )

    def run(
        self,
        sql: str,
        user: UserContext,
        variables: Mapping[str, Any] | None = None,
        variable_types: Mapping[str, str] | None = None,
        row_limit: int | None = None,
        timeout_seconds: float | None = None,
        row_ceiling: int | None = None,
        cancellation: Cancellation | None = None,
    ) -> QueryResult:
        """Run one read statement as ``user``; raise :class:`EngineError` when refused or failed.

        ``variables``/``variable_types`` fill ``{{name}}`` placeholders (see
        :mod:`variables`). ``row_limit`` and ``timeout_seconds`` default to the
        engine settings and may only lower them; ``row_ceiling`` replaces the
        settings' row limit (CSV downloads have a bound of their own). ``cancellation``, when
        given, stops the statement from another thread (``query_cancelled``).
        """
        ceiling = self.settings.row_limit if row_ceiling is None else row_ceiling
        limit = ceiling if row_limit is None else min(row_limit, ceiling)
        timeout = (
            self.settings.timeout_seconds
            if timeout_seconds is None
            else min(timeout_seconds, self.settings.timeout_seconds)
        )
        with self._lock:
            generation = self._generation
            generation.running += 1
        try:
            bound = bind_variables(sql, variable_types, variables)
            statement = rewrite_statement(
                bound.sql,
                user,
                generation.schema,
                self._options(),
                parameters=bound.parameters,
                row_limit=limit + 1,
            )
            return self._execute(generation, statement, limit, timeout, cancellation or Cancellation())
        finally:
            with self._lock:
                generation.running -= 1
                close_now = generation.retired and generation.running == 0
            if close_now:
                generation.close()

    def _execute(
        self, generation: _Generation, statement: RewrittenStatement, limit: int, timeout: float,
        cancellation: Cancellation,
    ) -> QueryResult:
        started = time.perf_counter()
        prepared = self._fetch_external(generation, statement, timeout)
        if cancellation.cancelled:
            raise _cancelled()
        cursor = generation.connection.cursor()
        for name, rows in prepared.arrow_tables.items():
            cursor.register(name, rows)  # this cursor only: other statements cannot see them
        timed_out = threading.Event()

        def interrupt() -> None:
            timed_out.set()
            cursor.interrupt()

        timer = threading.Timer(max(0.0, timeout - (time.perf_counter() - started)), interrupt)
        timer.start()
        cancellation.on_cancel(cursor.interrupt)
        try:
            cursor.execute(prepared.sql, statement.parameters or None)
            description = cursor.description or []
            rows = cursor.fetchall()
        except duckdb.Error as error:
            if cancellation.cancelled and not timed_out.is_set():
                raise _cancelled() from None
            raise _engine_error(error, timed_out.is_set(), generation.lake_roots) from None
        finally:
            cancellation.on_cancel(None)
            timer.cancel()
            cursor.close()
        elapsed = time.perf_counter() - started
        return QueryResult(
            columns=[column[0] for column in description],
            column_types=[str(column[1]) for column in description],
            rows=rows[:limit],
            truncated=len(rows) > limit,
            elapsed_seconds=elapsed,
            rewrite_seconds=statement.rewrite_seconds,
            tables=statement.tables,
        )

    @staticmethod
    def _fetch_external(generation: _Generation, statement: RewrittenStatement, timeout: float) -> PreparedStatement:
        """Rows of the CouchDB/Snowflake tables the statement reads, after its rewrite (external_tables)."""
        if not generation.external or not any(t.catalog.lower() in generation.external for t in statement.tables):
            return PreparedStatement(statement.sql, {})
        return prepare(statement.sql, statement.parameters, generation.external, time.monotonic() + timeout)

    # --- what the user may see ----------------------------------------------------------

    def visible_catalogs(self, user: UserContext) -> list[str]:
        """Catalogs in which the user may read at least one table (for a list of data sources)."""
        return sorted({info.table.catalog for info, _ in self.visible_tables(user)}, key=str.lower)

    def visible_tables(self, user: UserContext) -> list[tuple[TableInfo, list[VisibleColumn]]]:
        """Tables the user may read with the columns that exist for them (for schema browsers)."""
        return visible_schema(user, self.schema)

    def describe_table(self, user: UserContext, name: str) -> tuple[TableInfo, list[VisibleColumn]]:
        """A table as the user sees it, named as in SQL (``events``, ``crm.customers``...).

        Raises ``table_not_found`` for a table that does not exist or that the user may not read.
        """
        try:
            table = exp.to_table(name, dialect=DIALECT)
        except Exception:
            raise EngineError(TABLE_NOT_FOUND, f"Table {name!r} not found.") from None
        written = [table.args.get("catalog"), table.args.get("db"), table.this]
        identifiers = [part for part in written if part is not None]
        if not all(isinstance(part, exp.Identifier) for part in identifiers):
            raise EngineError(TABLE_NOT_FOUND, f"Table {name!r} not found.")
        parts = [part.name for part in identifiers]
        defaults = (self.settings.default_catalog, self.settings.default_schema)
        for candidate in candidate_names(parts, self.schema, *defaults):
            info = self.schema.get(candidate)
            if info is None:
                continue
            access = table_access(user, info)
            if access is not None:
                return info, access.visible_columns()
        raise EngineError(TABLE_NOT_FOUND, f"Table {name!r} not found.")

    def complete(self, sql: str, cursor_position: int, user: UserContext) -> list[Completion]:
        """Autocomplete suggestions at ``cursor_position`` in ``sql`` for ``user``."""
        return complete(
            sql,
            cursor_position,
            user,
            self.schema,
            default_catalog=self.settings.default_catalog,
            default_schema=self.settings.default_schema,
        )

    def native_sql_allowed(self, user: UserContext, catalog: str) -> bool:
        """Whether ``user`` may send native SQL to ``catalog`` (no restriction on it)."""
        return catalog.lower() in {c.lower() for c in self.catalogs()} and native_sql_allowed(user, catalog)

    def close(self) -> None:
        """Close the DuckDB database (statements still running are interrupted)."""
        with self._lock:
            self._generation.retired = True
            self._generation.close()


_COLUMN_PATTERNS = (
    re.compile(r'Referenced column "([^"]+)" not found'),
    re.compile(r'does not have a column named "([^"]+)"'),
    re.compile(r'Column "([^"]+)" does not exist on (?:left|right) side of join'),
    re.compile(r'Values list "[^"]*" does not have a column named "([^"]+)"'),
    re.compile(r'Column "([^"]+)" referenced that exists in the SELECT clause - but this column cannot be'),
)


def _cancelled() -> EngineError:
    return EngineError(QUERY_CANCELLED, "The query was cancelled.")


def _engine_error(error: duckdb.Error, timed_out: bool, lake_roots: Sequence[Path] = ()) -> EngineError:
    """Translate a DuckDB error into an EngineError without echoing the rewritten SQL."""
    damaged = lake_table_of_error(str(error), list(lake_roots))
    if damaged:
        return EngineError(QUERY_FAILED, f"The lake's files of table {damaged} cannot be read (a damaged or missing "
                                         "file); the next refresh of the lake rewrites them.")
    if isinstance(error, duckdb.InterruptException) or timed_out:
        return EngineError(QUERY_TIMEOUT, "The query took too long and was stopped.")
    if isinstance(error, duckdb.OutOfMemoryException):
        return EngineError(MEMORY_LIMIT_EXCEEDED, "The query needed more memory than allowed.")
    # DuckDB appends "LINE n: <sql>" with the rewritten text (row filters,
    # masks): only the first line of the message may reach the user.
    text = str(error).split("\n", 1)[0].strip()
    for pattern in _COLUMN_PATTERNS:
        match = pattern.search(str(error))
        if match:
            return EngineError(COLUMN_NOT_FOUND, f"Column {match.group(1)!r} not found.")
    if isinstance(error, duckdb.CatalogException):
        if "Function" in text or "function" in text:
            return EngineError(FUNCTION_NOT_ALLOWED, "This function is not allowed.")
        return EngineError(TABLE_NOT_FOUND, "Table not found.")
    text = re.sub(r'"?wbp_[0-9a-f]+_\w+"?', "?", text)
    return EngineError(QUERY_FAILED, _without_values(text) or "The query failed.")


def _without_values(message: str) -> str:
    """Drop data values from a runtime error message.

    DuckDB quotes the offending value ("Could not convert string 'x' to
    INT32"). That value may come from a row the user's row filter excludes,
    since DuckDB has no security barrier to stop a user's predicate from
    being evaluated before the filter: so values never reach the user.
    """
    message = re.sub(r"'(?:[^']|'')*'", "'…'", message)
    return re.sub(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])", "…", message)
