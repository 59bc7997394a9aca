"""Groups as the API answers them and as requests create them (bases: answer_shapes.py, request_shapes.py)."""
from __future__ import annotations

from datetime import datetime

from workbench_app.answer_shapes import AnswerShape
from workbench_app.request_shapes import RequestShape, Text


class Group(AnswerShape):
    group_id: int
    name: str
    description: str
    created_at: datetime
    members: list[int]
    """The members' user ids."""


class GroupList(AnswerShape):
    groups: list[Group]


class NewGroup(RequestShape):
    name: Text(allow_empty=False)
    description: Text(2000) = ""
