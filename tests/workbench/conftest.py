"""Fixtures of the workbench engine tests: real DuckDB with a real SQLite file and DuckDB file.

The warehouse stand-in is a DuckDB file with an ``analytics`` schema; the CRM is
a SQLite file. Both are attached read-only to a real :class:`WorkbenchEngine`,
external access disabled and configuration locked, exactly as in production.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest

from workbench_app.engine import (
    CatalogSource,
    ColumnMask,
    EngineSettings,
    GroupPermissions,
    TableRule,
    UserContext,
    WorkbenchEngine,
)

MASK_SALT = "test-mask-salt"

EVENTS = [
    # id, site_id, page, country, region, visitor_hash, email, revenue
    (1, 1, "/home", "FR", "EU", "vh-1", "ann@example.fr", 10.0),
    (2, 1, "/pricing", "DE", "EU", "vh-2", "bob@example.de", 20.0),
    (3, 1, "/home", "US", "US", "vh-3", "cyd@example.com", 30.0),
    (4, 2, "/blog", "US", "US", "vh-4", "dan@example.com", 40.0),
    (5, 2, "/home", "ES", "EU", "vh-5", "eve@example.es", 50.0),
]
CUSTOMERS = [
    (1, "Ann", "ann@example.fr", "EU", "4111111111111111"),
    (2, "Bob", "bob@example.de", "EU", "5500000000000004"),
    (3, "Cyd", "cyd@example.com", "US", "340000000000009"),
]


def build_warehouse(path: Path) -> None:
    connection = duckdb.connect(str(path))
    connection.execute("CREATE SCHEMA analytics")
    connection.execute(
        """CREATE TABLE analytics.events (id INTEGER, site_id INTEGER, page VARCHAR, country VARCHAR,
           region VARCHAR, visitor_hash VARCHAR, email VARCHAR, revenue DOUBLE)"""
    )
    connection.executemany("INSERT INTO analytics.events VALUES (?, ?, ?, ?, ?, ?, ?, ?)", EVENTS)
    connection.execute("CREATE TABLE analytics.salaries (name VARCHAR, amount INTEGER)")
    connection.execute("INSERT INTO analytics.salaries VALUES ('ceo', 1000000)")
    connection.execute('CREATE TABLE analytics."PageViews" ("Page" VARCHAR, "Views" INTEGER)')
    connection.execute("""INSERT INTO analytics."PageViews" VALUES ('/home', 3), ('/blog', 1)""")
    # Macros stored in a source: callable only if a qualified call slipped through.
    connection.execute("CREATE MACRO analytics.range(n) AS TABLE SELECT * FROM analytics.salaries")
    connection.execute("CREATE MACRO main.range(n) AS TABLE SELECT * FROM analytics.salaries")
    connection.execute("CREATE MACRO main.abs(x) AS (SELECT max(amount) FROM analytics.salaries)")
    connection.execute("CREATE TABLE main.sites (id INTEGER, domain VARCHAR)")
    connection.execute("INSERT INTO main.sites VALUES (1, 'a.example'), (2, 'b.example')")
    connection.close()


def build_crm(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE customers (id INTEGER, name TEXT, email TEXT, region TEXT, card TEXT)")
    connection.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?)", CUSTOMERS)
    connection.execute("CREATE TABLE api_keys (id INTEGER, secret TEXT)")
    connection.execute("INSERT INTO api_keys VALUES (1, 'sk-live-do-not-leak')")
    connection.commit()
    connection.close()


@pytest.fixture(scope="session")
def source_files(tmp_path_factory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("workbench_sources")
    files = {"warehouse": directory / "warehouse.duckdb", "crm": directory / "crm.sqlite"}
    build_warehouse(files["warehouse"])
    build_crm(files["crm"])
    return files


def make_engine(source_files, **settings) -> WorkbenchEngine:
    return WorkbenchEngine(
        EngineSettings(
            default_catalog="warehouse",
            default_schema="analytics",
            mask_salt=MASK_SALT,
            **settings,
        ),
        [
            CatalogSource("warehouse", "duckdb", str(source_files["warehouse"])),
            CatalogSource("crm", "sqlite", str(source_files["crm"])),
        ],
    )


@pytest.fixture(scope="session")
def engine(source_files) -> WorkbenchEngine:
    """One engine shared by the read-only tests (as one worker serves many users)."""
    engine = make_engine(source_files, timeout_seconds=10, row_limit=1000)
    yield engine
    engine.close()


# --- groups and users ---------------------------------------------------------------------

ANALYSTS_EU = GroupPermissions(
    "analysts-eu",
    table_rules=(
        TableRule(
            "warehouse",
            "analytics",
            "events",
            row_filter="region = {{user.region}}",
            hidden_columns=frozenset({"email"}),
            masked_columns={"visitor_hash": ColumnMask("hash")},
        ),
        TableRule("warehouse", "analytics", "PageViews"),
        TableRule(
            "crm",
            "main",
            "customers",
            hidden_columns=frozenset({"card"}),
            masked_columns={"email": ColumnMask("partial", keep_last=4)},
        ),
    ),
)
EVERYTHING = GroupPermissions("admins", unrestricted_catalogs=frozenset({"warehouse", "crm"}))


@pytest.fixture
def analyst() -> UserContext:
    """Reads EU events without email (visitor hash masked), customers without card (email partial)."""
    return UserContext("analyst", (ANALYSTS_EU,), {"region": "EU"})


@pytest.fixture
def admin() -> UserContext:
    return UserContext("admin", (EVERYTHING,), {})


@pytest.fixture(scope="session")
def lake_engine(source_files, pg_server_url, template_database, tmp_path_factory) -> WorkbenchEngine:
    """The same warehouse tables in PostgreSQL, exported to a lake and read as the product reads it
    (a `lake` catalog: views over Parquet, PostgreSQL attached under a hidden name)."""
    import psycopg
    import psycopg.conninfo

    from pipelines.lake.export import LakeWriter
    from pipelines.settings import Settings
    from tests.conftest import TEST_SECRET, clone_template, drop_database
    from workbench_app.engine.lake_catalog import lake_target

    url = clone_template(pg_server_url, template_database, prefix="bypass_lake")
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("""create table analytics.events (id integer, site_id integer, page text, country text,
                      region text, visitor_hash text, email text, revenue double precision)""")
        db.cursor().executemany("insert into analytics.events values (%s, %s, %s, %s, %s, %s, %s, %s)", EVENTS)
        db.execute("create table analytics.salaries (name text, amount integer)")
        db.execute("insert into analytics.salaries values ('ceo', 1000000)")
        db.execute('create table analytics."PageViews" ("Page" text, "Views" integer)')
        db.execute("""insert into analytics."PageViews" values ('/home', 3), ('/blog', 1)""")
    folder = tmp_path_factory.mktemp("bypass_lake")
    settings = Settings(home=folder / "home", database_url=url, server_secret_value=TEST_SECRET,
                        lake_dir=folder / "lake")
    with LakeWriter(settings).open() as writer:
        writer.refresh_views(full=True)
    engine = WorkbenchEngine(
        EngineSettings(default_catalog="warehouse", default_schema="analytics", mask_salt=MASK_SALT,
                       timeout_seconds=10, row_limit=1000),
        [CatalogSource("warehouse", "lake", lake_target(folder / "lake", psycopg.conninfo.make_conninfo(url)),
                       default_schema="analytics", schemas=("analytics",)),
         CatalogSource("crm", "sqlite", str(source_files["crm"]))],
    )
    assert set(engine.lake_freshness()["warehouse"]) == {"events", "salaries", "PageViews"}
    yield engine
    engine.close()
    drop_database(pg_server_url, url)
