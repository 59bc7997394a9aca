"""The records as the API answers them (base: answer_shapes.py): the query history and the audit log."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from workbench_app.answer_shapes import AnswerShape
from workbench_app.records.query_history import ORIGINS
from workbench_app.request_shapes import QueryDate, QueryFlag, QueryNumber, QueryShape, Text


class _Page(QueryShape):
    limit: QueryNumber(1, 1000) = 100
    """The most entries answered, newest first."""
    before: QueryNumber() = None
    """Entries older than this one (its id): the next page."""


class HistoryQuery(_Page):
    origin: Literal[ORIGINS] = None  # type: ignore[valid-type]
    all: QueryFlag = "false"
    """Everyone's runs (administrators only; others get their own)."""


class AuditQuery(_Page):
    action: Text() = None
    """Actions starting with this (`sign_in`, `token.created`)."""
    actor: Text() = None
    """Entries whose actor contains this (case-insensitive)."""
    since: QueryDate = None
    """From this UTC day."""
    until: QueryDate = None
    """Up to this UTC day, included."""


class HistoryEntry(AnswerShape):
    """One statement run: by whom, from where, how long, how many rows, how it ended."""
    query_id: int
    user_id: int | None
    """Null once the account is deleted."""
    user_email: str | None
    origin: Literal[ORIGINS]  # type: ignore[valid-type]
    sql_text: str
    question_id: int | None
    started_at: datetime
    duration_ms: float | None
    row_count: int | None
    status: Literal["ok", "refused", "failed", "cancelled"]
    error_code: str | None


class HistoryList(AnswerShape):
    queries: list[HistoryEntry]


class AuditEntry(AnswerShape):
    """One audited action (a sign-in, a permission, a source, a token, a share, a delivery)."""
    entry_id: int
    at: datetime
    actor_id: int | None
    actor: str | None
    action: str
    target: str | None
    details: Any
    """What the action changed (an object whose fields depend on the action)."""


class AuditList(AnswerShape):
    entries: list[AuditEntry]
