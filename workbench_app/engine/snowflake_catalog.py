"""Snowflake as a catalog, through the official connector: tables and views of one database.

Tables and their columns come from the database's ``INFORMATION_SCHEMA.COLUMNS`` (optionally one
schema). Names Snowflake keeps in upper case (unquoted identifiers) are lower-cased in the
engine; the source is always queried with its own spelling, quoted. A statement reads with a
``SELECT`` of the requested columns, the pushed-down conditions as bound parameters, ``LIMIT`` of
the row bound plus one and the statement's remaining time as the query timeout; the result comes
back as Arrow (``fetch_arrow_all``) and is handed to DuckDB as it is.
"""
from __future__ import annotations

import math
import queue
import re
import time
from typing import Any

import pyarrow as pa

from workbench_app.engine.external_tables import ExternalTable, ReadRequest, SourceTimeout, SourceUnavailable, quoted

_TYPES = {"FLOAT": "DOUBLE", "DOUBLE": "DOUBLE", "REAL": "DOUBLE", "BOOLEAN": "BOOLEAN", "DATE": "DATE",
          "TIME": "TIME", "TIMESTAMP_NTZ": "TIMESTAMP", "TIMESTAMP": "TIMESTAMP", "DATETIME": "TIMESTAMP",
          "TIMESTAMP_TZ": "TIMESTAMPTZ", "TIMESTAMP_LTZ": "TIMESTAMPTZ", "BINARY": "BLOB",
          "VARIANT": "JSON", "OBJECT": "JSON", "ARRAY": "JSON"}
_POOL_SIZE = 4


def duckdb_type(data_type: str, precision: int | None, scale: int | None) -> str:
    kind = data_type.upper()
    if kind in ("NUMBER", "DECIMAL", "NUMERIC", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT"):
        if not scale:
            return "BIGINT" if (precision or 38) <= 18 else "HUGEINT"
        return f"DECIMAL({min(precision or 38, 38)}, {scale})"
    return _TYPES.get(kind, "VARCHAR")


def engine_name(name: str) -> str:
    """Upper-case names (Snowflake's unquoted identifiers) read as lower case in the engine."""
    return name.lower() if name == name.upper() else name


class SnowflakeCatalog:
    def __init__(self, *, account: str, user: str, password: str | None = None, private_key: bytes | None = None,
                 database: str, schema: str | None = None, warehouse: str | None = None, role: str | None = None,
                 host: str | None = None, port: int | None = None, protocol: str | None = None,
                 max_rows: int = 100_000, connect_timeout: float = 10.0):
        self.params: dict[str, Any] = {"account": account, "user": user, "database": database,
                                       "login_timeout": connect_timeout, "network_timeout": connect_timeout * 6}
        for key, value in (("password", password), ("private_key", private_key), ("warehouse", warehouse),
                           ("role", role), ("schema", schema), ("host", host), ("port", port),
                           ("protocol", protocol)):
            if value is not None:
                self.params[key] = value
        self.database, self.schema, self.max_rows = database, schema, max_rows
        self._idle: queue.LifoQueue = queue.LifoQueue()
        self._tables = self._list_tables()

    def tables(self) -> list[ExternalTable]:
        return self._tables

    def _connect(self):
        import snowflake.connector  # slow to import: only where a Snowflake source is attached
        from snowflake.connector import errors as snowflake_errors

        try:
            return snowflake.connector.connect(**self.params)
        except snowflake_errors.DatabaseError as error:
            raise SourceUnavailable(*_reason(error)) from None
        except Exception:  # noqa: BLE001 - the connector raises many kinds on a bad network
            raise SourceUnavailable("the server is unreachable", "unreachable") from None

    def _query(self, sql: str, params: dict[str, Any] | None, timeout: float) -> pa.Table:
        from snowflake.connector import errors as snowflake_errors

        try:
            connection = self._idle.get_nowait()
        except queue.Empty:
            connection = self._connect()
        started = time.monotonic()
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql, params, timeout=max(1, math.ceil(timeout)))
                table = cursor.fetch_arrow_all(force_return_table=True)
        except snowflake_errors.Error as error:
            connection.close()
            if time.monotonic() - started >= timeout:
                raise SourceTimeout("the query did not finish in time") from None
            raise SourceUnavailable(*_reason(error)) from None
        if self._idle.qsize() < _POOL_SIZE:
            self._idle.put(connection)
        else:
            connection.close()
        return table

    def _list_tables(self) -> list[ExternalTable]:
        sql = (f"SELECT table_schema, table_name, column_name, data_type, numeric_precision, numeric_scale "
               f"FROM {quoted(self.database)}.information_schema.columns "
               f"WHERE table_schema <> 'INFORMATION_SCHEMA'")
        params = None
        if self.schema:
            sql += " AND table_schema = %(schema)s"
            params = {"schema": self.schema}
        rows = self._query(sql + " ORDER BY table_schema, table_name, ordinal_position", params, 60).to_pylist()
        tables: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        for row in rows:
            row = {key.lower(): value for key, value in row.items()}
            tables.setdefault((row["table_schema"], row["table_name"]), []).append(
                (engine_name(row["column_name"]), duckdb_type(row["data_type"], row["numeric_precision"],
                                                              row["numeric_scale"]), row["column_name"]))
        return [ExternalTable(engine_name(schema), engine_name(name),
                              tuple((column, kind) for column, kind, _ in columns),
                              remote=(schema, name, {column: remote for column, _, remote in columns}))
                for (schema, name), columns in tables.items()]

    def read(self, table: ExternalTable, request: ReadRequest) -> pa.Table:
        schema, name, remote = table.remote
        where, params = [], {}
        for index, condition in enumerate(request.conditions):
            column = quoted(remote[condition.column])
            if condition.op == "in":
                names = [f"p{index}_{n}" for n in range(len(condition.value))]
                params.update(zip(names, condition.value))
                where.append(f"{column} IN ({', '.join(f'%({n})s' for n in names)})")
            else:
                params[f"p{index}"] = condition.value
                where.append(f"{column} {condition.op} %(p{index})s")
        sql = (f"SELECT {', '.join(quoted(remote[c]) for c in request.columns)} "
               f"FROM {quoted(self.database)}.{quoted(schema)}.{quoted(name)}"
               + (f" WHERE {' AND '.join(where)}" if where else "") + f" LIMIT {int(request.max_rows) + 1}")
        result = self._query(sql, params or None, request.timeout_seconds)
        return result.rename_columns(list(request.columns))

    def close(self) -> None:
        while not self._idle.empty():
            self._idle.get_nowait().close()


def _reason(error: Exception) -> tuple[str, str]:
    """Why the connector failed, in words for people (never the connection parameters), and its kind."""
    from snowflake.connector import errors as snowflake_errors

    errno = getattr(error, "errno", None)
    text = str(getattr(error, "msg", "") or error)
    if errno in (390100, 390144, 390318, 394304) or re.search(r"incorrect username or password|authenticat", text, re.I):
        return "authentication failed (user, password or key refused)", "authentication_failed"
    if re.search(r"does not exist|not authorized", text, re.I):
        return "no such database or schema (or no access to it)", "database_not_found"
    if isinstance(error, snowflake_errors.OperationalError) or re.search(r"timeout|timed out|connect", text, re.I):
        return "the server is unreachable or did not answer in time", "unreachable"
    return "the source refused the query", "failed"
