"""From a stored source to the engine's CatalogSource (connection string with its password)."""
from __future__ import annotations

import json
from typing import Any

import psycopg.conninfo

from datetime import datetime, timezone

from pipelines.database import bootstrap
from pipelines.lake.layout import STATE_FILE, Lake
from pipelines.settings import Settings
from workbench_app.engine import CatalogSource
from workbench_app.engine.lake_catalog import lake_target
from workbench_app.sources import credentials

WAREHOUSE_SCHEMA = "analytics"


def reads_lake(settings: Settings) -> bool:
    """Whether the warehouse is read from the lake: the setting says so and the lake has tables
    (before the first export, or when its folder is gone, PostgreSQL answers: lake_warning says why)."""
    return settings.workbench_reads == "lake" and bool(Lake(settings.lake_path).analytics_tables())


def lake_warning(settings: Settings) -> str | None:
    """Why the warehouse is read from PostgreSQL although the setting asks for the lake (None otherwise)."""
    if settings.workbench_reads != "lake" or reads_lake(settings):
        return None
    return "The lake has no table yet (or its folder cannot be read): the warehouse is read from PostgreSQL."


def lake_signature(settings: Settings) -> tuple:
    """What the lake views are built from: each table's state file (its time) and the day (the
    views read PostgreSQL for the days the lake lacks). A change rebuilds the engine's views."""
    if settings.workbench_reads != "lake":
        return ()
    lake = Lake(settings.lake_path)
    stamps = []
    for table in lake.analytics_tables():
        try:
            stamps.append((table, (lake.table_dir("analytics", table) / STATE_FILE).stat().st_mtime_ns))
        except OSError:
            stamps.append((table, None))
    return (datetime.now(timezone.utc).date(), tuple(stamps))


def schema_allow_list(kind: str, options: dict[str, Any]) -> tuple[str, ...] | None:
    """The schemas whose tables exist in a source's catalog; None for all of them.

    The warehouse keeps `analytics` unless told otherwise: its read-only role lists the other
    schemas (raw, collect, ...) but can read none of them.
    """
    if options.get("schemas"):
        return tuple(options["schemas"])
    return (WAREHOUSE_SCHEMA,) if kind == "warehouse" else None


def catalog_source(settings: Settings, source: dict[str, Any]) -> CatalogSource:
    """The CatalogSource for a stored source row (raises on an unreadable secret or folder)."""
    options, kind, name = source["options"], source["kind"], source["name"]
    # A connection test passes the password typed (not saved yet) as `password`.
    password = source.get("password") or (
        credentials.unseal_password(settings, source["source_id"], source["sealed_secret"])
        if source.get("sealed_secret") else None)
    schemas = schema_allow_list(kind, options)
    if kind == "warehouse":
        # Read only through the read-only role, whose password is derived from the server secret;
        # through the lake's files where the setting says so and the lake has been written.
        reader = psycopg.conninfo.make_conninfo(bootstrap.database_urls(settings).reader)
        default_schema = options.get("default_schema") or schemas[0]
        if reads_lake(settings):
            return CatalogSource(name, "lake", lake_target(settings.lake_path, reader),
                                 default_schema=default_schema, schemas=schemas)
        return CatalogSource(name, "postgres", reader, default_schema=default_schema, schemas=schemas)
    if kind == "postgres":
        params = {"host": options["host"], "dbname": options["database"], "user": options["user"]}
        if options.get("port"):
            params["port"] = str(options["port"])
        if options.get("sslmode"):
            params["sslmode"] = options["sslmode"]
        if password:
            params["password"] = password
        return CatalogSource(name, "postgres", psycopg.conninfo.make_conninfo(**params),
                             default_schema=options.get("default_schema"), schemas=schemas)
    if kind == "mysql":
        parts = [f"host={options['host']}", f"user={options['user']}", f"database={options['database']}"]
        if options.get("port"):
            parts.append(f"port={options['port']}")
        if password:
            parts.append(f"password={password}")
        return CatalogSource(name, "mysql", " ".join(parts), schemas=schemas,
                             default_schema=options.get("default_schema") or _first(schemas) or options["database"])
    if kind in ("sqlite", "duckdb"):
        return CatalogSource(name, kind, options["path"], default_schema=options.get("default_schema"),
                             schemas=schemas)
    if kind == "files":
        # Each CSV, Parquet or JSON file of the folder is a view of the catalog, read at query time.
        return CatalogSource(name, "files", options["path"], default_schema="main")
    if kind in ("couchdb", "snowflake"):
        # The keyword arguments of the engine's CouchCatalog / SnowflakeCatalog, as JSON.
        arguments = {key: value for key, value in options.items() if key != "schemas"}
        if password:
            arguments["password"] = password
        return CatalogSource(name, kind, json.dumps(arguments, sort_keys=True),
                             default_schema="main" if kind == "couchdb" else _snowflake_schema(options))
    raise ValueError(f"unknown source kind {kind!r}")


def _snowflake_schema(options: dict[str, Any]) -> str | None:
    from workbench_app.engine.snowflake_catalog import engine_name

    return engine_name(options["schema"]) if options.get("schema") else None


def _first(schemas: tuple[str, ...] | None) -> str | None:
    return schemas[0] if schemas else None
