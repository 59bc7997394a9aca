"""One answer of the assistant: the provider streams, asks for tools, gets their results, answers.

The provider is any OpenAI-compatible Chat Completions endpoint, reached with the official SDK
(streaming, tool calling). Tools are the workbench's reading tools, run as the asker with the
query history's origin `assistant`. A bounded number of tool rounds per answer. A tool call the
model got wrong (arguments that are not JSON, a tool that does not exist, arguments that do not
fit) is answered to the model as a tool error, so it can correct itself, and shown to the person
as a notice. The provider's own failures end the answer with a refusal (`provider_failures`).

`answer` yields events `(kind, data)`: `delta` (text), `tool` (a tool ran), `notice`, `error`,
`done`; the route sends them as server-sent events or gathers them into one JSON answer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterator

import openai
import pydantic
from mcp.server.mcpserver.tools.base import Tool

from workbench_app.accounts.identity import Identity
from workbench_app.agent_tools import reading_tools
from workbench_app.agent_tools.reading_tools import ToolCaller
from workbench_app.assistant import conversations, model_context, quota
from workbench_app.assistant.provider_config import ProviderConfig
from workbench_app.assistant.provider_failures import bad_answer, provider_failure
from workbench_app.errors import WorkbenchError
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import open_session

ORIGIN = "assistant"
# Rows of a tool's result sent to the browser with the `tool` event (the provider gets fewer).
SHOWN_ROWS = 1000
_CHART_KINDS = {"bar": "bar", "line": "line", "area": "area", "point": "scatter"}

Event = tuple[str, dict[str, Any]]


@lru_cache(maxsize=1)
def tool_definitions() -> dict[str, Tool]:
    """Each shared tool with the argument schema and validator the MCP SDK derives from its signature
    (the tool server publishes the same)."""
    return {name: Tool.from_function(tool, name=name, context_kwarg="caller")
            for name, tool in reading_tools.TOOLS.items()}


def provider_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "description": tool.description,
                                              "parameters": tool.parameters}}
            for name, tool in tool_definitions().items()]


def client_for(config: ProviderConfig) -> openai.OpenAI:
    # No retries: a failure is reported at once, and the quota counts what the person asked.
    return openai.OpenAI(base_url=config.base_url, api_key=config.api_key or "not-set",
                         organization=config.organization, default_headers=config.headers or None,
                         timeout=float(config.timeout_seconds), max_retries=0)


@dataclass
class _Reply:
    text: str = ""
    tool_calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    tokens: int | None = None


def _stream_reply(client: openai.OpenAI, config: ProviderConfig, messages: list[dict]) -> Iterator[Event | _Reply]:
    """One provider call: text deltas as they come, then the whole reply."""
    reply = _Reply()
    try:
        stream = client.chat.completions.create(model=config.model, messages=messages, tools=provider_tools(),
                                                stream=True, stream_options={"include_usage": True})
        for chunk in stream:
            if chunk.usage is not None and chunk.usage.total_tokens is not None:
                reply.tokens = chunk.usage.total_tokens
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is None:
                    continue
                if delta.content:
                    reply.text += delta.content
                    yield "delta", {"text": delta.content}
                for call in delta.tool_calls or []:
                    slot = reply.tool_calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                    slot["id"] = call.id or slot["id"]
                    if call.function is not None:
                        slot["name"] += call.function.name or ""
                        slot["arguments"] += call.function.arguments or ""
    except openai.OpenAIError as error:
        raise provider_failure(error) from None
    except (ValueError, TypeError, AttributeError, pydantic.ValidationError):
        # A chunk that is not the Chat Completions format (bad JSON, missing fields).
        raise bad_answer() from None
    yield reply


def _artifact(name: str, arguments: dict[str, Any], result: dict[str, Any] | None,
              error: WorkbenchError | None) -> dict[str, Any] | None:
    """What the screen shows of a tool run: the SQL it ran, the chart it drew (never the rows: a
    conversation reopened later runs the SQL again, under the person's rights of that day)."""
    if name == "run_sql":
        artifact = {"kind": "sql", "sql": arguments["sql"]}
    elif name == "show_chart":
        chart = {"kind": _CHART_KINDS.get(arguments.get("mark") or "bar", "bar"), "x": arguments["x"],
                 "y": [arguments["y"]]}
        artifact = {"kind": "chart", "sql": arguments["sql"], "chart": chart, "title": arguments.get("title") or ""}
    else:
        return None
    if error is not None:
        artifact["error"] = {"code": error.code, "message": error.message}
    return artifact


def _run_tool(caller: ToolCaller, config: ProviderConfig,
              call: dict[str, Any]) -> tuple[str, list[Event], dict[str, Any] | None]:
    """Run one tool call: (text for the provider, events for the person, artifact)."""
    name = call["name"]
    definition = tool_definitions().get(name)
    if definition is None:
        notice = WorkbenchError(400, "assistant_unknown_tool",
                                f"The model asked for a tool that does not exist ({name[:100]}); it was told so.")
        return (model_context.tool_error_text("unknown_tool", f"There is no tool named {name[:100]!r}."),
                [("notice", notice.as_dict())], None)
    try:
        raw = json.loads(call["arguments"] or "{}")
        if not isinstance(raw, dict):
            raise ValueError("not an object")
    except ValueError:
        return (model_context.tool_error_text("malformed_tool_call", "The arguments are not a JSON object."),
                [("notice", WorkbenchError(400, "assistant_malformed_tool_call", "The model sent a tool call that "
                                           "could not be read; it was told so.").as_dict())], None)
    try:
        arguments = definition.fn_metadata.validate_arguments(raw)
    except pydantic.ValidationError as invalid:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in invalid.errors())
        return (model_context.tool_error_text("bad_arguments", problems[:1000]),
                [("notice", WorkbenchError(400, "assistant_bad_tool_arguments", f"The model called {name} with "
                                           f"arguments that do not fit; it was told so.").as_dict())], None)
    try:
        result = reading_tools.TOOLS[name](caller, **arguments)
    except WorkbenchError as refusal:
        artifact = _artifact(name, arguments, None, refusal)
        return (model_context.tool_error_text(refusal.code, refusal.message),
                [("tool", {"name": name, "artifact": artifact, "error": refusal.as_dict()})], artifact)
    artifact = _artifact(name, arguments, result, None)
    shown: dict[str, Any] = {"name": name, "artifact": artifact}
    if name == "run_sql":
        shown["result"] = {**result, "rows": result["rows"][:SHOWN_ROWS]}
    elif name == "show_chart":
        values = result["spec"]["data"]["values"][:SHOWN_ROWS]
        columns = list(values[0]) if values else [arguments["x"], arguments["y"]]
        shown["result"] = {"columns": [{"name": c, "type": _column_type(result, c)} for c in columns],
                           "rows": [[row.get(c) for c in columns] for row in values],
                           "row_count": result["row_count"], "truncated": result["truncated"]}
    return model_context.tool_result_text(result, config), [("tool", shown)], artifact


def _column_type(chart: dict[str, Any], column: str) -> str:
    """A DuckDB-like type name for the chart component, from the Vega-Lite encoding."""
    for channel in chart["spec"]["encoding"].values():
        if channel["field"] == column:
            return {"quantitative": "DOUBLE", "temporal": "TIMESTAMP"}.get(channel["type"], "VARCHAR")
    return "VARCHAR"


def _estimate_tokens(messages: list[dict], reply: _Reply) -> int:
    """About four characters a token, when the provider reports no usage."""
    sent = sum(len(str(message.get("content") or "")) for message in messages)
    return (sent + len(reply.text) + sum(len(c["arguments"]) for c in reply.tool_calls.values())) // 4 + 1


def answer(services: WorkbenchServices, identity: Identity, config: ProviderConfig,
           conversation_id: int) -> Iterator[Event]:
    """Continue a conversation whose last message is the person's; store what happens as it goes."""
    caller = ToolCaller(services, identity, ORIGIN)
    client = client_for(config)
    artifacts: list[dict[str, Any]] = []
    text = ""
    try:
        system = model_context.system_message(open_session(services, identity))
        for _round in range(config.max_tool_rounds + 1):
            with services.transaction() as conn:
                messages = [system] + conversations.provider_messages(conn, conversation_id)
            reply = None
            try:
                for item in _stream_reply(client, config, messages):
                    if isinstance(item, _Reply):
                        reply = item
                    else:
                        yield item
            finally:
                with services.transaction() as conn:
                    quota.add_tokens(conn, identity.user_id, reply.tokens or _estimate_tokens(messages, reply)
                                     if reply is not None else _estimate_tokens(messages, _Reply()))
            text += reply.text
            if not reply.tool_calls:
                if not text.strip() and not artifacts:
                    raise bad_answer()
                with services.transaction() as conn:
                    stored = conversations.add_message(conn, conversation_id, "assistant", reply.text,
                                                       artifacts=artifacts)
                yield "done", {"message": stored}
                return
            if _round == config.max_tool_rounds:
                break
            calls = [reply.tool_calls[index] for index in sorted(reply.tool_calls)]
            for number, call in enumerate(calls):
                call["id"] = call["id"] or f"call_{_round}_{number}"
            with services.transaction() as conn:
                conversations.add_message(conn, conversation_id, "assistant", reply.text, tool_calls=[
                    {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
                    for c in calls])
            for call in calls:
                sent, events, artifact = _run_tool(caller, config, call)
                if artifact is not None:
                    artifacts.append(artifact)
                yield from events
                with services.transaction() as conn:
                    conversations.add_message(conn, conversation_id, "tool", sent, tool_call_id=call["id"])
        raise WorkbenchError(502, "assistant_tool_rounds_exhausted",
                             f"The assistant used its {config.max_tool_rounds} tool rounds without finishing its "
                             f"answer; ask a narrower question.", {"max_tool_rounds": config.max_tool_rounds})
    except WorkbenchError as refusal:
        with services.transaction() as conn:
            stored = conversations.add_message(conn, conversation_id, "assistant", text if artifacts else "",
                                               artifacts=artifacts,
                                               error={"code": refusal.code, "message": refusal.message})
        yield "error", {**refusal.as_dict(), "status": refusal.status, "message_id": stored["message_id"]}
