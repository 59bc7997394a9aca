"""The question builder's definition, declared once: the models that check a definition (naming the
part at fault) and from which the OpenAPI components `BuilderDefinition`, `BuilderTable`, ... are
generated. `workbench_app/content/builder.py` compiles a checked definition to SQL and keeps the
rules that depend on the operator (a list for `in`, two values for `between`, ...)."""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError, model_validator

from workbench_app.errors import invalid
from workbench_app.request_shapes import DefinitionPart, Text, WholeNumber, definition_refusal, refused

COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
OPERATORS = COMPARISONS + ("is null", "is not null", "is empty", "is not empty", "contains", "starts with",
                           "in", "between", "relative")
FUNCTIONS = ("count", "count_distinct", "sum", "avg", "min", "max")
UNITS = ("hour", "day", "week", "month", "quarter", "year")
MAX_LIMIT = 100_000
MAX_FILTERS = 50
MAX_ITEMS = 20  # breakouts, aggregations, order_by
MAX_JOIN_PAIRS = 10

# A table's or a column's name, quoted when compiled: any text but NUL, at most 128 characters.
Name = Text(128, allow_empty=False)
Side = Literal["base", "join"]


class BuilderTable(DefinitionPart):
    catalog: Name
    schema_: Name = Field(alias="schema")
    table: Name


class BuilderJoinPair(DefinitionPart):
    left: Name
    """A column of the picked table."""
    right: Name
    """A column of the joined table."""


class BuilderJoin(DefinitionPart):
    table: BuilderTable
    kind: Literal["inner", "left"] = "inner"
    on: Annotated[list[BuilderJoinPair], Field(min_length=1, max_length=MAX_JOIN_PAIRS)]


class _Column(DefinitionPart):
    column: Name
    from_: Side = Field("base", alias="from")
    """The picked table (`base`) or the joined one (`join`, a definition with a join only)."""


class BuilderFilter(_Column):
    operator: Literal[OPERATORS]  # type: ignore[valid-type]
    value: Annotated[Any, Field(json_schema_extra={
        "description": "Text, a number or a YYYY-MM-DD date; a non-empty list for in (at most 1,000), two "
                       "values for between; {last, unit} or {current} for relative; none for the "
                       "null and empty tests."})] = None


class BuilderBreakout(_Column):
    bucket: Literal[UNITS] | None = None  # type: ignore[valid-type]
    """Groups a date or time by this unit (`date_trunc`); the output is named `<column>_<bucket>`."""


class BuilderAggregation(DefinitionPart):
    function: Literal[FUNCTIONS]  # type: ignore[valid-type]
    column: Name | None = None
    """None for count: the rows."""
    from_: Side = Field("base", alias="from")

    @model_validator(mode="after")
    def _column(self) -> "BuilderAggregation":
        if self.column is None and self.function != "count":
            raise refused(f"{self.function} takes a column.")
        return self


class BuilderOrder(DefinitionPart):
    column: Name | None = None
    from_: Side = Field("base", alias="from")
    alias: Name | None = None
    """An output name of the definition: an aggregation's or a time bucket's."""
    direction: Literal["asc", "desc"] = "asc"

    @model_validator(mode="after")
    def _column_or_alias(self) -> "BuilderOrder":
        if (self.column is None) == (self.alias is None):
            raise refused("An order_by names a column or an alias.")
        return self


def _breakout_tag(value: Any) -> str:
    return "by_name" if isinstance(value, str) else "bucketed"


# A breakout is a column's name, or {column, from, bucket}.
Breakout = Annotated[Union[Annotated[Name, Tag("by_name")], Annotated[BuilderBreakout, Tag("bucketed")]],
                     Discriminator(_breakout_tag)]


class BuilderDefinition(DefinitionPart):
    """A question of the builder: a table (and maybe a joined one), filters, a summary, an order and a
    limit. Names are quoted and values bound, so a definition can never inject SQL."""
    table: BuilderTable
    join: BuilderJoin | None = None
    filters: Annotated[list[BuilderFilter], Field(max_length=MAX_FILTERS)] = []
    breakouts: Annotated[list[Breakout], Field(max_length=MAX_ITEMS)] = []
    aggregations: Annotated[list[BuilderAggregation], Field(max_length=MAX_ITEMS)] = []
    order_by: Annotated[list[BuilderOrder], Field(max_length=MAX_ITEMS)] = []
    limit: WholeNumber(1, MAX_LIMIT) | None = None
    segment: WholeNumber(1) | None = None
    """A saved segment's id: the picked table's rows are kept when their `visit_id` is in it."""
    state: dict[str, Any] | None = None
    """The builder screen's own state, kept with a saved question and never compiled."""


_ADAPTER: TypeAdapter[BuilderDefinition] = TypeAdapter(BuilderDefinition)


def builder_definition(value: Any, field: str = "builder") -> BuilderDefinition:
    """The definition as its model, or the refusal of its first fault (naming the part at fault)."""
    if not isinstance(value, dict):
        raise invalid(f"{field} must be a JSON object.", field=field)
    try:
        return _ADAPTER.validate_python(value)
    except ValidationError as error:
        raise definition_refusal(field, error.errors()[0], tags=("by_name", "bucketed")) from None
