"""The statement path's requests: SQL runs, the native SQL of one source, the builder's runs, and
the editor's helpers (base: request_shapes.py). Their limits are the document's: one source."""
from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, WithJsonSchema

from workbench_app.engine import VARIABLE_TYPES
from workbench_app.request_shapes import RequestShape, Text, WholeNumber, refused

MAX_SQL = 100_000
MAX_ROW_LIMIT = 1_000_000  # a run's rows (a CSV's bound is the export setting)
MAX_CATALOG = 63  # a catalog is named like a PostgreSQL identifier
_STATEMENT_ID = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")

# A statement's variables: name -> type (`{{name}}` in the SQL).
VARIABLE_TYPES_SCHEMA = {"type": "object", "additionalProperties": {"enum": list(VARIABLE_TYPES)}}


def _variable_types(value: dict[str, Any]) -> dict[str, Any]:
    if any(kind not in VARIABLE_TYPES for kind in value.values()):
        raise refused(f"variable_types values are {', '.join(VARIABLE_TYPES)}.")
    return value


def _statement_id(value: str) -> str:
    if not _STATEMENT_ID.match(value):
        raise refused("statement_id must be 1 to 64 letters, digits, hyphens or underscores.")
    return value


VariableTypes = Annotated[dict[str, Any], AfterValidator(_variable_types), WithJsonSchema(VARIABLE_TYPES_SCHEMA)]
# The values of a statement's variables, checked against their types when the statement is bound.
VariableValues = Annotated[dict[str, Any], WithJsonSchema({"type": "object", "additionalProperties": True})]
StatementId = Annotated[Text(64), AfterValidator(_statement_id), Field(
    description="Names the run so that the caller may stop it with POST /sql/cancel.",
    json_schema_extra={"pattern": "^[A-Za-z0-9_-]{1,64}$"})]
SqlText = Text(MAX_SQL)
RowLimit = WholeNumber(1, MAX_ROW_LIMIT)
# A builder definition (content/builder.py checks it and names the part that is wrong; a missing one
# is "builder must be a JSON object."), so the model takes any value and the document says what it is.
BuilderDefinition = Annotated[Any, WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/BuilderDefinition"}]})]


class SqlRun(RequestShape):
    """One read statement, run under the caller's permissions (variables bound as values)."""
    sql: SqlText
    variables: VariableValues = {}
    variable_types: VariableTypes = {}
    row_limit: RowLimit = None
    """Most rows the answer holds (the server's bound when left out)."""
    statement_id: StatementId = None


class SqlDownload(SqlRun):
    row_limit: WholeNumber(1) = None
    """At most the export row bound (ANALYTICS_WORKBENCH_EXPORT_ROW_LIMIT, 1,000,000 by default)."""


class StatementCancel(RequestShape):
    statement_id: StatementId


class NativeSql(RequestShape):
    """A statement sent to one source as written."""
    catalog: Text(MAX_CATALOG, allow_empty=False)
    sql: Text(MAX_SQL, allow_empty=False)
    row_limit: RowLimit = None


class SqlToFormat(RequestShape):
    sql: SqlText


class SqlAutocomplete(RequestShape):
    sql: SqlText
    cursor: WholeNumber(0, MAX_SQL) = None
    """Where the suggestions are for (the end of the statement when left out)."""


class BuilderCompile(RequestShape):
    model_config = ConfigDict(json_schema_extra={"required": ["builder"]})
    builder: BuilderDefinition = None


class BuilderRun(BuilderCompile):
    row_limit: RowLimit = None
    statement_id: StatementId = None
