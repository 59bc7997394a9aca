"""The statement path's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in): SQL
runs, the builder, the schema browser; the answer and request components come from the models of
`shapes.py` and `builder_definition.py`."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import model_body, ref as _ref
from workbench_app.statements.builder_definition import BuilderDefinition
from workbench_app.statements.shapes import (BuilderCompile, BuilderRun, Cancelling, CompiledBuilder, DatasourceList,
                                             FormattedSql, NativeSql, Preview, Result, SqlAutocomplete, SqlDownload, SqlRun,
                                             SchemaQuery, SqlToFormat, StatementCancel, Suggestions, Table, TableList)
from workbench_app.request_shapes import query_parameters

ANSWERS = (Result, Table, TableList, DatasourceList, Suggestions, FormattedSql, Cancelling, CompiledBuilder, Preview)
REQUESTS = (SqlRun, SqlDownload, StatementCancel, NativeSql, SqlToFormat, SqlAutocomplete, BuilderCompile, BuilderRun,
            BuilderDefinition)
_CSV = {"description": "CSV (RFC 4180, UTF-8): a header row then the rows; text cells that begin with =, +, -, @ "
                       "are prefixed with an apostrophe. `X-Truncated: true` when the export row bound cut it.",
        "content": {"text/csv": {"schema": {"type": "string"}}}}


def csv_download(operation: dict[str, Any]) -> dict[str, Any]:
    """An operation that answers a CSV file (a SQL run's, a question's)."""
    operation["responses"]["200"] = _CSV
    return operation


_csv = csv_download

def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    return {
        "/sql": {"post": op("Run SQL", "sql", body=model_body(SqlRun), result=_ref("Result"))},
        "/sql/csv": {"post": _csv(op("Download SQL as CSV", "sql", body=model_body(SqlDownload)))},
        "/sql/cancel": {"post": op(
            "Cancel a running statement", "sql", ok=202, result=_ref("Cancelling"),
            body=model_body(StatementCancel))},
        "/builder/run": {"post": op("Run a builder definition", "builder", body=model_body(BuilderRun), result=_ref("Result"))},
        "/builder/sql": {"post": op("Compile a builder definition to SQL", "builder", result=_ref("CompiledBuilder"),
                                    body=model_body(BuilderCompile))},
        "/sql/native": {"post": op("Run native SQL", "sql", result=_ref("Result"),
                                           body=model_body(NativeSql))},
        "/sql/format": {"post": op("Format SQL", "sql", result=_ref("FormattedSql"),
                                        body=model_body(SqlToFormat))},
        "/sql/autocomplete": {"post": op("Autocomplete SQL", "sql", result=_ref("Suggestions"),
                                                body=model_body(SqlAutocomplete))},
        "/datasources": {"get": op("List datasources", "schema", result=_ref("DatasourceList"))},
        "/schema": {"get": op("Browse the schema", "schema", result=_ref("TableList"), query=query_parameters(SchemaQuery))},
        "/schema/tables/{name}": {"get": {**op("Describe a table", "schema", result=_ref("Table")), "parameters": [
            {"name": "name", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 400}}]}},
    }
