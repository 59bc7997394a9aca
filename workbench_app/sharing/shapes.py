"""A shared dashboard as its visitor's page reads it, and the requests that share one (bases:
answer_shapes.py, request_shapes.py)."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import WithJsonSchema

from workbench_app.answer_shapes import AnswerShape
from workbench_app.content.shapes import Dashboard, DashboardFilter
from workbench_app.request_shapes import RequestShape, Text, TextList, WholeNumber


class SharedFilter(DashboardFilter):
    settable: bool
    """Whether the share lets its visitor set this filter (the others keep their defaults)."""


class ShareTerms(AnswerShape):
    kind: Literal["public_link", "embed"]
    allowed_origins: list[str]
    allow_pdf: bool
    """Whether the PDF endpoint answers."""


class SharedDashboard(Dashboard):
    """The dashboard of a public link or an embed, as its visitor sees it."""
    filters: list[SharedFilter]  # type: ignore[assignment]  (each marked settable or not)
    share: ShareTerms


class PublicLinkRequest(RequestShape):
    allowed_filters: TextList(200, 200) = []
    """The filters a visitor may set, by name (the others keep their defaults)."""
    allow_pdf: bool = False
    """Whether the link offers the dashboard as PDF."""


class EmbeddingSecretRequest(RequestShape):
    name: Text(allow_empty=False)
    group_id: WholeNumber(1)
    """The group whose rights the embedded dashboards are read with."""
    allowed_origins: TextList(50, 300) = []
    """The host pages' origins, such as https://www.example.com"""


class CardFilters(RequestShape):
    """A shared card's run: the values of the filters the share lets its visitor set."""
    filters: Annotated[dict[str, Any], WithJsonSchema({"type": "object", "additionalProperties": True})] = {}
