"""What the engine has attached: catalogs, schemas, tables and their columns.

The permission rewrite needs the real column list of every table (to expand
``SELECT *`` without hidden columns) and autocomplete needs names. Both read
this snapshot, which the engine refreshes whenever a catalog is attached or
detached; it is never read from DuckDB on the user's behalf.

DuckDB compares identifiers case-insensitively, quoted or not, so lookups here
are case-insensitive too while the original spelling is kept for generated SQL.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Hashable, Iterable, Iterator, Mapping


@dataclass(frozen=True, order=True)
class TableName:
    """A fully qualified table name, in its original spelling."""

    catalog: str
    schema: str
    name: str

    @property
    def key(self) -> tuple[str, str, str]:
        """Case-insensitive identity used for every comparison."""
        return (self.catalog.lower(), self.schema.lower(), self.name.lower())

    def __str__(self) -> str:
        return f"{self.catalog}.{self.schema}.{self.name}"


@dataclass(frozen=True)
class ColumnInfo:
    """A column of an attached table, with its DuckDB type and comment (from the source)."""

    name: str
    data_type: str
    comment: str | None = None


@dataclass(frozen=True)
class TableInfo:
    """An attached table or view: its name, columns in order, and comment."""

    table: TableName
    columns: tuple[ColumnInfo, ...]
    comment: str | None = None

    def __hash__(self) -> int:
        # Part of the rewrite's cache keys, looked up for every table reference:
        # hashing every column each time would cost more than the lookup saves.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.table, self.columns, self.comment))
            object.__setattr__(self, "_hash", cached)
        return cached

    @functools.cached_property
    def column_keys(self) -> tuple[str, ...]:
        """Column names in lower case, in table order (names compare case-insensitively)."""
        return tuple(column.name.lower() for column in self.columns)

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (case-insensitive), if any."""
        lowered = name.lower()
        for column in self.columns:
            if column.name.lower() == lowered:
                return column
        return None


@dataclass
class SchemaCatalog:
    """An immutable snapshot of attached tables, keyed case-insensitively.

    Its maps are read-only: the rewrite caches whole statements under the
    snapshot's :attr:`fingerprint`, computed once, so a snapshot that changed
    afterwards would be served stale results. The engine builds a new snapshot
    instead.
    """

    tables: Mapping[tuple[str, str, str], TableInfo] = field(default_factory=dict)
    #: The schema an unqualified ``catalog.table`` reference means, per catalog.
    default_schemas: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.tables = MappingProxyType(dict(self.tables))
        self.default_schemas = MappingProxyType(dict(self.default_schemas))

    @classmethod
    def from_tables(
        cls, tables: Iterable[TableInfo], default_schemas: dict[str, str] | None = None
    ) -> "SchemaCatalog":
        """Build a snapshot; default schema per catalog is given or guessed (main/public/only one)."""
        by_key = {info.table.key: info for info in tables}
        schemas_by_catalog: dict[str, set[str]] = {}
        for catalog, schema, _ in by_key:
            schemas_by_catalog.setdefault(catalog, set()).add(schema)
        defaults: dict[str, str] = {}
        for catalog, schemas in schemas_by_catalog.items():
            given = (default_schemas or {}).get(catalog)
            defaults[catalog] = given.lower() if given else _guess_default_schema(schemas)
        for catalog, schema in (default_schemas or {}).items():
            defaults.setdefault(catalog.lower(), schema.lower())
        return cls(by_key, defaults)

    @functools.cached_property
    def fingerprint(self) -> Hashable:
        """Everything a rewrite may read here (every table with its columns, the default
        schemas), as one hashable value: part of the rewrite's statement cache key, so two
        snapshots share entries only when equal."""
        return (frozenset(self.tables.items()), frozenset(self.default_schemas.items()))

    def get(self, table: TableName) -> TableInfo | None:
        """The table with this name (case-insensitive), if attached."""
        return self.tables.get(table.key)

    def __iter__(self) -> Iterator[TableInfo]:
        return iter(self.tables.values())

    def catalogs(self) -> list[str]:
        """Names of the catalogs that have at least one table."""
        return sorted({info.table.catalog for info in self.tables.values()}, key=str.lower)


def _guess_default_schema(schemas: set[str]) -> str:
    if len(schemas) == 1:
        return next(iter(schemas))
    for candidate in ("main", "public"):
        if candidate in schemas:
            return candidate
    return sorted(schemas)[0]


def candidate_names(
    parts: list[str],
    schema: SchemaCatalog,
    default_catalog: str | None,
    default_schema: str | None,
) -> list[TableName]:
    """Fully qualified names a written table reference may mean, most specific first.

    ``table`` means the default catalog and schema; ``first.table`` means schema
    ``first`` of the default catalog, else the default schema of catalog
    ``first``; three parts are taken as written.
    """
    if len(parts) == 3:
        return [TableName(*parts)]
    if len(parts) == 2:
        first, table_name = parts
        found = []
        if default_catalog:
            found.append(TableName(default_catalog, first, table_name))
        catalog_default = schema.default_schemas.get(first.lower())
        if catalog_default:
            found.append(TableName(first, catalog_default, table_name))
        return found
    if len(parts) == 1 and default_catalog:
        schema_name = default_schema or schema.default_schemas.get(default_catalog.lower())
        if schema_name:
            return [TableName(default_catalog, schema_name, parts[0])]
    return []
