"""The AI assistant's API against a scripted OpenAI-compatible provider over real HTTP.

The provider is `tests/scripted_chat_provider.py`: it replays the turns each test scripts in the
Chat Completions wire format (streamed chunks, tool calls) and records what it received, which the
tests search for what must never reach it. The answers are checked against the models the OpenAPI
document is generated from (assistant/shapes.py), which refuse a field they do not name.
"""
from __future__ import annotations

import json

import psycopg
import pytest

from tests.conftest import free_port
from tests.scripted_chat_provider import ScriptedChatProvider
from tests.workbench_api.conftest import Api, create_user_with_token, ok
from workbench_app.assistant.shapes import (AssistantAnswer, AssistantProvider, AssistantStatus, AssistantToolRun,
                                            ConversationList, ConversationWithMessages)

API_KEY = "sk-scripted-provider-key-123"


@pytest.fixture
def provider():
    fake = ScriptedChatProvider().start()
    yield fake
    fake.stop()


@pytest.fixture
def configured(admin, provider):
    ok(admin.put("/assistant/provider", {"base_url": provider.base_url, "model": "scripted-model",
                                         "api_key": API_KEY, "headers": {"X-Team": "analytics"}}))
    return provider


def sse_events(response) -> list[tuple[str, dict]]:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "text/event-stream"
    events = []
    for block in response.get_data(as_text=True).strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def ask(api: Api, conversation_id: int, content: str, stream: bool = True):
    headers = {"Authorization": f"Bearer {api.token}"}
    if stream:
        headers["Accept"] = "text/event-stream"
    return api.client.post(f"/api/v1/assistant/conversations/{conversation_id}/messages", json={"content": content},
                           headers=headers)


def new_conversation(api: Api, title: str = "Questions") -> int:
    return ok(api.post("/assistant/conversations", {"title": title}), 201)["conversation_id"]


def test_off_until_an_administrator_configures_a_provider_whose_key_is_sealed(admin, analyst, provider, workbench_db):
    _, token = analyst
    user = Api(admin.client, token)
    assert AssistantStatus.model_validate(ok(user.get("/assistant/status"))).enabled is False
    conversation = new_conversation(user)
    refused = ask(user, conversation, "Hello?", stream=False)
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "assistant_not_configured"
    assert user.put("/assistant/provider", {"base_url": provider.base_url}).status_code == 403
    assert user.get("/assistant/provider").status_code == 403

    described = ok(admin.put("/assistant/provider", {"base_url": provider.base_url, "model": "m", "api_key": API_KEY,
                                                     "requests_per_hour": 5}))
    assert described["enabled"] is True and described["api_key_set"] is True and described["source"] == "settings"
    AssistantProvider.model_validate(described)
    assert API_KEY not in json.dumps(described) and API_KEY not in json.dumps(ok(admin.get("/assistant/provider")))
    sealed = workbench_db.execute("select api_key_sealed from assistant_provider").fetchone()[0]
    assert sealed.startswith("v1:") and API_KEY not in sealed
    audit = ok(admin.get("/audit?action=assistant."))["entries"]
    assert audit and API_KEY not in json.dumps(audit)
    assert ok(user.get("/assistant/status"))["enabled"] is True
    for bad in ({"base_url": "ftp://x"}, {"headers": {"Authorization": "x"}}, {"max_rows": 0}, {}):
        answer = admin.put("/assistant/provider", bad)
        assert answer.status_code == 400, bad

    cleared = ok(admin.delete("/assistant/provider"))
    assert cleared["enabled"] is False and cleared["api_key_set"] is False


def test_the_environment_configures_the_provider_when_no_administrator_did(workbench_settings, workbench_db):
    from dataclasses import replace

    from workbench_app.assistant import provider_config
    env_settings = replace(workbench_settings, assistant_base_url="http://127.0.0.1:9/v1", assistant_model="m",
                           assistant_api_key="from-env", assistant_max_rows=7)
    config = provider_config.effective(workbench_db, env_settings)
    assert config.enabled and config.source == "environment" and config.api_key == "from-env" and config.max_rows == 7
    assert not provider_config.effective(workbench_db, workbench_settings).enabled


def test_an_answer_streams_with_tools_run_as_the_asker_and_nothing_hidden_reaches_the_provider(
        admin, analyst, configured, workbench_db):
    analyst_id, token = analyst
    user = Api(admin.client, token)
    conversation = new_conversation(user)
    configured.script(
        {"tool_calls": [{"name": "search_schema", "arguments": {"query": "email"}},
                        {"name": "describe_table", "arguments": {"table": "analytics.page_views"}},
                        {"name": "run_sql", "arguments": {"sql": "SELECT * FROM page_views ORDER BY view_id"}}]},
        {"tool_calls": [{"name": "show_chart", "arguments": {
            "sql": "SELECT page, sum(revenue) AS revenue FROM page_views GROUP BY page ORDER BY page",
            "x": "page", "y": "revenue", "title": "Revenue by page"}}]},
        {"text": "EU **revenue** by page: /home leads. <script>alert(1)</script>", "tokens": 30})
    events = sse_events(ask(user, conversation, "Which page brings the most revenue?"))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "message" and kinds[-1] == "done" and "delta" in kinds
    assert "".join(data["text"] for kind, data in events if kind == "delta").startswith("EU **revenue**")
    tools = [data for kind, data in events if kind == "tool"]
    assert all(AssistantToolRun.model_validate(tool) for tool in tools)
    assert [t["name"] for t in tools] == ["search_schema", "describe_table", "run_sql", "show_chart"]
    assert [row[0] for row in tools[2]["result"]["rows"]] == [1, 2, 5]  # the EU rows only
    assert tools[3]["artifact"] == {"kind": "chart", "sql": tools[3]["artifact"]["sql"], "title": "Revenue by page",
                                    "chart": {"kind": "bar", "x": "page", "y": ["revenue"]}}
    assert tools[3]["result"]["rows"] == [["/home", 60.5], ["/pricing", 20.0]]

    # What reached the provider: the visible schema with its descriptions, never a hidden column's
    # name nor a value of a row the person's filter removes.
    sent = configured.everything_received()
    assert "Path of the page" in sent and "One row per page view" in sent
    for secret in ("visitor_email", "ann@example.fr", "cyd@example.com", "dan@example.com", "/blog"):
        assert secret not in sent, secret
    first = configured.received[0]
    assert first["headers"]["authorization"] == f"Bearer {API_KEY}" and first["headers"]["x-team"] == "analytics"
    assert first["body"]["model"] == "scripted-model" and first["body"]["stream"] is True
    assert {tool["function"]["name"] for tool in first["body"]["tools"]} == {
        "list_datasources", "search_schema", "describe_table", "list_metrics", "query_metric", "list_questions",
        "run_question", "run_sql", "get_dashboard", "show_chart"}
    assert configured.received[1]["body"]["messages"][-1]["role"] == "tool"

    # The statements it ran are in the asker's history, with origin `assistant`.
    history = ok(user.get("/history?origin=assistant"))["queries"]
    assert len(history) == 2 and {q["user_id"] for q in history} == {analyst_id}

    stored = ok(user.get(f"/assistant/conversations/{conversation}"))
    ConversationWithMessages.model_validate(stored)
    assert [m["role"] for m in stored["messages"]] == ["user", "assistant"]
    answer = stored["messages"][1]
    assert answer["content"].endswith("<script>alert(1)</script>")  # stored as text; the screen renders it as text
    assert [a["kind"] for a in answer["artifacts"]] == ["sql", "chart"]
    usage = ok(user.get("/assistant/status"))["usage"]
    assert usage["requests"] == 1 and usage["tokens"] >= 30


def test_the_json_answer_for_api_clients(admin, configured):
    conversation = new_conversation(admin)
    configured.script({"tool_calls": [{"name": "run_sql", "arguments": {"sql": "SELECT count(*) AS n FROM page_views"}}]},
                      {"text": "There are 5 page views."})
    answer = ok(ask(admin, conversation, "How many page views?", stream=False), 201)
    AssistantAnswer.model_validate(answer)
    assert answer["message"]["content"] == "There are 5 page views."
    assert answer["tools"][0]["result"]["rows"] == [[5]]
    assert answer["message"]["artifacts"] == [{"kind": "sql", "sql": "SELECT count(*) AS n FROM page_views"}]


def test_a_conversation_is_its_owners_only_and_deleted_for_good(admin, analyst, configured, workbench_db):
    _, token = analyst
    owner = Api(admin.client, token)
    conversation = new_conversation(owner, "Mine")
    configured.script({"text": "Hello."})
    ok(ask(owner, conversation, "Hi", stream=False), 201)
    _, other_token = create_user_with_token(admin, "other@example.org")
    for intruder in (admin, Api(admin.client, other_token)):
        assert intruder.get(f"/assistant/conversations/{conversation}").status_code == 404
        assert intruder.patch(f"/assistant/conversations/{conversation}", {"title": "x"}).status_code == 404
        assert intruder.delete(f"/assistant/conversations/{conversation}").status_code == 404
        assert ask(intruder, conversation, "Tell me", stream=False).status_code == 404
        assert ok(intruder.get("/assistant/conversations"))["conversations"] == []
    assert ok(owner.patch(f"/assistant/conversations/{conversation}", {"title": "Renamed"}))["title"] == "Renamed"
    listed = ConversationList.model_validate(ok(owner.get("/assistant/conversations")))
    assert [c.title for c in listed.conversations] == ["Renamed"]
    assert owner.delete(f"/assistant/conversations/{conversation}").status_code == 204
    assert owner.get(f"/assistant/conversations/{conversation}").status_code == 404
    assert workbench_db.execute("select count(*) from assistant_messages").fetchone()[0] == 0
    assert workbench_db.execute("select count(*) from assistant_conversations").fetchone()[0] == 0


def test_the_hourly_quota_refuses_with_retry_after_and_the_reset_time(admin, analyst, configured):
    _, token = analyst
    user = Api(admin.client, token)
    ok(admin.put("/assistant/provider", {"requests_per_hour": 2, "tokens_per_hour": 1000}))
    conversation = new_conversation(user)
    configured.script({"text": "One."}, {"text": "Two.", "tokens": 5000})
    ok(ask(user, conversation, "1", stream=False), 201)
    ok(ask(user, conversation, "2", stream=False), 201)
    refused = ask(user, conversation, "3")
    assert refused.status_code == 429 and refused.mimetype == "application/json"
    error = refused.get_json()["error"]
    assert error["code"] == "assistant_quota_exceeded" and "resets at" in error["message"]
    assert 0 < int(refused.headers["Retry-After"]) <= 3600 and error["details"]["resets_at"]
    # Tokens count too: with more requests allowed, the 5,000 tokens of the second answer still exceed 1,000.
    ok(admin.put("/assistant/provider", {"requests_per_hour": 100}))
    tokens = ask(user, conversation, "3", stream=False)
    assert tokens.status_code == 429 and tokens.get_json()["error"]["details"]["limit"] == "tokens"
    # Nothing reached the provider for the refused requests, and another person is not affected.
    assert len(configured.received) == 2
    other = Api(admin.client, create_user_with_token(admin, "other@example.org")[1])
    configured.script({"text": "Fine."})
    ok(ask(other, new_conversation(other), "Hi", stream=False), 201)


def _closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}/v1"


@pytest.mark.parametrize("turn, code, french", [
    ({"status": 401, "error": "Incorrect API key"}, "provider_unauthorized", "a refusé sa clé"),
    ({"status": 429, "error": "Rate limit reached"}, "provider_rate_limited", "limite les requêtes"),
    ({"status": 500, "error": "boom"}, "provider_error", "HTTP 500"),
    ({"delay": 6, "text": "too late"}, "provider_timeout", "pas répondu à temps"),
    ({"raw": "data: {this is not json\n\n"}, "provider_bad_answer", "n'a pas pu être lue"),
    ("unreachable", "provider_unreachable", "ne peut pas être joint"),
])
def test_provider_failures_are_clear_translated_refusals(admin, configured, turn, code, french):
    ok(admin.patch("/me", {"locale": "fr"}))
    # 3 s rather than 1: under a loaded CI machine a prompt 429 took over a second and was a timeout.
    ok(admin.put("/assistant/provider", {"timeout_seconds": 3}))
    if turn == "unreachable":
        ok(admin.put("/assistant/provider", {"base_url": _closed_port_url()}))
    else:
        configured.script(turn)
    conversation = new_conversation(admin)
    refused = ask(admin, conversation, "Anything?", stream=False)
    assert refused.status_code in (502, 504), refused.get_data(as_text=True)
    error = refused.get_json()["error"]
    assert error["code"] == code and french in error["message"], error
    # The same failure in the stream: an `error` event, and the conversation keeps it.
    configured.script(turn if turn != "unreachable" else {})
    events = sse_events(ask(admin, conversation, "Again?"))
    assert events[-1][0] == "error" and events[-1][1]["code"] == code and french in events[-1][1]["message"]
    stored = ok(admin.get(f"/assistant/conversations/{conversation}"))["messages"]
    assert stored[-1]["error"]["code"] == code and french in stored[-1]["error"]["message"]


@pytest.mark.parametrize("call, code", [
    ({"name": "drop_everything", "arguments": {}}, "assistant_unknown_tool"),
    ({"name": "run_sql", "arguments": "{\"sql\": \"SELECT 1"}, "assistant_malformed_tool_call"),
    ({"name": "run_sql", "arguments": {"query": "SELECT 1"}}, "assistant_bad_tool_arguments"),
])
def test_a_wrong_tool_call_is_told_to_the_model_and_shown_as_a_notice(admin, configured, call, code):
    configured.script({"tool_calls": [call]}, {"text": "Sorry, let me answer plainly."})
    answer = ok(ask(admin, new_conversation(admin), "Go", stream=False), 201)
    AssistantAnswer.model_validate(answer)
    assert [n["code"] for n in answer["notices"]] == [code]
    assert answer["message"]["content"] == "Sorry, let me answer plainly."
    told = configured.received[1]["body"]["messages"][-1]
    assert told["role"] == "tool" and "error" in json.loads(told["content"])


def test_tool_rounds_are_bounded(admin, configured):
    ok(admin.put("/assistant/provider", {"max_tool_rounds": 2}))
    configured.script(*[{"tool_calls": [{"name": "list_datasources", "arguments": {}}]}] * 3)
    refused = ask(admin, new_conversation(admin), "Loop", stream=False)
    assert refused.status_code == 502 and refused.get_json()["error"]["code"] == "assistant_tool_rounds_exhausted"
    assert len(configured.received) == 3


def test_large_results_are_capped_before_they_reach_the_provider(admin, configured):
    ok(admin.put("/assistant/provider", {"max_rows": 3, "max_result_chars": 600}))
    configured.script({"tool_calls": [{"name": "run_sql", "arguments": {
        "sql": "SELECT range AS n, repeat('x', 50) AS filler FROM range(1000)"}}]}, {"text": "Done."})
    answer = ok(ask(admin, new_conversation(admin), "Many rows", stream=False), 201)
    assert len(answer["tools"][0]["result"]["rows"]) == 200  # the person sees the tool's default 200 rows
    sent = configured.received[1]["body"]["messages"][-1]["content"]
    assert len(sent) <= 700 and json.loads(sent)["rows"] == [[0, "x" * 50], [1, "x" * 50], [2, "x" * 50]]
    assert "first 3 rows" in sent


def test_a_statement_the_askers_rights_refuse_is_told_to_the_model_and_recorded(admin, analyst, configured):
    _, token = analyst
    user = Api(admin.client, token)
    ok(user.patch("/me", {"locale": "es"}))
    configured.script({"tool_calls": [{"name": "run_sql", "arguments": {"sql": "SELECT * FROM modeled.page_views"}}]},
                      {"text": "No puedo leer esa tabla."})
    answer = ok(ask(user, new_conversation(user), "Todo", stream=False), 201)
    AssistantAnswer.model_validate(answer)
    tool = answer["tools"][0]
    assert tool["error"]["code"] == "table_not_found" and tool["artifact"]["error"]["message"] == tool["error"]["message"]
    told = json.loads(configured.received[1]["body"]["messages"][-1]["content"])
    assert told["error"]["code"] == "table_not_found"
    history = ok(user.get("/history?origin=assistant"))["queries"]
    assert [(q["status"], q["error_code"]) for q in history] == [("refused", "table_not_found")]
