"""The assistant's requests: an administrator's provider settings, and a person's conversations
(base: request_shapes.py)."""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, Field, create_model

from workbench_app.assistant.conversations import TITLE_LENGTH
from workbench_app.assistant.provider_config import LIMITS, RESERVED_HEADERS
from workbench_app.request_shapes import RequestShape, Text, WholeNumber, refused

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
