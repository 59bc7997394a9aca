"""Groups as the API answers them (base: answer_shapes.py)."""
from __future__ import annotations

from datetime import datetime

from workbench_app.answer_shapes import AnswerShape


class Group(AnswerShape):
    group_id: int
    name: str
    description: str
    created_at: datetime
    members: list[int]
    """The members' user ids."""


class GroupList(AnswerShape):
    groups: list[Group]
