"""A CouchDB server (or a server speaking its HTTP API) as a catalog: each database is a table.

Columns are inferred from a sample of each database's documents (``sample_size``, read when the
catalog is attached or the sources refreshed) by :mod:`document_schema`: nested objects are
STRUCTs, arrays LISTs, ``_id`` a column. A statement reads through Mango ``_find`` with the
``fields`` and the ``selector`` that :mod:`external_tables` could push down, and ``limit`` set to
the catalog's row bound plus one, so a statement over the bound fails instead of reading on.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pyarrow as pa
import requests

from workbench_app.engine import document_schema
from workbench_app.engine.external_tables import ExternalTable, ReadRequest, SourceTimeout, SourceUnavailable

MAX_DATABASES = 500
MAX_COLUMNS = 1000
_MANGO = {"=": "$eq", ">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte", "in": "$in"}


class CouchCatalog:
    def __init__(self, url: str, *, user: str | None = None, password: str | None = None,
                 databases: list[str] | None = None, sample_size: int = 1000, max_rows: int = 100_000,
                 connect_timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.auth = (user, password or "") if user else None
        self.databases = databases
        self.sample_size = sample_size
        self.max_rows = max_rows
        self.connect_timeout = connect_timeout
        self.session = requests.Session()
        self._tables = [self._table(name) for name in self._database_names()]

    def tables(self) -> list[ExternalTable]:
        return self._tables

    def _call(self, method: str, path: str, timeout: float, **kwargs) -> Any:
        try:
            response = self.session.request(method, self.url + path, auth=self.auth,
                                            timeout=(min(self.connect_timeout, timeout), timeout), **kwargs)
        except requests.Timeout:
            raise SourceTimeout("the server did not answer in time") from None
        except requests.RequestException:
            raise SourceUnavailable("the server is unreachable", "unreachable") from None
        if response.status_code in (401, 403):
            raise SourceUnavailable("authentication failed (user or password refused)", "authentication_failed")
        if response.status_code == 404:
            raise SourceUnavailable("no such database on the server", "database_not_found")
        if response.status_code >= 400:
            raise SourceUnavailable(f"the server answered {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise SourceUnavailable("the server's answer is not CouchDB JSON") from None

    def _database_names(self) -> list[str]:
        listed = self._call("GET", "/_all_dbs", self.connect_timeout)
        if not isinstance(listed, list):
            raise SourceUnavailable("the server's answer is not CouchDB JSON")
        if self.databases is not None:
            missing = [name for name in self.databases if name not in listed]
            if missing:
                raise SourceUnavailable(f"no such database: {', '.join(missing)}", "database_not_found")
            return list(self.databases)
        # System databases (_users, _replicator) hold no analytics data.
        return [name for name in listed if isinstance(name, str) and not name.startswith("_")][:MAX_DATABASES]

    def _find(self, database: str, body: dict[str, Any], timeout: float) -> list[dict[str, Any]]:
        answer = self._call("POST", f"/{quote(database, safe='')}/_find", timeout, json=body)
        documents = answer.get("docs") if isinstance(answer, dict) else None
        if not isinstance(documents, list):
            raise SourceUnavailable("the server's answer to _find is not CouchDB JSON")
        return documents

    def _table(self, database: str) -> ExternalTable:
        sample = self._find(database, {"selector": {"_id": {"$gt": None}}, "limit": self.sample_size},
                            self.connect_timeout * 3)
        kinds = document_schema.infer_columns(sample, MAX_COLUMNS)
        columns = tuple((name, document_schema.duckdb_type(kind)) for name, kind in kinds.items())
        return ExternalTable("main", database, columns, remote=(database, kinds))

    def read(self, table: ExternalTable, request: ReadRequest) -> pa.Table:
        database, kinds = table.remote
        clauses = [{_field(condition.column): {_MANGO[condition.op]: list(condition.value) if condition.op == "in"
                                               else condition.value}} for condition in request.conditions
                   # Mango orders strings by ICU collation, DuckDB by bytes: only equality agrees;
                   # a name starting with $ would read as an operator.
                   if (condition.op in ("=", "in") or not isinstance(condition.value, str))
                   and not condition.column.startswith("$")]
        selector = {"$and": clauses} if clauses else {"_id": {"$gt": None}}
        body = {"selector": selector, "fields": [_field(name) for name in request.columns],
                "limit": request.max_rows + 1}
        documents = self._find(database, body, request.timeout_seconds)
        return document_schema.to_arrow(documents, {name: kinds[name] for name in request.columns})


def _field(name: str) -> str:
    """A top-level field name as Mango reads it (a dot would otherwise mean a nested field)."""
    return name.replace("\\", "\\\\").replace(".", "\\.")
