"""The definitions of funnels, paths and retention, and the requests that run them (base: request_shapes.py).

A definition is JSON, saved as a question's `analysis` (kind "analysis") or sent unsaved to
POST /analyses/run. `definition()` checks one and answers the first fault as the usual refusal,
`{"error": {"code": "invalid_input", "message", "details": {"field": "analysis.steps[2].page"}}}`;
every bound is written once, here, and the OpenAPI components are generated from these models.
"""
from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Any, Literal, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, WithJsonSchema, model_validator

from workbench_app.errors import invalid
from workbench_app.request_shapes import DefinitionPart, RequestShape, Text, WholeNumber, definition_refusal, refused
from workbench_app.statements.shapes import RowLimit, StatementId

# A variable whose value is a saved segment's id, replaced by its subquery of visit ids before the
# statement runs (content/segments.py `expand`).
SEGMENT_TYPE = "segment"
MAX_STEPS = 10  # a funnel's steps
MAX_PATH_STEPS = 5  # a path's steps before and after the chosen page, each
MAX_BRANCHES = 20  # a path's pages per step (the rest grouped as "other")
MAX_PERIODS = 12  # retention's periods after the cohort's
MAX_PROPERTIES = 5  # property conditions of one event
MAX_RANGE_DAYS = 366 * 3
WINDOW_SECONDS = {"minute": 60, "hour": 3600, "day": 86_400}
MAX_WINDOW_DAYS = 90

Pattern = Text(500, allow_empty=False)


def _date(value: Any) -> dt.date:
    if not isinstance(value, str):
        raise refused("A date is written YYYY-MM-DD.")
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise refused("A date is written YYYY-MM-DD.") from None


IsoDate = Annotated[str, Field(json_schema_extra={"format": "date"})]


class DateRange(DefinitionPart):
    """Either `from` and `to` (days, both included, UTC) or the `last` n whole days, weeks or months
    before the current one (a saved analysis stays relative)."""
    from_: IsoDate | None = Field(None, alias="from")
    to: IsoDate | None = None
    last: WholeNumber(1, 1000) | None = None
    unit: Literal["day", "week", "month"] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "DateRange":
        fixed = self.from_ is not None or self.to is not None
        relative = self.last is not None or self.unit is not None
        if fixed == relative:
            raise refused("A date range has from and to, or last and unit.")
        if fixed:
            if self.from_ is None or self.to is None:
                raise refused("A date range has from and to, or last and unit.")
            start, end = _date(self.from_), _date(self.to)
            if end < start or (end - start).days > MAX_RANGE_DAYS:
                raise refused(f"to is on or after from, at most {MAX_RANGE_DAYS} days later.")
        elif self.last is None or self.unit is None:
            raise refused("A date range has from and to, or last and unit.")
        return self


class PropertyCondition(DefinitionPart):
    """A condition on one of the event's properties (`props`), compared as text."""
    key: Text(128, allow_empty=False)
    operator: Literal["=", "!=", "contains"] = "="
    value: Text(500)


class EventMatch(DefinitionPart):
    """An event by name, with conditions on its properties."""
    event: Text(200, allow_empty=False)
    properties: Annotated[list[PropertyCondition], Field(max_length=MAX_PROPERTIES)] = []


class FunnelStep(DefinitionPart):
    """A page view whose path matches `page` (`*` stands for any characters), or an event."""
    page: Pattern | None = None
    event: Text(200, allow_empty=False) | None = None
    properties: Annotated[list[PropertyCondition], Field(max_length=MAX_PROPERTIES)] = []
    """Conditions on the event's properties (an event step only)."""
    label: Text(200) | None = None
    """The step's name on the chart (the page or the event when left out)."""

    @model_validator(mode="after")
    def _page_or_event(self) -> "FunnelStep":
        if (self.page is None) == (self.event is None):
            raise refused("A step is a page or an event, not both.")
        if self.page is not None and self.properties:
            raise refused("Property conditions belong to an event step.")
        return self


class ConversionWindow(DefinitionPart):
    """The most time from the first step to the last."""
    amount: WholeNumber(1, 10_000)
    unit: Literal["minute", "hour", "day"]

    @model_validator(mode="after")
    def _bounded(self) -> "ConversionWindow":
        if self.amount * WINDOW_SECONDS[self.unit] > MAX_WINDOW_DAYS * 86_400:
            raise refused(f"The conversion window is at most {MAX_WINDOW_DAYS} days.")
        return self


SiteId = Annotated[str | None, Field(json_schema_extra={"format": "uuid"})]


class _Analysis(DefinitionPart):
    site_id: SiteId = None
    """The site (every site the caller may read when left out)."""
    date_range: DateRange
    segment_id: WholeNumber(1) | None = None
    """Only the visits of this saved segment (GET /segments; the caller must be able to view it)."""

    @model_validator(mode="after")
    def _site(self) -> "_Analysis":
        if self.site_id is not None:
            try:
                uuid.UUID(self.site_id)
            except ValueError:
                raise refused("site_id is a site's id (a UUID).") from None
        return self


class FunnelDefinition(_Analysis):
    """Visitors who did the steps in order, each after the one before, within the window from the first."""
    kind: Literal["funnel"]
    steps: Annotated[list[FunnelStep], Field(min_length=2, max_length=MAX_STEPS)]
    window: ConversionWindow


class PathDefinition(_Analysis):
    """The pages viewed before and after a page (`start: "page"`), or after the entry page of each
    visit (`start: "entry"`), within visits."""
    kind: Literal["path"]
    start: Literal["page", "entry"] = "page"
    page: Pattern | None = None
    """The chosen page's path (`*` stands for any characters); only with start "page"."""
    steps_before: WholeNumber(0, MAX_PATH_STEPS) = 0
    steps_after: WholeNumber(0, MAX_PATH_STEPS) = 3
    branches: WholeNumber(1, MAX_BRANCHES) = 5
    """Pages kept per step, the most viewed; the others are grouped as one "other" node (null)."""

    @model_validator(mode="after")
    def _anchored(self) -> "PathDefinition":
        if (self.start == "page") != (self.page is not None):
            raise refused('page is required with start "page", and only then.')
        if self.start == "entry" and self.steps_before:
            raise refused("No page comes before an entry page: steps_before is 0.")
        if self.steps_before + self.steps_after == 0:
            raise refused("A path has at least one step before or after the page.")
        return self


class RetentionDefinition(_Analysis):
    """Cohorts of visitors by the period of their first visit (or of their first `cohort_event`),
    and how many came back in each period after. Cookie and consent-given visitors only: a
    cookieless visitor's key changes every day, so they cannot be seen to return."""
    kind: Literal["retention"]
    period: Literal["week", "month"] = "week"
    periods: WholeNumber(1, MAX_PERIODS) = 8
    cohort_event: EventMatch | None = None
    """The event that puts a visitor in a cohort (their first visit when left out)."""


Definition = Annotated[Union[FunnelDefinition, PathDefinition, RetentionDefinition], Field(discriminator="kind")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(Definition)
DEFINITIONS = (FunnelDefinition, PathDefinition, RetentionDefinition)
# The request field: any value, checked by `definition()`, documented by the component.
AnalysisDefinition = Annotated[Any, WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/AnalysisDefinition"}]})]


def definition(value: Any, field: str = "analysis") -> FunnelDefinition | PathDefinition | RetentionDefinition:
    """The definition as its model, or the refusal of its first fault (naming the part at fault)."""
    if not isinstance(value, dict):
        raise invalid(f"{field} must be a JSON object.", field=field)
    if value.get("kind") not in ("funnel", "path", "retention"):
        raise invalid(f"{field}.kind must be one of funnel, path, retention.", field=f"{field}.kind",
                      allowed=["funnel", "path", "retention"])
    try:
        return _ADAPTER.validate_python(value)
    except ValidationError as error:
        raise definition_refusal(field, error.errors()[0], tags=("funnel", "path", "retention")) from None


class AnalysisCompile(RequestShape):
    model_config = ConfigDict(json_schema_extra={"required": ["analysis"]})
    analysis: AnalysisDefinition = None
    """A funnel, path or retention definition."""


class AnalysisRun(AnalysisCompile):
    row_limit: RowLimit = None
    statement_id: StatementId = None
