"""The assistant's part of the OpenAPI document (`workbench_app/api/openapi.py` merges it in)."""
from __future__ import annotations

from typing import Any

from workbench_app.openapi_vocabulary import STR as _STR, model_body, ref as _ref
from workbench_app.assistant.shapes import (AssistantAnswer, AssistantProvider, AssistantQuestion, AssistantStatus,
                                            ConversationList, ConversationTitle, ConversationWithMessages,
                                            NewConversation, ProviderChange)

# The request and answer bodies declared as models (their components are generated from them).
REQUESTS = (ProviderChange, NewConversation, ConversationTitle, AssistantQuestion)
ANSWERS = (AssistantProvider, AssistantStatus, ConversationList, ConversationWithMessages, AssistantAnswer)

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
