"""The assistant's requests: an administrator's provider settings, and a person's conversations
(base: request_shapes.py); and its answers: the provider, the status, conversations, messages and
what a tool run gave (base: answer_shapes.py)."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, create_model

from workbench_app.answer_shapes import AnswerShape
from workbench_app.assistant.conversations import TITLE_LENGTH
from workbench_app.assistant.provider_config import LIMITS, RESERVED_HEADERS
from workbench_app.request_shapes import RequestShape, Text, WholeNumber, refused
from workbench_app.statements.shapes import ResultColumn

MAX_MESSAGE = 20_000
MAX_HEADERS = 20
_BASE_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$")
_HEADER_NAME = re.compile(r"^[A-Za-z0-9-]{1,100}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _base_url(value: str) -> str:
    if not _BASE_URL.match(value):
        raise refused("base_url must be an http:// or https:// address.")
    return value


def _headers(value: dict) -> dict:
    if len(value) > MAX_HEADERS or not all(
            _HEADER_NAME.match(name) and name.lower() not in RESERVED_HEADERS
            and isinstance(item, str) and len(item) <= 2000 and not _CONTROL.search(item)
            for name, item in value.items()):
        raise refused("headers must map up to 20 header names to values (not Authorization or Content-Type).")
    return value


Headers = Annotated[dict, AfterValidator(_headers), Field(json_schema_extra={
    "maxProperties": MAX_HEADERS, "propertyNames": {"pattern": _HEADER_NAME.pattern},
    "additionalProperties": {"type": "string", "maxLength": 2000, "pattern": "^[^\\x00-\\x1f\\x7f]*$"}})]

# An administrator's change of the provider: a field given replaces the stored one; null clears it
# (the environment's value applies again); `api_key` "" or null clears the key. The limits come
# with their bounds from provider_config.py (the migration checks the same).
ProviderChange = create_model(
    "ProviderChange", __base__=RequestShape,
    base_url=(Annotated[Text(2000), AfterValidator(_base_url)] | None, None),
    model=(Text(200) | None, None),
    organization=(Text(200) | None, None),
    api_key=(Text(4000) | None, Field(None, json_schema_extra={"writeOnly": True})),
    headers=(Headers, Field(None, description="Extra HTTP headers sent to the provider (replace the stored ones).")),
    **{name: (WholeNumber(low, high) | None, None) for name, (low, high) in LIMITS.items()})


class NewConversation(RequestShape):
    title: Text(TITLE_LENGTH) = ""


class ConversationTitle(RequestShape):
    title: Text(TITLE_LENGTH, allow_empty=False)


class AssistantQuestion(RequestShape):
    content: Text(MAX_MESSAGE, allow_empty=False)
    """The person's message (Markdown)."""


# The answers (base: answer_shapes.py).

# The provider as an administrator sees it; its limits come with provider_config.py's names.
AssistantProvider = create_model(
    "AssistantProvider", __base__=AnswerShape,
    enabled=(bool, ...),
    source=(Literal["settings", "environment", "none"], ...),
    base_url=(str | None, ...),
    model=(str | None, ...),
    api_key_set=(bool, Field(description="Whether a key is set (the key itself is never returned).")),
    organization=(str | None, ...),
    header_names=(list[str], Field(description="The extra headers' names (their values are never returned).")),
    **{name: (int, ...) for name in LIMITS})


class AssistantUsage(AnswerShape):
    requests: int
    tokens: int
    requests_per_hour: int
    tokens_per_hour: int
    resets_at: datetime


class AssistantStatus(AnswerShape):
    enabled: bool
    usage: AssistantUsage
    """The person's use of the hourly quota."""


class Conversation(AnswerShape):
    conversation_id: int
    title: str
    created_at: datetime
    updated_at: datetime


class ConversationList(AnswerShape):
    conversations: list[Conversation]


class AssistantChart(AnswerShape):
    kind: str
    x: str
    y: list[str]


class AssistantError(AnswerShape):
    code: str
    message: str


class AssistantArtifact(AnswerShape):
    """A statement the assistant ran, or a chart it drew, to open in the SQL editor."""
    kind: Literal["sql", "chart"]
    sql: str
    title: str | None = None
    chart: AssistantChart | None = None
    error: AssistantError | None = None


class AssistantMessage(AnswerShape):
    message_id: int
    role: Literal["user", "assistant"]
    content: str
    """Markdown text: shown as text, never as HTML."""
    artifacts: list[AssistantArtifact]
    error: AssistantError | None
    created_at: datetime


class ConversationWithMessages(Conversation):
    messages: list[AssistantMessage]


class AssistantToolResult(AnswerShape):
    """run_sql and show_chart: the first 50 rows of the result, as the asker saw them."""
    columns: list[ResultColumn]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    elapsed_ms: float | None = None


class AssistantNotice(AnswerShape):
    """A tool call the model got wrong (told to it), or a tool's refusal."""
    code: str
    message: str
    details: Any = None


class AssistantToolRun(AnswerShape):
    """What the answer (and its `tool` event) says of a tool run, as the asker."""
    name: str
    artifact: AssistantArtifact | None
    result: AssistantToolResult | None = None
    error: AssistantNotice | None = None


class AssistantAnswer(AnswerShape):
    user_message: AssistantMessage
    message: AssistantMessage
    tools: list[AssistantToolRun]
    notices: list[AssistantNotice]
