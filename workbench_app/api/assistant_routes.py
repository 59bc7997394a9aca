"""`/api/v1/assistant/...`: the provider's settings (administrators), the person's conversations.

A conversation is its owner's only: another person, administrators included, gets 404. Sending a
message answers with server-sent events when the request accepts `text/event-stream` (what the
screen does), else with one JSON answer once the assistant has finished.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from flask import Blueprint, Response, jsonify, request, stream_with_context

from workbench_app import input_checks as check
from workbench_app.api.authentication import identity, json_body, require_admin, services
from workbench_app.assistant import chat_turn, conversations, provider_config, quota
from workbench_app.assistant.shapes import AssistantQuestion, ConversationTitle, NewConversation, ProviderChange
from workbench_app.errors import WorkbenchError
from workbench_app.i18n import translate
from workbench_app.json_encoding import WorkbenchJSONProvider
from workbench_app.request_shapes import validated

blueprint = Blueprint("assistant", __name__, url_prefix="/assistant")


def _config(conn) -> provider_config.ProviderConfig:
    return provider_config.effective(conn, services().settings)


@blueprint.get("/provider")
def read_provider():
    require_admin()
    with services().transaction() as conn:
        return jsonify(provider_config.describe(_config(conn)))


@blueprint.put("/provider")
def update_provider():
    who = require_admin()
    given = validated(ProviderChange, json_body()).given()
    with services().transaction() as conn:
        return jsonify(provider_config.describe(provider_config.update(conn, services().settings, who, given)))


@blueprint.delete("/provider")
def clear_provider():
    who = require_admin()
    with services().transaction() as conn:
        return jsonify(provider_config.describe(provider_config.clear(conn, services().settings, who)))


@blueprint.get("/status")
def status():
    """Whether the assistant is on, and the caller's use of this hour's quota."""
    with services().transaction() as conn:
        config = _config(conn)
        return jsonify({"enabled": config.enabled, "usage": quota.usage(conn, config, identity().user_id)})


def _shown(message: dict[str, Any]) -> dict[str, Any]:
    """A stored message for the API, its failure's message in the caller's language."""
    shown = dict(message)
    if shown.get("error"):
        shown["error"] = {**shown["error"], "message": translate(shown["error"]["message"])}
    for artifact in shown.get("artifacts") or []:
        if artifact.get("error"):
            artifact["error"] = {**artifact["error"], "message": translate(artifact["error"]["message"])}
    return shown


@blueprint.get("/conversations")
def list_conversations():
    with services().transaction() as conn:
        return jsonify({"conversations": conversations.list_own(conn, identity().user_id)})


@blueprint.post("/conversations")
def create_conversation():
    title = validated(NewConversation, json_body()).title.strip()
    with services().transaction() as conn:
        return jsonify(conversations.create(conn, identity().user_id, title or "New conversation")), 201


@blueprint.get("/conversations/<conversation_id>")
def read_conversation(conversation_id):
    conversation_id = check.path_id(conversation_id, "Conversation")
    with services().transaction() as conn:
        found = conversations.get_own(conn, identity().user_id, conversation_id)
        messages = conversations.shown_messages(conn, conversation_id)
    return jsonify({**found, "messages": [_shown(m) for m in messages]})


@blueprint.patch("/conversations/<conversation_id>")
def rename_conversation(conversation_id):
    conversation_id = check.path_id(conversation_id, "Conversation")
    title = validated(ConversationTitle, json_body()).title.strip()
    with services().transaction() as conn:
        return jsonify(conversations.rename(conn, identity().user_id, conversation_id, title))


@blueprint.delete("/conversations/<conversation_id>")
def delete_conversation(conversation_id):
    conversation_id = check.path_id(conversation_id, "Conversation")
    with services().transaction() as conn:
        conversations.delete(conn, identity().user_id, conversation_id)
    return "", 204


def _sse(kind: str, data: dict[str, Any]) -> str:
    payload = json.dumps(data, default=WorkbenchJSONProvider.default, ensure_ascii=False)
    return f"event: {kind}\ndata: {payload}\n\n"


def _translated(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind in ("notice", "error"):
        return {**data, "message": translate(data["message"])}
    if kind == "tool" and data.get("error"):
        artifact = data.get("artifact")
        if artifact and artifact.get("error"):
            artifact = {**artifact, "error": {**artifact["error"], "message": translate(artifact["error"]["message"])}}
        return {**data, "artifact": artifact,
                "error": {**data["error"], "message": translate(data["error"]["message"])}}
    if kind == "done":
        return {"message": _shown(data["message"])}
    return data


@blueprint.post("/conversations/<conversation_id>/messages")
def send_message(conversation_id):
    """Add the person's message and answer it (checks and quota first: those refusals are plain JSON)."""
    conversation_id = check.path_id(conversation_id, "Conversation")
    content = validated(AssistantQuestion, json_body()).content
    who = identity()
    workbench = services()
    with workbench.transaction() as conn:
        conversations.get_own(conn, who.user_id, conversation_id, lock=True)
        config = provider_config.require_enabled(_config(conn))
        quota.take_request(conn, config, who.user_id)
        user_message = conversations.add_message(conn, conversation_id, "user", content)
    events = chat_turn.answer(workbench, who, config, conversation_id)
    if "text/event-stream" in request.headers.get("Accept", ""):
        def stream() -> Iterator[str]:
            yield _sse("message", {"message": user_message})
            for kind, data in events:
                yield _sse(kind, _translated(kind, data))
        return Response(stream_with_context(stream()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    notices, tools = [], []
    for kind, data in events:
        if kind == "notice":
            notices.append(_translated(kind, data))
        elif kind == "tool":
            tools.append(_translated(kind, data))
        elif kind == "error":
            raise WorkbenchError(data["status"], data["code"], data["message"],
                                 {**data["details"], "message_id": data["message_id"]})
        elif kind == "done":
            return jsonify({"user_message": user_message, "message": _translated(kind, data)["message"],
                            "tools": tools, "notices": notices}), 201
    raise WorkbenchError(502, "provider_bad_answer", "The assistant's provider sent an answer that could not be read.")
