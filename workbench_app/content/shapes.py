"""Saved content as the API answers it and as requests change it: dashboards, questions, folders, models
and metrics (bases: answer_shapes.py, request_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter, ValidationError, WithJsonSchema

from workbench_app.analyses.shapes import SEGMENT_TYPE, AnalysisDefinition, EventMatch, Pattern
from workbench_app.answer_shapes import AnswerShape
from workbench_app.errors import invalid
from workbench_app.request_shapes import (DefinitionPart, Id, Identifier, QueryNumber, QueryShape, RequestShape, Text,
                                          TextList, WholeNumber, definition_refusal)
from workbench_app.content.dashboard_filters import FILTER_TYPES
from workbench_app.content.folders import LEVELS
from workbench_app.content.models_metrics import AGGREGATIONS
from workbench_app.engine import VARIABLE_TYPES
from workbench_app.statements.shapes import (VARIABLE_TYPES_SCHEMA, BuilderField, ResultColumn, RowLimit,
                                             VariableValues)

# A question variable of type "segment" takes a saved segment's id (content/segments.py expands it
# into a subquery of visit ids before the statement is bound).
QUESTION_VARIABLE_TYPES = (*VARIABLE_TYPES, SEGMENT_TYPE)
CardKind = Literal["question", "text", "heading"]
FilterType = Literal[FILTER_TYPES]  # type: ignore[valid-type]  (a tuple of names: one list of them)
# A filter's default: text, a number, a list of them (a date range, a one-of), or none.
FilterDefault = Union[str, float, list[Union[str, float]], None]


# A question's variables: name -> type (the statement's `{{name}}`; checked against the SQL by
# content/questions.py, which names the variable that is wrong).
Variables = Annotated[dict[str, Any], WithJsonSchema(
    {**VARIABLE_TYPES_SCHEMA, "additionalProperties": {"enum": list(QUESTION_VARIABLE_TYPES)}})]
# A chart's settings, saved with the question as the screens wrote them.
Visualization = Annotated[dict[str, Any], WithJsonSchema({"type": "object", "additionalProperties": True})]


class DashboardTab(AnswerShape):
    tab_id: int
    name: str
    position: int


class DashboardCard(AnswerShape):
    card_id: int
    tab_id: int | None
    kind: CardKind
    question_id: int | None
    question_name: str | None
    visualization: dict[str, object] | None
    variables: dict[str, str] | None
    text: str | None
    col: int
    row: int
    width: int
    height: int


class ValuesSource(AnswerShape):
    """Where a one-of filter takes its values: a column the viewer may read."""
    table: str
    column: str


class FilterLink(AnswerShape):
    """A filter feeds a card's variable (a date range: `variable` and `end_variable`) or a column of its result."""
    card_id: int
    variable: str | None
    end_variable: str | None
    column: str | None


class DashboardFilter(AnswerShape):
    filter_id: int
    name: str
    type: FilterType
    default_value: FilterDefault
    required: bool
    values: ValuesSource | None
    links: list[FilterLink]


class DashboardSummary(AnswerShape):
    """A dashboard as the list shows it: without its tabs, cards and filters."""
    dashboard_id: int
    folder_id: int
    name: str
    description: str
    auto_refresh_seconds: int | None
    cache_ttl_seconds: int
    warm_up: bool
    created_by: int | None
    created_at: datetime
    updated_at: datetime


class Dashboard(DashboardSummary):
    tabs: list[DashboardTab]
    cards: list[DashboardCard]
    filters: list[DashboardFilter]


class DashboardList(AnswerShape):
    dashboards: list[DashboardSummary]


class Model(AnswerShape):
    """A named SQL query that metrics aggregate."""
    model_id: int
    folder_id: int
    name: str
    description: str
    sql: str
    created_by: int | None
    created_at: datetime
    updated_at: datetime


class ModelList(AnswerShape):
    models: list[Model]


class Metric(AnswerShape):
    """An aggregation of a model's column, by dimensions."""
    metric_id: int
    model_id: int
    name: str
    description: str
    aggregation: Literal[AGGREGATIONS]  # type: ignore[valid-type]
    column: str | None
    dimensions: list[str]
    created_at: datetime


class ListedMetric(Metric):
    model: str
    """The model's name."""


class MetricList(AnswerShape):
    metrics: list[ListedMetric]

class Question(AnswerShape):
    """A saved question: SQL with {{variables}}, a builder definition or an analysis (funnel, path,
    retention) compiled to SQL."""
    question_id: int
    folder_id: int
    name: str
    description: str
    kind: Literal["sql", "builder", "analysis"]
    builder: BuilderField | None
    """The builder definition (null for another kind)."""
    analysis: AnalysisDefinition | None
    """The funnel, path or retention definition (null for another kind)."""
    sql: str
    variables: Variables
    visualization: Visualization
    created_by: int | None
    created_at: datetime
    updated_at: datetime


class QuestionList(AnswerShape):
    questions: list[Question]


class FolderGrant(AnswerShape):
    group_id: int
    level: Literal[LEVELS]  # type: ignore[valid-type]


class Folder(AnswerShape):
    folder_id: int
    name: str
    parent_id: int | None
    created_at: datetime
    access: Literal[LEVELS] | None  # type: ignore[valid-type]
    """The caller's access (null: none, for an administrator's view of another's folder)."""
    personal: bool
    """A person's personal folder, or inside one."""
    mine: bool
    """The caller's own personal folder, or inside it."""
    groups: list[FolderGrant]


class FolderList(AnswerShape):
    folders: list[Folder]


class ResultColumns(AnswerShape):
    """A question's result columns, without running it over the data."""
    columns: list[ResultColumn]


class FilterValues(AnswerShape):
    values: list[str | float | bool]
    truncated: bool
    """More values than shown: search."""


class DashboardCacheCount(AnswerShape):
    dashboard_id: int
    name: str
    cache_ttl_seconds: int
    warm_up: bool
    hits: int
    misses: int
    entries: int
    """Fresh results held."""
    hit_ratio: float | None
    """hits / (hits + misses); null before the first read."""


class DashboardCacheCounts(AnswerShape):
    dashboards: list[DashboardCacheCount]


# A dashboard's tabs, cards or filters: each item is checked by the area's functions
# (content/dashboards.py, content/dashboard_filters.py), which name the item that is wrong.
Layout = Annotated[list[Any], Field(json_schema_extra={"items": {"type": "object", "additionalProperties": True}})]


class ContentChange(RequestShape):
    """What every saved piece of content has: a name, a description, a folder."""
    name: Text(allow_empty=False) = None
    description: Text(5000) = None
    folder_id: Id = None


class DashboardChange(ContentChange):
    """A change of a dashboard: only the fields given change; `tabs`, `cards` and `filters`, when
    given, replace the layout whole."""
    cache_ttl_seconds: WholeNumber(0, 86_400) = None
    """How long card results stay cached (300; 0: no cache)."""
    warm_up: bool = None
    """Fill the result cache after each build of the views the cards read (false)."""
    auto_refresh_seconds: WholeNumber(10, 86_400) | None = None
    """Reload the cards this often (null: never)."""
    tabs: Layout = None
    cards: Layout = None
    filters: Layout = None


class NewDashboard(DashboardChange):
    name: Text(allow_empty=False)


class ModelChange(RequestShape):
    """A change of a model: only the fields given change."""
    name: Text(allow_empty=False) = None
    sql: Text(100_000, allow_empty=False) = None
    """One SELECT statement (a trailing semicolon is dropped)."""
    description: Text(5000) = None


class NewModel(ModelChange):
    name: Text(allow_empty=False)
    sql: Text(100_000, allow_empty=False)
    """One SELECT statement (a trailing semicolon is dropped)."""
    description: Text(5000) = ""
    folder_id: Id = None
    """The folder (the creator's personal folder when left out)."""


class NewMetric(RequestShape):
    model_id: Id
    name: Identifier
    aggregation: Literal[AGGREGATIONS]  # type: ignore[valid-type]
    column: Text(128, allow_empty=False) = None
    """The model's column it aggregates (none for a count of rows)."""
    dimensions: TextList(20, 128) = []
    """The model's columns it may be grouped by."""
    description: Text(5000) = ""




class QuestionChange(ContentChange):
    """A change of a question: only the fields given change."""
    kind: Literal["sql", "builder", "analysis"] = None
    sql: Text(100_000) = None
    variables: Variables = None
    builder: BuilderField = None
    analysis: AnalysisDefinition = None
    """A funnel, path or retention definition (kind "analysis")."""
    visualization: Visualization = None


class NewQuestion(QuestionChange):
    name: Text(allow_empty=False)


class NewFolder(RequestShape):
    name: Text(allow_empty=False)
    parent_id: Id = None
    """The parent folder; left out, a shared top-level folder (administrators only)."""


class FolderName(RequestShape):
    name: Text(allow_empty=False)


class FolderAccess(RequestShape):
    level: Literal[LEVELS] | None = None  # type: ignore[valid-type]
    """The group's access to the folder: null (or none given) removes it."""


# The runs of saved content change nothing: no body at all is an empty one.


class QuestionRun(RequestShape):
    variables: VariableValues = {}
    """Values of the question's variables (their defaults for those left out)."""
    row_limit: RowLimit = None


class QuestionDownload(QuestionRun):
    row_limit: WholeNumber(1) = None
    """At most the export row bound (ANALYTICS_WORKBENCH_EXPORT_ROW_LIMIT, 1,000,000 by default)."""


class MetricQuery(RequestShape):
    dimensions: TextList(20, 128) = []
    """The metric's dimensions to group by."""
    row_limit: RowLimit = None


class CardRun(RequestShape):
    filters: Annotated[dict[str, Any], WithJsonSchema({"type": "object", "additionalProperties": True})] = {}
    """Filter values keyed by filter id or name: `{"country": "FR"}`."""
    row_limit: RowLimit = None


# The query parameters of the content's lists.

class QuestionsQuery(QueryShape):
    folder_id: QueryNumber() = None
    """The questions of this folder."""
    search: Text() = None
    """Questions whose name contains this (case-insensitive)."""


class ValuesQuery(QueryShape):
    """A one-of filter's values (the dashboard's, a public link's, an embedded dashboard's)."""
    search: Text() = None
    """Values containing this (case-insensitive)."""


# --- segments --------------------------------------------------------------------------------

MAX_SEGMENTS = 500  # per folder tree a person can see: the list is not paged
MAX_SEGMENT_VALUES = 100  # channels, countries or devices of one condition
# A value given twice is kept once, in its first place: the saved segment reads as the editor shows it.
SegmentValues = Annotated[list[Text(200, allow_empty=False)], Field(max_length=MAX_SEGMENT_VALUES),
                          AfterValidator(lambda values: list(dict.fromkeys(values)))]


class SegmentConditions(DefinitionPart):
    """The visits a segment keeps: every condition given holds (a condition left out or empty is none).
    Values are compared exactly as the `analytics.visits` view has them."""
    channels: SegmentValues = []
    """The visit's channel is one of these (`visits.channel`)."""
    countries: SegmentValues = []
    """The visit's country is one of these (`visits.country`, ISO 3166 codes)."""
    devices: SegmentValues = []
    """The visit's kind of device is one of these (`visits.device_class`)."""
    landing_page: Pattern | None = None
    """The visit's entry page path matches (`*` stands for any characters)."""
    goal: Text(200, allow_empty=False) | None = None
    """The visit reached this goal (`conversions.goal_name`)."""
    event: EventMatch | None = None
    """The visit has this event, with these property conditions (`events.props`)."""

    def is_empty(self) -> bool:
        return not (self.channels or self.countries or self.devices or self.landing_page or self.goal or self.event)


_CONDITIONS = TypeAdapter(SegmentConditions)
# The request field: any value, checked by `segment_conditions()`, documented by the component.
SegmentConditionsField = Annotated[Any, WithJsonSchema({"allOf": [{"$ref": "#/components/schemas/SegmentConditions"}]})]


def segment_conditions(value: Any, field: str = "conditions") -> SegmentConditions:
    """The conditions as their model, or the refusal of their first fault (naming the part at fault)."""
    if not isinstance(value, dict):
        raise invalid(f"{field} must be a JSON object.", field=field)
    try:
        conditions = _CONDITIONS.validate_python(value)
    except ValidationError as error:
        raise definition_refusal(field, error.errors()[0]) from None
    if conditions.is_empty():
        raise invalid("A segment has at least one condition.", field=field)
    return conditions


class Segment(AnswerShape):
    """A saved set of conditions on visits; it has its folder's access, as a question has."""
    segment_id: int
    folder_id: int
    name: str
    description: str
    conditions: SegmentConditionsField
    created_by: int | None
    created_at: datetime
    updated_at: datetime


class SegmentList(AnswerShape):
    segments: list[Segment]


class SegmentsQuery(QueryShape):
    folder_id: QueryNumber() = None
    """The segments of this folder."""


class SegmentChange(ContentChange):
    """A change of a segment: only the fields given change; `conditions`, when given, replace them whole."""
    conditions: SegmentConditionsField = None


class NewSegment(SegmentChange):
    model_config = ConfigDict(json_schema_extra={"required": ["name", "conditions"]})
    name: Text(allow_empty=False)
    conditions: SegmentConditionsField = None
