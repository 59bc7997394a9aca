"""A shared dashboard as its visitor's page reads it, the public links and embedding secrets that
share one, and the requests that create them (bases: answer_shapes.py, request_shapes.py)."""
from __future__ import annotations

from datetime import datetime
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


class PublicLink(AnswerShape):
    link_id: int
    dashboard_id: int
    allowed_filters: list[str]
    """The filters a visitor may set (the others keep their defaults)."""
    allow_pdf: bool
    created_by: int
    created_at: datetime
    revoked_at: datetime | None


class PublicLinkList(AnswerShape):
    public_sharing: bool
    """Whether public sharing is on (off: no link answers)."""
    links: list[PublicLink]


class NewPublicLink(AnswerShape):
    link: PublicLink
    secret: str
    """The link's secret: shown this once."""
    path: str
    """The address to hand out: /public/<secret>."""


class EmbeddingSecret(AnswerShape):
    secret_id: int
    kid: str
    """The key id a token names in its header."""
    name: str
    group_id: int
    group_name: str
    account_id: int
    """The account an embedded dashboard's statements run as (the group's rules apply)."""
    allowed_origins: list[str]
    created_at: datetime
    revoked_at: datetime | None


class EmbeddingSecretList(AnswerShape):
    secrets: list[EmbeddingSecret]


class NewEmbeddingSecret(AnswerShape):
    embedding_secret: EmbeddingSecret
    secret: str
    """The HS256 signing secret: shown this once."""


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
