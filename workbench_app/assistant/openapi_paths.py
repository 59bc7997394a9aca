"""The assistant's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import INT as _INT, STAMP as _STAMP, STR as _STR
from workbench_app.openapi_vocabulary import model_body, object_of as _object, ref as _ref
from workbench_app.assistant.provider_config import LIMITS
from workbench_app.assistant.shapes import AssistantQuestion, ConversationTitle, NewConversation, ProviderChange

# The request bodies declared as models (their components are generated from them).
REQUESTS = (ProviderChange, NewConversation, ConversationTitle, AssistantQuestion)



_ARTIFACT = _object({"kind": {"enum": ["sql", "chart"]}, "sql": _STR, "title": _STR,
                     "chart": _object({"kind": _STR, "x": _STR, "y": {"type": "array", "items": _STR}}),
                     "error": _object({"code": _STR, "message": _STR})}, optional=("title", "chart", "error"))
SCHEMAS: dict[str, Any] = {
    "AssistantProvider": _object({
        "enabled": {"type": "boolean"}, "source": {"enum": ["settings", "environment", "none"]},
        "base_url": {"type": ["string", "null"]}, "model": {"type": ["string", "null"]},
        "api_key_set": {"type": "boolean", "description": "Whether a key is set (the key itself is never returned)."},
        "organization": {"type": ["string", "null"]}, "header_names": {"type": "array", "items": _STR},
        **{name: _INT for name in LIMITS}}),
    "AssistantStatus": _object({"enabled": {"type": "boolean"}, "usage": _object({
        "requests": _INT, "tokens": _INT, "requests_per_hour": _INT, "tokens_per_hour": _INT, "resets_at": _STAMP})}),
    "Conversation": _object({"conversation_id": _INT, "title": _STR, "created_at": _STAMP, "updated_at": _STAMP}),
    "ConversationList": _object({"conversations": {"type": "array", "items": _ref("Conversation")}}),
    "AssistantArtifact": _ARTIFACT,
    "AssistantMessage": _object({
        "message_id": _INT, "role": {"enum": ["user", "assistant"]},
        "content": {"type": "string", "description": "Markdown text: shown as text, never as HTML."},
        "artifacts": {"type": "array", "items": _ref("AssistantArtifact")},
        "error": {"oneOf": [_object({"code": _STR, "message": _STR}), {"type": "null"}]}, "created_at": _STAMP}),
    "ConversationWithMessages": {"allOf": [_ref("Conversation"), _object({
        "messages": {"type": "array", "items": _ref("AssistantMessage")}})]},
    # What the answer (and its `tool` and `notice` events) says of each tool run and each tool call
    # the model got wrong.
    "AssistantToolRun": _object({
        "name": _STR, "artifact": {"oneOf": [_ref("AssistantArtifact"), {"type": "null"}]},
        "result": {**_object({"columns": {"type": "array", "items": _object({"name": _STR, "type": _STR})},
                              "rows": {"type": "array", "items": {"type": "array"}}, "row_count": _INT,
                              "truncated": {"type": "boolean"}, "elapsed_ms": {"type": "number"}},
                             optional=("elapsed_ms",)),
                   "description": "run_sql and show_chart: the first 50 rows of the result, as the asker saw them."},
        "error": _object({"code": _STR, "message": _STR, "details": {}}, optional=("details",))},
        optional=("result", "error")),
    "AssistantNotice": _object({"code": _STR, "message": _STR, "details": {}}, optional=("details",)),
    "AssistantAnswer": _object({
        "user_message": _ref("AssistantMessage"), "message": _ref("AssistantMessage"),
        "tools": {"type": "array", "items": _ref("AssistantToolRun")},
        "notices": {"type": "array", "items": _ref("AssistantNotice")}}),
}

_EVENTS = ("Server-sent events, in order: `message` (the person's message, stored), then any of `delta` "
           "({text}: the answer so far, streamed), `tool` ({name, artifact, result?, error?}: a tool ran as the "
           "asker), `notice` ({code, message}: a tool call the model got wrong, told to it), and finally `done` "
           "({message}) or `error` ({code, message, status}: a provider failure, in the person's language).")


def paths(op, also) -> dict[str, Any]:
    """The paths, built with the document's own helpers (`_operation`, `_also`)."""
    conversation = ("conversation_id",)
    send = also(op("Send a message to the assistant", "assistant", ok=201, params=conversation,
                   result=_ref("AssistantAnswer"),
                   body=model_body(AssistantQuestion)),
                ("429", "assistant_quota_exceeded: the hourly quota is used; Retry-After says how many seconds "
                        "until it resets, details.resets_at when"),
                ("502", "provider_*: the provider failed (unreachable, refused key, its own rate limit, an "
                        "unreadable answer) or the tool rounds ran out"),
                ("504", "provider_timeout: the provider did not answer in time"))
    send["responses"]["200"] = {"description": "With `Accept: text/event-stream`: " + _EVENTS,
                                "content": {"text/event-stream": {"schema": _STR}}}
    send["responses"]["409"]["description"] = "assistant_not_configured: no provider is configured"
    return {
        "/assistant/provider": {
            "get": op("Get the assistant provider", "assistant", result=_ref("AssistantProvider")),
            "put": op("Configure the assistant provider", "assistant", result=_ref("AssistantProvider"),
                      body=model_body(ProviderChange)),
            "delete": op("Clear the assistant provider", "assistant", result=_ref("AssistantProvider"))},
        "/assistant/status": {"get": op("Get the assistant status", "assistant", result=_ref("AssistantStatus"))},
        "/assistant/conversations": {
            "get": op("List my conversations", "assistant", result=_ref("ConversationList")),
            "post": op("Start a conversation", "assistant", ok=201, result=_ref("Conversation"),
                       body=model_body(NewConversation))},
        "/assistant/conversations/{conversation_id}": {
            "get": op("Get a conversation", "assistant", params=conversation, result=_ref("ConversationWithMessages")),
            "patch": op("Rename a conversation", "assistant", params=conversation, result=_ref("Conversation"),
                        body=model_body(ConversationTitle)),
            "delete": op("Delete a conversation", "assistant", ok=204, params=conversation)},
        "/assistant/conversations/{conversation_id}/messages": {"post": send},
    }
