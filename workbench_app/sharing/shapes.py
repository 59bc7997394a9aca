"""A shared dashboard as its visitor's page reads it (base: answer_shapes.py)."""
from __future__ import annotations

from typing import Literal

from workbench_app.answer_shapes import AnswerShape
from workbench_app.content.shapes import Dashboard, DashboardFilter


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
