"""Where the database is and how to connect to it.

One function decides between the configured server and the embedded one, so that every
component (collector, workbench, Dagster, dbt, tests) reaches the same database the same way.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import parse_qs, quote, unquote, urlsplit, urlunsplit

import psycopg
from psycopg import sql

from pipelines.database import embedded
from pipelines.settings import Settings

READER_ROLE = "analytics_reader"


class DatabaseUnavailable(RuntimeError):
    """The database cannot be reached (stopped, not started, wrong URL)."""


@dataclass(frozen=True)
class ConnectionParts:
    """A URL split into the fields that libpq-style clients (dbt, DuckDB) want separately."""

    host: str
    port: int
    user: str
    password: str
    database: str


def server_url(settings: Settings, database: str | None = None, start_embedded: bool = False) -> str:
    """URL of `database` (default: the analytics database) on the configured or embedded server."""
    if settings.database_url:
        return with_database(settings.database_url, database) if database else settings.database_url
    if start_embedded:
        state = embedded.start(settings.pgdata)
    else:
        state = embedded.status(settings.pgdata)
        if not state.running:
            raise DatabaseUnavailable(
                f"the embedded PostgreSQL under {settings.pgdata} is not running (start it with `analytics db start`)"
            )
    return state.url(database or settings.database_name)


def with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def with_user(url: str, user: str, password: str | None) -> str:
    """The same server URL logging in as another role."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    credentials = quote(user, safe="")
    if password is not None:
        credentials += ":" + quote(password, safe="")
    return urlunsplit((parts.scheme, f"{credentials}@{host}", parts.path, parts.query, parts.fragment))


def split_url(url: str) -> ConnectionParts:
    """Host (or socket directory), port, user, password and database of a PostgreSQL URL."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "localhost"])[0]
    port = int(query.get("port", [parts.port or 5432])[0])
    return ConnectionParts(
        host=host,
        port=port,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        database=unquote(parts.path.lstrip("/")) or "postgres",
    )


def connect(url: str, *, autocommit: bool = False, connect_timeout: int = 5, **kwargs) -> psycopg.Connection:
    """Open a psycopg connection, turning connection failures into DatabaseUnavailable."""
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=connect_timeout, **kwargs)
    except psycopg.OperationalError as exc:
        raise DatabaseUnavailable(str(exc).strip()) from None


def ensure_database(url: str, database: str) -> bool:
    """Create `database` on the server of `url` if it is missing. Returns True when created."""
    with connect(with_database(url, "postgres"), autocommit=True) as conn:
        exists = conn.execute("select 1 from pg_database where datname = %s", (database,)).fetchone()
        if exists:
            return False
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(database)))
        return True


def database_status(url: str) -> dict:
    """What /healthz reports: reachable or not, with the server version and round-trip time."""
    started = time.perf_counter()
    try:
        with connect(url, connect_timeout=2) as conn:
            version = conn.execute("show server_version").fetchone()[0]
    except (DatabaseUnavailable, psycopg.Error) as exc:
        return {"status": "unavailable", "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
    return {"status": "ok", "server_version": version,
            "latency_ms": round((time.perf_counter() - started) * 1000, 1)}
