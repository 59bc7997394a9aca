"""Fixtures of the document and cloud-warehouse source tests: real servers in child processes.

The servers are those of `servers.py` (a CouchDB-compatible server, fakesnow). The API fixtures
(embedded PostgreSQL, workbench app, admin and analyst) are those of tests/workbench_api, the
DuckDB warehouse stand-in that of tests/workbench.
"""
from __future__ import annotations

import json

import pytest

from tests.workbench.conftest import source_files  # noqa: F401 - the DuckDB warehouse stand-in
from tests.workbench_api.conftest import *  # noqa: F401,F403 - the API fixtures (app, admin, analyst...)
from tests.workbench_sources.servers import couch_server, fakesnow_server, load_couch, snowflake_execute

# Nested documents: address is an object (a STRUCT), tags an array (a LIST), score mixes numbers
# and text (JSON), phone is missing from some documents (NULL).
PEOPLE = [
    {"_id": "p1", "name": "Ann", "email": "ann@example.fr", "region": "EU", "country": "FR", "age": 31,
     "address": {"city": "Lyon", "zip": "69001", "geo": {"lat": 45.76, "lon": 4.83}}, "tags": ["vip", "early"],
     "score": 10, "phone": "+33 1 23"},
    {"_id": "p2", "name": "Bob", "email": "bob@example.de", "region": "EU", "country": "DE", "age": 25,
     "address": {"city": "Berlin", "zip": "10115"}, "tags": [], "score": "high"},
    {"_id": "p3", "name": "Cyd", "email": "cyd@example.com", "region": "US", "country": "US", "age": 47,
     "address": {"city": "Boston"}, "tags": ["churned"], "score": 2.5},
    {"_id": "p4", "name": "Dan", "email": "dan@example.com", "region": "US", "country": "US", "age": 38,
     "address": None, "tags": ["vip"], "score": None},
]


@pytest.fixture(scope="session")
def couch_url():
    with couch_server() as url:
        yield url


@pytest.fixture(scope="session")
def couch_people(couch_url) -> str:
    load_couch(couch_url, "people", PEOPLE)
    return couch_url


@pytest.fixture(scope="session")
def snowflake_server(tmp_path_factory) -> dict:
    """Connection parameters of a fakesnow server (any password is accepted)."""
    with fakesnow_server(tmp_path_factory.mktemp("fakesnow")) as params:
        yield params


ORDERS = [(1, "p1", 120.5, "2026-01-05", "FR"), (2, "p1", 30.0, "2026-02-11", "FR"),
          (3, "p2", 75.25, "2026-02-20", "DE"), (4, "p3", 500.0, "2026-03-01", "US"),
          (5, "p4", 12.0, "2026-03-02", "US")]


@pytest.fixture(scope="session")
def snowflake_shop(snowflake_server) -> dict:
    """Database SHOP, schema SALES, table ORDERS (customer ids match the people documents)."""
    snowflake_execute(snowflake_server, "CREATE DATABASE IF NOT EXISTS SHOP", "CREATE SCHEMA IF NOT EXISTS SHOP.SALES",
                      "CREATE OR REPLACE TABLE SHOP.SALES.ORDERS (ID NUMBER(10, 0), CUSTOMER_ID VARCHAR, "
                      "AMOUNT NUMBER(10, 2), PLACED DATE, COUNTRY VARCHAR)",
                      "INSERT INTO SHOP.SALES.ORDERS VALUES (%s, %s, %s, %s, %s)", rows=ORDERS)
    return {**snowflake_server, "database": "SHOP"}


def source_json(options: dict) -> str:
    return json.dumps(options, sort_keys=True)
