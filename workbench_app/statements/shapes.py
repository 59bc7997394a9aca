"""The statement path's requests: SQL runs, the native SQL of one source, the builder's runs, and
the editor's helpers (base: request_shapes.py), their limits the document's: one source; and its
answers: results, the schema browser's tables, the editor's helpers (base: answer_shapes.py)."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, WithJsonSchema

from workbench_app.answer_shapes import AnswerShape
from workbench_app.engine import VARIABLE_TYPES
from workbench_app.permissions.shapes import Notice
from workbench_app.request_shapes import QueryShape, RequestShape, Text, WholeNumber, refused

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
# A builder definition: its own models check it (builder_definition.py) and name the part that is wrong
# (a missing one is "builder must be a JSON object."), so the request takes any value and the
# document refers to the definition's component.
BuilderField = Annotated[Any, WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/BuilderDefinition"}]})]


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


class SchemaQuery(QueryShape):
    catalog: Text() = None
    """The tables of this catalog (every catalog's when left out)."""
    search: Text() = None
    """Tables and columns whose name contains this, in every catalog."""


class BuilderCompile(RequestShape):
    model_config = ConfigDict(json_schema_extra={"required": ["builder"]})
    builder: BuilderField = None


class BuilderRun(BuilderCompile):
    row_limit: RowLimit = None
    statement_id: StatementId = None


# The answers of the statement path (base: answer_shapes.py).

class ResultColumn(AnswerShape):
    name: str
    type: str
    """DuckDB's name of the column's type (VARCHAR, BIGINT, TIMESTAMP WITH TIME ZONE, ...)."""


class Result(AnswerShape):
    """A statement's rows, under the caller's permissions."""
    columns: list[ResultColumn]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    """The row limit cut the result."""
    elapsed_ms: float
    question_id: int | None = None
    """A question's run."""
    card_id: int | None = None
    """A dashboard card's run."""
    cached: bool | None = None
    """Dashboard cards: whether the answer came from the result cache."""
    cached_at: datetime | None = None
    """Dashboard cards from the cache: when the result was computed."""


class TableColumn(AnswerShape):
    name: str
    type: str
    masked: bool
    """The caller sees this column masked by a rule."""
    description: str | None


class TableFreshness(AnswerShape):
    """Where a warehouse table is read from, and how fresh the lake's copy is."""
    source: Literal["lake", "lake+postgres", "postgres"]
    """The lake's files, the lake and PostgreSQL for the days after postgres_from, or PostgreSQL."""
    refreshed_at: str | None = None
    """When the lake's copy was last refreshed (ISO 8601, UTC)."""
    newest_day: str | None = None
    """The newest day the lake holds (YYYY-MM-DD)."""
    postgres_from: str | None = None
    """From this day on, rows come from PostgreSQL."""
    warning: Literal["not_in_lake", "older_shape", "unreadable"] | None = None
    """Why a table the lake should hold is read from PostgreSQL."""


class Table(AnswerShape):
    catalog: str
    schema_: str = Field(alias="schema")
    table: str
    description: str | None
    columns: list[TableColumn] | None = None
    """GET /schema/tables/{name}, and a search that matched columns."""
    matched: Literal["table", "columns"] | None = None
    """A search: whether the table's name or some of its columns matched."""
    freshness: TableFreshness | None = None
    """Warehouse tables read through the lake."""


class TableList(AnswerShape):
    tables: list[Table]


class Datasource(AnswerShape):
    name: str
    tables: int


class DatasourceList(AnswerShape):
    datasources: list[Datasource]


class Suggestion(AnswerShape):
    label: str
    kind: str
    detail: str | None


class Suggestions(AnswerShape):
    suggestions: list[Suggestion]


class FormattedSql(AnswerShape):
    sql: str


class Cancelling(AnswerShape):
    statement_id: str


class CompiledBuilder(AnswerShape):
    sql: str
    """Runnable: the values written as SQL literals, formatted."""
    template: str
    """The same statement with `{{variables}}`."""
    variable_types: Annotated[dict[str, Any], WithJsonSchema(VARIABLE_TYPES_SCHEMA)]
    variables: VariableValues


class Grant(AnswerShape):
    """One group's say on a table: its table rule, or its whole-catalog grant."""
    group: str
    kind: Literal["table_rule", "catalog"]
    access: bool
    row_filter: str | None
    hidden_columns: list[str]
    masked_columns: dict[str, str]
    """Column -> the mask's kind."""


class TableDecision(AnswerShape):
    table: str
    grants: list[Grant]


class Preview(AnswerShape):
    """A statement run as another person ("view as"): its result or its refusal, and why."""
    result: Result | None
    refusal: Notice | None
    decisions: list[TableDecision]
