"""Saved content as the API answers it: dashboards, models and metrics (base: answer_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal, Union

from workbench_app.answer_shapes import AnswerShape
from workbench_app.content.dashboard_filters import FILTER_TYPES
from workbench_app.content.models_metrics import AGGREGATIONS

CardKind = Literal["question", "text", "heading"]
FilterType = Literal[FILTER_TYPES]  # type: ignore[valid-type]  (a tuple of names: one list of them)
# A filter's default: text, a number, a list of them (a date range, a one-of), or none.
FilterDefault = Union[str, float, list[Union[str, float]], None]


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
