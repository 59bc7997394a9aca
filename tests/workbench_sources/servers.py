"""Test servers of the document and cloud-warehouse sources, for the tests and bench/sources.py.

* `couch_server()`: `couch_server/server.js` (express-pouchdb over PouchDB in memory, installed by
  `make test-servers` with npm ci), run with Node on a free port of 127.0.0.1;
* `fakesnow_server(folder)`: fakesnow's standalone server, which speaks the Snowflake connector's
  HTTP protocol, from its own virtualenv `.venv-fakesnow` (fakesnow pins a DuckDB other than ours),
  so the official connector runs unpatched against it. It accepts any password.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator

import requests

from analytics_cli.node_toolchain import node_bin_dir

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
FAKESNOW = ROOT / ".venv-fakesnow" / "bin" / "fakesnow"


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


def _accepting(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def _running(command: list[str], ready, what: str, **popen) -> Iterator[None]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **popen)
    try:
        _await(ready, process, what)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # A loaded machine can keep a server from finishing its shutdown: it goes anyway.
            process.kill()
            process.wait(timeout=30)


@contextlib.contextmanager
def couch_server() -> Iterator[str]:
    """The URL of a CouchDB-compatible server in memory (see couch_server/server.js for why not pouchdb-server)."""
    if not (HERE / "couch_server" / "node_modules").is_dir():
        raise RuntimeError("tests/workbench_sources/couch_server/node_modules is missing: run make test-servers")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with _running([str(Path(node_bin_dir()) / "node"), "server.js", str(port)], lambda: _answers(url + "/"),
                  "the CouchDB-compatible server", cwd=HERE / "couch_server"):
        yield url


@contextlib.contextmanager
def fakesnow_server(folder: Path) -> Iterator[dict]:
    """Connection parameters of a fakesnow server keeping its databases in ``folder``."""
    if not FAKESNOW.exists():
        raise RuntimeError(".venv-fakesnow is missing: run make test-servers")
    port = free_port()
    with _running([str(FAKESNOW), "-s", "-p", str(port), "-d", str(folder)], lambda: _accepting(port), "fakesnow",
                  env={**os.environ, "PYTHONUNBUFFERED": "1"}):
        yield {"host": "127.0.0.1", "port": port, "protocol": "http", "account": "fakesnow", "user": "reader"}


def load_couch(url: str, database: str, documents: list[dict], batch: int = 10_000) -> None:
    """(Re)create ``database`` holding ``documents``."""
    requests.delete(f"{url}/{database}", timeout=10)
    assert requests.put(f"{url}/{database}", timeout=10).status_code in (201, 200)
    for start in range(0, len(documents), batch):
        answer = requests.post(f"{url}/{database}/_bulk_docs", json={"docs": documents[start:start + batch]},
                               timeout=600)
        assert answer.status_code in (200, 201), answer.text


def snowflake_execute(params: dict, *statements: str, rows: list[tuple] | None = None) -> None:
    """Run statements on the Snowflake stand-in (the last one with `rows` as executemany)."""
    import snowflake.connector

    with snowflake.connector.connect(password="any", **params) as connection, connection.cursor() as cursor:
        for statement in statements[:-1] if rows is not None else statements:
            cursor.execute(statement)
        if rows is not None:
            cursor.executemany(statements[-1], rows)
