"""The home page as the API answers it (base: answer_shapes.py)."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from workbench_app.answer_shapes import AnswerShape
from workbench_app.home.next_steps import STEPS


class HomeItem(AnswerShape):
    kind: Literal["dashboard", "question"]
    id: Annotated[int, Field(ge=1)]
    name: str
    description: str
    when: datetime
    """When the person last opened or changed it (recent), or when it was pinned."""


class NextStep(AnswerShape):
    step: Literal[STEPS]  # type: ignore[valid-type]
    done: bool


class Home(AnswerShape):
    recent: list[HomeItem]
    """What the person opened or changed last in the web application, newest first."""
    pinned: list[HomeItem]
    """Pinned for everyone by an administrator (or by the demo setup); only what the person may read."""
    can_pin: bool
    next_steps: list[NextStep] | None
    """An administrator's next steps of a new installation; null for others."""
    collector_url: str | None
    """The collector's pages as this machine reaches them (administrators)."""
