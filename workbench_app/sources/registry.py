"""Sources kept in the metadata database: add, change, remove (administrators; audited).

Each change bumps `source_catalog_version`, which every worker compares before running a
statement, attaching or detaching the difference (see `engine_catalogs`).
"""
from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.errors import WorkbenchError, conflict, invalid, not_found
from workbench_app.records import audit_log
from workbench_app.sources import catalogs, credentials

KINDS = ("postgres", "mysql", "sqlite", "duckdb", "files", "couchdb", "snowflake")
# Kinds whose secret (password) is sealed and stored.
WITH_PASSWORD = ("postgres", "mysql", "couchdb", "snowflake")
ALL_KINDS = ("warehouse",) + KINDS
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
_RESERVED = {"memory", "system", "temp", "main"}
# A value that could not break out of a key=value connection string.
_PLAIN_VALUE = re.compile(r"^[^\s'\"\\=]{1,255}$")
# Schema names are only ever compared with the source's, never put in SQL.
_SCHEMA_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,63}$")
_PUBLIC = "source_id, name, kind, options, sealed_secret is not null as has_password, created_at, updated_at"

# Which options each kind takes, and which are required. `schemas` limits a source to those
# schemas: the tables of the others do not exist in the workbench (see `catalogs.schema_allow_list`).
OPTIONS = {
    "postgres": ({"host", "database", "user"}, {"port", "default_schema", "sslmode", "schemas"}),
    "mysql": ({"host", "database", "user"}, {"port", "default_schema", "schemas"}),
    "sqlite": ({"path"}, set()),
    "duckdb": ({"path"}, {"default_schema", "schemas"}),
    "files": ({"path"}, set()),
    "warehouse": (set(), {"default_schema", "schemas"}),
    "couchdb": ({"url"}, {"user", "databases", "sample_size", "max_rows"}),
    "snowflake": ({"account", "user", "database"}, {"schema", "warehouse", "role", "private_key_path", "max_rows",
                                                     "host", "port", "protocol"}),
}
# Bounds of the document and cloud-warehouse sources' numeric options (see the README).
NUMBER_OPTIONS = {"sample_size": (1, 10_000), "max_rows": (1, 10_000_000)}
MAX_DATABASES = 500
_URL = re.compile(r"^https?://[^\s'\"\\@/?#]{1,255}(/[^\s'\"\\?#]{0,255})?$")
_COUCH_DATABASE = re.compile(r"^[a-z][a-z0-9_$()+/-]{0,237}$")
MAX_SCHEMAS = 100


def bump_version(conn: psycopg.Connection) -> int:
    return conn.execute("update source_catalog_version set version = version + 1 returning version").fetchone()[0]


def current_version(conn: psycopg.Connection) -> int:
    return conn.execute("select version from source_catalog_version").fetchone()[0]


def check_options(kind: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options of a source of `kind`, checked; 400 on anything unknown or malformed."""
    required, optional = OPTIONS[kind]
    unknown = set(options) - required - optional
    if unknown:
        raise invalid(f"Unknown options for a {kind} source: {', '.join(sorted(unknown))}.", options=sorted(unknown))
    missing = required - {k for k, v in options.items() if v not in (None, "")}
    if missing:
        raise invalid(f"A {kind} source needs: {', '.join(sorted(missing))}.", options=sorted(missing))
    checked: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        if key in NUMBER_OPTIONS:
            low, high = NUMBER_OPTIONS[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise invalid(f"{key} must be a number from {low} to {high}.", field=key)
        elif key == "url":
            if not isinstance(value, str) or not _URL.fullmatch(value):
                raise invalid("url must be an http:// or https:// address without credentials.", field="url")
        elif key == "protocol":
            if value not in ("http", "https"):
                raise invalid("protocol must be http or https.", field="protocol")
        elif key == "databases":
            if (not isinstance(value, list) or not 0 < len(value) <= MAX_DATABASES
                    or not all(isinstance(name, str) and _COUCH_DATABASE.fullmatch(name) for name in value)):
                raise invalid(f"databases must be a list of 1 to {MAX_DATABASES} CouchDB database names.",
                              field="databases")
        elif key == "port":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
                raise invalid("port must be a number from 1 to 65535.", field="port")
        elif key in ("path", "private_key_path"):
            if not isinstance(value, str) or not value.startswith("/") or len(value) > 4096 or "\x00" in value:
                raise invalid(f"{key} must be an absolute path on the workbench server.", field=key)
        elif key == "schemas":
            value = _schema_list(value)
        elif not isinstance(value, str) or not _PLAIN_VALUE.fullmatch(value):
            raise invalid(f"{key} must be a plain value without spaces or quotes.", field=key)
        checked[key] = value
    allowed = catalogs.schema_allow_list(kind, checked)
    default = checked.get("default_schema")
    if allowed is not None and default and default.lower() not in {name.lower() for name in allowed}:
        raise invalid("default_schema must be one of the source's schemas.", field="default_schema")
    return checked


def _schema_list(value: Any) -> list[str]:
    if (not isinstance(value, list) or not 0 < len(value) <= MAX_SCHEMAS
            or not all(isinstance(name, str) and _SCHEMA_NAME.fullmatch(name) for name in value)):
        raise invalid(f"schemas must be a list of 1 to {MAX_SCHEMAS} schema names.", field="schemas")
    unique: dict[str, str] = {}
    for name in value:
        unique.setdefault(name.lower(), name)
    return list(unique.values())


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name) or name.lower() in _RESERVED:
        raise invalid("name must be a catalog name: a letter or _, then letters, digits or _ (at most 63).",
                      field="name")
    return name


def list_sources(conn: psycopg.Connection) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_PUBLIC} from sources order by source_id").fetchall()


def get_source(conn: psycopg.Connection, source_id: int) -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        source = cur.execute(f"select {_PUBLIC} from sources where source_id = %s", (source_id,)).fetchone()
    if source is None:
        raise not_found("Source")
    return source


def stored_sources(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """Every source with its sealed secret (for attaching; never returned to a client)."""
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute("select source_id, name, kind, options, sealed_secret from sources order by source_id").fetchall()


def stored_source(conn: psycopg.Connection, source_id: int) -> dict[str, Any]:
    """One source with its sealed secret (for a connection test; never returned to a client)."""
    with conn.cursor(row_factory=dict_row) as cur:
        source = cur.execute("select source_id, name, kind, options, sealed_secret from sources where source_id = %s",
                             (source_id,)).fetchone()
    if source is None:
        raise not_found("Source")
    return source


def check_password_kind(kind: str, password: str | None) -> None:
    if password is not None and kind not in WITH_PASSWORD:
        raise invalid(f"A {kind} source takes no password.", field="password")


def create_source(conn: psycopg.Connection, settings: Settings, actor: Identity, *, name: str, kind: str,
                  options: dict[str, Any], password: str | None) -> dict[str, Any]:
    name = _check_name(name)
    if kind not in KINDS:
        raise invalid(f"kind must be one of {', '.join(KINDS)}.", field="kind")
    options = check_options(kind, options)
    check_password_kind(kind, password)
    if conn.execute("select 1 from sources where lower(name) = lower(%s)", (name,)).fetchone():
        raise conflict("A source with this name exists already.", field="name")
    source_id = conn.execute("insert into sources (name, kind, options, created_by) values (%s, %s, %s, %s) "
                             "returning source_id", (name, kind, Jsonb(options), actor.user_id)).fetchone()[0]
    if password:
        conn.execute("update sources set sealed_secret = %s where source_id = %s",
                     (credentials.seal_password(settings, source_id, password), source_id))
    bump_version(conn)
    audit_log.record(conn, actor.user_id, actor.actor, "source.created", str(source_id),
                     {"name": name, "kind": kind, "options": options})
    return get_source(conn, source_id)


def update_source(conn: psycopg.Connection, settings: Settings, actor: Identity, source_id: int, *,
                  options: dict[str, Any] | None, password: str | None, clear_password: bool = False) -> dict[str, Any]:
    source = get_source(conn, source_id)
    changes: dict[str, Any] = {}
    if options is not None:
        merged = check_options(source["kind"], {**source["options"], **options})
        conn.execute("update sources set options = %s, updated_at = now() where source_id = %s",
                     (Jsonb(merged), source_id))
        changes["options"] = merged
    if password is not None or clear_password:
        check_password_kind(source["kind"], password if password is not None else "")
        sealed = credentials.seal_password(settings, source_id, password) if password else None
        conn.execute("update sources set sealed_secret = %s, updated_at = now() where source_id = %s",
                     (sealed, source_id))
        changes["password"] = "changed" if password else "removed"
    bump_version(conn)
    audit_log.record(conn, actor.user_id, actor.actor, "source.updated", str(source_id), changes)
    return get_source(conn, source_id)


def delete_source(conn: psycopg.Connection, actor: Identity, source_id: int) -> None:
    source = get_source(conn, source_id)
    if source["kind"] == "warehouse":
        raise WorkbenchError(409, "builtin_source", "The analytics warehouse is built in and cannot be removed.")
    conn.execute("delete from sources where source_id = %s", (source_id,))
    bump_version(conn)
    audit_log.record(conn, actor.user_id, actor.actor, "source.removed", str(source_id),
                     {"name": source["name"], "kind": source["kind"]})


def refresh_sources(conn: psycopg.Connection, actor: Identity) -> int:
    """Ask every worker to re-read the sources' tables (after the warehouse gained a view)."""
    version = bump_version(conn)
    audit_log.record(conn, actor.user_id, actor.actor, "source.refreshed", None, {"version": version})
    return version
