"""Fixtures of the document and cloud-warehouse source tests: real servers in child processes.

* a CouchDB-compatible server: `couch_server/server.js` (express-pouchdb over PouchDB in memory,
  installed by `make test` with npm ci), run with Node on a free port of 127.0.0.1;
* a Snowflake stand-in: `fakesnow`'s standalone server, which speaks the connector's HTTP protocol,
  from its own virtualenv `.venv-fakesnow` (fakesnow pins a DuckDB other than ours; `make test`
  builds it), so the official connector runs unpatched against it.

The API fixtures (embedded PostgreSQL, workbench app, admin and analyst) are those of
tests/workbench_api.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest
import requests

from analytics_cli.node_toolchain import node_bin_dir
from tests.workbench.conftest import source_files  # noqa: F401 - the DuckDB warehouse stand-in
from tests.workbench_api.conftest import *  # noqa: F401,F403 - the API fixtures (app, admin, analyst...)

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
FAKESNOW = ROOT / ".venv-fakesnow" / "bin" / "fakesnow"

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


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _await(ready, process: subprocess.Popen, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {process.stderr.read()[-2000:]}")
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start in {seconds} s")


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False


@pytest.fixture(scope="session")
def couch_url():
    """A CouchDB-compatible server in memory (see couch_server/server.js for why not pouchdb-server)."""
    if not (HERE / "couch_server" / "node_modules").is_dir():
        pytest.fail("tests/workbench_sources/couch_server/node_modules is missing: run make test (npm ci)")
    port = free_port()
    node = str(Path(node_bin_dir()) / "node")
    process = subprocess.Popen([node, "server.js", str(port)],
                               cwd=HERE / "couch_server", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _await(lambda: _answers(url + "/"), process, "the CouchDB-compatible server")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def load_couch(url: str, database: str, documents: list[dict]) -> None:
    requests.delete(f"{url}/{database}", timeout=10)
    assert requests.put(f"{url}/{database}", timeout=10).status_code in (201, 200)
    answer = requests.post(f"{url}/{database}/_bulk_docs", json={"docs": documents}, timeout=600)
    assert answer.status_code in (200, 201), answer.text


@pytest.fixture(scope="session")
def couch_people(couch_url) -> str:
    load_couch(couch_url, "people", PEOPLE)
    return couch_url


@pytest.fixture(scope="session")
def snowflake_server(tmp_path_factory) -> dict:
    """Connection parameters of a fakesnow server (any password is accepted)."""
    if not FAKESNOW.exists():
        pytest.fail(".venv-fakesnow is missing: run make test (it builds the fakesnow virtualenv)")
    port = free_port()
    process = subprocess.Popen([str(FAKESNOW), "-s", "-p", str(port), "-d", str(tmp_path_factory.mktemp("fakesnow"))],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    params = {"host": "127.0.0.1", "port": port, "protocol": "http", "account": "fakesnow", "user": "reader"}

    def accepting() -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    try:
        _await(accepting, process, "fakesnow")
        yield params
    finally:
        process.terminate()
        process.wait(timeout=10)


def snowflake_execute(params: dict, *statements: str, rows: list[tuple] | None = None) -> None:
    """Run statements on the Snowflake stand-in (the last one with `rows` as executemany)."""
    import snowflake.connector

    with snowflake.connector.connect(password="any", **params) as connection, connection.cursor() as cursor:
        for statement in statements[:-1] if rows is not None else statements:
            cursor.execute(statement)
        if rows is not None:
            cursor.executemany(statements[-1], rows)


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
