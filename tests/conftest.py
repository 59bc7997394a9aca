"""Shared fixtures: one real PostgreSQL for the session, a fresh migrated database per test.

Without ANALYTICS_TEST_DATABASE_URL the session starts an embedded PostgreSQL (pgserver's
binaries) in a temporary directory, as a user's machine would. Each test database is cloned
from a template migrated once, which takes a fraction of a second.
"""
from __future__ import annotations

import os
import shutil
import socket
import tempfile
import uuid
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from pipelines.database import connection, embedded, migrate
from pipelines.key_derivation import reader_password
from pipelines.settings import Settings

TEST_SECRET = "test-server-secret-not-for-production"
REPO_ROOT = Path(__file__).resolve().parent.parent


def require_tool(path: str, why: str) -> str:
    """Skip when a system tool is missing, except in CI (CI=true), where the test must fail."""
    found = shutil.which(path) or (path if os.path.exists(path) else None)
    if found:
        return found
    message = f"{path} is not installed ({why})"
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; .ci/run must install it")
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def product_home() -> Path:
    """An ANALYTICS_HOME for a test that starts its own embedded PostgreSQL.

    Outside pytest's temp folders: pytest resets their root to mode 0700 when another session
    starts, which locks out the unprivileged user PostgreSQL runs as when tests run as root.
    """
    root = Path(tempfile.mkdtemp(prefix="analytics-test-home-"))
    yield root / "home"
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    """URL of the `postgres` database of the session's PostgreSQL server."""
    configured = os.environ.get("ANALYTICS_TEST_DATABASE_URL")
    if configured:
        yield connection.with_database(configured, "postgres")
        return
    # Not under pytest's tmp_path: a concurrent pytest session prunes old basetemp folders,
    # and would delete the data directory under a running server.
    root = Path(tempfile.mkdtemp(prefix="analytics-test-pg-"))
    pgdata = root / "pgdata"
    # fsync off: a test cluster is thrown away, so crash safety buys nothing here.
    state = embedded.start(pgdata, extra_settings={"fsync": "off", "synchronous_commit": "off",
                                                   "full_page_writes": "off"})
    yield state.url("postgres")
    embedded.stop(pgdata)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def template_database(pg_server_url) -> str:
    """Name of a database migrated once, cloned by every test."""
    name = f"analytics_template_{uuid.uuid4().hex[:8]}"
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    migrate.migrate(connection.with_database(pg_server_url, name))
    yield name
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def clone_template(pg_server_url: str, template_database: str, prefix: str = "test") -> str:
    """Create a database from the migrated template and return its URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {} template {}").format(
            sql.Identifier(name), sql.Identifier(template_database)))
    url = connection.with_database(pg_server_url, name)
    # Database-level rights are not copied from a template: apply them as `analytics migrate` does.
    migrate.migrate(url, reader_password=reader_password(Settings(home=Path("/nonexistent"),
                                                                   server_secret_value=TEST_SECRET)))
    return url


def drop_database(pg_server_url: str, url: str) -> None:
    name = connection.split_url(url).database
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def database_url(pg_server_url, template_database) -> str:
    """URL of a fresh, migrated analytics database for this test alone."""
    url = clone_template(pg_server_url, template_database)
    yield url
    drop_database(pg_server_url, url)


@pytest.fixture
def settings(tmp_path, database_url) -> Settings:
    """Settings of a product instance using this test's database and a private home."""
    return Settings(home=tmp_path / "home", database_url=database_url, server_secret_value=TEST_SECRET)


@pytest.fixture
def db(database_url):
    """An autocommit connection to this test's database."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        yield conn


@pytest.fixture
def workbench_settings(settings, pg_server_url):
    """Settings whose workbench database is a fresh one for this test."""
    from workbench_app import metadata_database
    name = f"wb_{uuid.uuid4().hex[:12]}"
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    wb_settings = replace(settings, workbench_database_name=name)
    metadata_database.prepare_metadata_database(wb_settings)
    yield wb_settings
    with connection.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def workbench_db(workbench_settings):
    """An autocommit connection to this test's workbench database."""
    from workbench_app import metadata_database
    with psycopg.connect(metadata_database.metadata_url(workbench_settings), autocommit=True) as conn:
        yield conn
