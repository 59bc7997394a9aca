"""The engine's permission bypass suite, with the CRM catalog served by CouchDB, then by Snowflake.

Every attempt of tests/workbench/test_bypass_suite.py runs again (imported below), with `crm`
now a CouchDB server (databases `customers` and `api_keys`) or a Snowflake database (`CRM.MAIN`),
so the rewrite, its walls and the pushdown are checked on these catalogs too.
"""
from __future__ import annotations

import pytest

from tests.workbench.conftest import CUSTOMERS, MASK_SALT, admin, analyst  # noqa: F401 - the suite's users
from tests.workbench.test_bypass_suite import *  # noqa: F401,F403 - the attempts and their checks
from tests.workbench_sources.conftest import source_json
from tests.workbench_sources.servers import load_couch, snowflake_execute
from workbench_app.engine import CatalogSource, EngineSettings, WorkbenchEngine

CUSTOMER_FIELDS = ("id", "name", "email", "region", "card")


def _couch_crm(couch_url: str) -> CatalogSource:
    load_couch(couch_url, "customers", [{"_id": f"c{row[0]}", **dict(zip(CUSTOMER_FIELDS, row))} for row in CUSTOMERS])
    load_couch(couch_url, "api_keys", [{"_id": "k1", "id": 1, "secret": "sk-live-do-not-leak"}])
    return CatalogSource("crm", "couchdb", source_json({"url": couch_url, "databases": ["customers", "api_keys"]}))


def _snowflake_crm(params: dict) -> CatalogSource:
    snowflake_execute(params, "CREATE DATABASE IF NOT EXISTS CRM", "CREATE SCHEMA IF NOT EXISTS CRM.MAIN",
                      "CREATE OR REPLACE TABLE CRM.MAIN.API_KEYS (ID NUMBER(10, 0), SECRET VARCHAR)",
                      "INSERT INTO CRM.MAIN.API_KEYS VALUES (1, 'sk-live-do-not-leak')",
                      "CREATE OR REPLACE TABLE CRM.MAIN.CUSTOMERS (ID NUMBER(10, 0), NAME VARCHAR, EMAIL VARCHAR, "
                      "REGION VARCHAR, CARD VARCHAR)",
                      "INSERT INTO CRM.MAIN.CUSTOMERS VALUES (%s, %s, %s, %s, %s)", rows=CUSTOMERS)
    return CatalogSource("crm", "snowflake", source_json({**params, "password": "x", "database": "CRM"}),
                         default_schema="main")


@pytest.fixture(scope="module", params=["couchdb", "snowflake"])
def engine(request, source_files, couch_url, snowflake_server):
    crm = _couch_crm(couch_url) if request.param == "couchdb" else _snowflake_crm(snowflake_server)
    engine = WorkbenchEngine(
        EngineSettings(default_catalog="warehouse", default_schema="analytics", mask_salt=MASK_SALT,
                       timeout_seconds=10, row_limit=1000),
        [CatalogSource("warehouse", "duckdb", str(source_files["warehouse"])), crm])
    yield engine
    engine.close()


def test_the_crm_really_is_the_new_source(engine, admin):
    assert {source.kind for source in engine._generation.sources} & {"couchdb", "snowflake"}
    assert engine.run("SELECT count(*) FROM crm.customers", admin).rows == [(3,)]
