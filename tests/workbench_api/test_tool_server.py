"""The agent tool server over real HTTP with the MCP SDK's own client, under a token owner's rights."""
from __future__ import annotations

import threading

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from werkzeug.serving import make_server

from tests.conftest import free_port
from tests.mcp_client import call_tools, error_text, payload, run_async
from tests.workbench_api.conftest import Api, ok

TOOLS = {"list_datasources", "search_schema", "describe_table", "list_metrics", "query_metric", "list_questions",
         "run_question", "run_sql", "get_dashboard", "show_chart", "list_subscriptions", "create_subscription",
         "create_alert"}


@pytest.fixture
def server_url(app):
    """The workbench served on a local port by a threaded WSGI server."""
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/mcp"
    server.shutdown()
    thread.join(timeout=10)


def test_tools_are_listed_and_answer_as_the_admin(server_url, admin):
    tools, results = call_tools(server_url, admin.token, [("run_sql", {"sql": "SELECT count(*) AS n FROM page_views"})])
    assert tools == TOOLS
    assert payload(results[0])["rows"] == [[5]]
    assert [q["origin"] for q in ok(admin.get("/history"))["queries"]] == ["tool_server"]


def test_requests_without_a_valid_token_are_refused(server_url):
    response = httpx2.post(server_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                           headers={"Authorization": "Bearer wbt_not-a-token",
                                    "Accept": "application/json, text/event-stream"})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


@pytest.fixture
def shared_content(admin, eu_analysts):
    """A shared folder the EU analysts may view, with a model, a metric, a question and a dashboard;
    plus a question in the administrator's personal folder."""
    folder = ok(admin.post("/folders", {"name": "Audience"}), 201)
    ok(admin.put(f"/folders/{folder['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    model = ok(admin.post("/models", {"name": "Page views", "sql": "SELECT * FROM page_views",
                                      "folder_id": folder["folder_id"]}), 201)
    ok(admin.post("/metrics", {"model_id": model["model_id"], "name": "views", "aggregation": "count",
                               "dimensions": ["region", "page"]}), 201)
    question = ok(admin.post("/questions", {"name": "Views by page", "folder_id": folder["folder_id"],
                                            "sql": "SELECT page, count(*) AS views FROM page_views GROUP BY page ORDER BY page"}), 201)
    private = ok(admin.post("/questions", {"name": "Private emails", "sql": "SELECT visitor_email FROM page_views"}), 201)
    dashboard = ok(admin.post("/dashboards", {"name": "Overview", "folder_id": folder["folder_id"], "cards": [
        {"kind": "question", "question_id": question["question_id"]}, {"kind": "text", "text": "Hello"}]}), 201)
    return {"question": question["question_id"], "private": private["question_id"],
            "dashboard": dashboard["dashboard_id"]}


def test_every_tool_respects_a_restricted_users_rules(server_url, admin, analyst, shared_content):
    _, token = analyst
    tools, results = call_tools(server_url, token, [
        ("list_datasources", {}),
        ("search_schema", {"query": "email"}),
        ("describe_table", {"table": "analytics.page_views"}),
        ("describe_table", {"table": "modeled.page_views"}),
        ("list_metrics", {}),
        ("query_metric", {"metric": "views", "dimensions": ["region"]}),
        ("list_questions", {}),
        ("run_question", {"question_id": shared_content["question"]}),
        ("run_question", {"question_id": shared_content["private"]}),
        ("run_sql", {"sql": "SELECT count(*) AS n, count(DISTINCT country) AS c FROM page_views"}),
        ("run_sql", {"sql": "SELECT visitor_email FROM page_views"}),
        ("get_dashboard", {"dashboard_id": shared_content["dashboard"]}),
        ("show_chart", {"sql": "SELECT * FROM page_views", "x": "page", "y": "revenue"}),
    ])
    assert tools == TOOLS
    (datasources, search, described, hidden_table, metrics, metric, question_list, question, private,
     counted, hidden_column, dashboard, chart) = results
    assert payload(datasources)["datasources"] == [{"name": "warehouse", "tables": 1}]
    assert payload(search)["tables"] == []
    columns = {c["name"]: c for c in payload(described)["columns"]}
    assert "visitor_email" not in columns and columns["country"]["masked"] is True
    assert "not found" in error_text(hidden_table).lower()
    assert [m["name"] for m in payload(metrics)["metrics"]] == ["views"]
    assert payload(metric)["rows"] == [["EU", 3]]
    assert [q["name"] for q in payload(question_list)["questions"]] == ["Views by page"]
    assert payload(question)["rows"] == [["/home", 2], ["/pricing", 1]]
    assert "not found" in error_text(private).lower()
    assert payload(counted)["rows"] == [[3, 3]]
    assert "column_not_found" in error_text(hidden_column)
    cards = payload(dashboard)["cards"]
    assert cards[0]["data"]["rows"] == [["/home", 2], ["/pricing", 1]] and cards[1]["text"] == "Hello"
    spec = payload(chart)["spec"]
    assert spec["mark"]["type"] == "bar" and spec["encoding"]["x"] == {"field": "page", "type": "nominal"}
    assert sorted(row["view_id"] for row in spec["data"]["values"]) == [1, 2, 5]
    assert all("visitor_email" not in row for row in spec["data"]["values"])

    # The administrator, with the same tools, sees everything: the difference is the token's owner.
    _, admin_results = call_tools(server_url, admin.token, [("search_schema", {"query": "email"}),
                                                            ("query_metric", {"metric": "views", "dimensions": ["region"]})])
    assert payload(admin_results[0])["tables"] != []
    assert payload(admin_results[1])["rows"] == [["EU", 3], ["US", 2]]


async def _revocation_scenario(url: str, token: str, revoke) -> tuple[dict, BaseException | None, object]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                before = payload(await session.call_tool("run_sql", {"sql": "SELECT 1 AS one"}))
                await anyio.to_thread.run_sync(revoke)
                try:
                    after = await session.call_tool("run_sql", {"sql": "SELECT 1 AS one"})
                except Exception as error:  # noqa: BLE001 - the SDK reports the HTTP 401 as an error
                    return before, error, None
                return before, None, after


def test_a_revoked_token_loses_access_at_once(server_url, admin, analyst):
    _, token = analyst
    user = Api(admin.client, token)
    token_id = ok(user.get("/tokens"))["tokens"][0]["token_id"]

    def revoke():
        assert ok(user.delete(f"/tokens/{token_id}"))["state"] == "revoked"

    before, error, after = run_async(_revocation_scenario, server_url, token, revoke)
    assert before["rows"] == [[1]]
    assert error is not None or (after is not None and after.is_error)
    # The API refuses it too, from the very next request.
    refused = user.post("/sql", {"sql": "SELECT 1"})
    assert refused.status_code == 401 and refused.get_json()["error"]["code"] == "unauthorized"
    assert [e["action"] for e in ok(admin.get("/audit?action=token.revoked"))["entries"]] == ["token.revoked"]


def test_no_idle_event_stream_is_held_open(server_url, admin):
    response = httpx2.get(server_url, headers={"Authorization": f"Bearer {admin.token}",
                                               "Accept": "text/event-stream"}, timeout=10)
    assert response.status_code == 405 and response.headers["Allow"] == "POST"


def test_subscriptions_are_listed_and_created_under_the_caller_s_rights(server_url, admin, analyst, shared_content):
    _, token = analyst
    schedule = {"every": "week", "weekday": 0, "hour": 8, "timezone": "Europe/Paris"}
    _, results = call_tools(server_url, token, [
        ("create_subscription", {"target_kind": "dashboard", "target_id": shared_content["dashboard"],
                                 "schedule": schedule, "recipients": [{"email": "analyst@example.org"}]}),
        ("create_subscription", {"target_kind": "question", "target_id": shared_content["private"],
                                 "schedule": schedule, "recipients": [{"email": "analyst@example.org"}]}),
        ("create_subscription", {"target_kind": "dashboard", "target_id": shared_content["dashboard"],
                                 "schedule": {**schedule, "weekday": None}, "recipients": []}),
        ("create_alert", {"question_id": shared_content["question"], "schedule": schedule, "condition": "has_rows",
                          "recipients": [{"email": "analyst@example.org"}]}),
        ("list_subscriptions", {}),
    ])
    made, private, refused, alert, listed = results
    assert payload(made)["target_id"] == shared_content["dashboard"] and payload(made)["schedule"]["weekday"] == 0
    assert "not found" in error_text(private).lower()  # a question the analyst may not read
    assert "weekday" in error_text(refused)
    assert payload(alert)["condition"] == "has_rows"
    assert [s["subscription_id"] for s in payload(listed)["subscriptions"]] == [payload(made)["subscription_id"]]
    assert [a["alert_id"] for a in payload(listed)["alerts"]] == [payload(alert)["alert_id"]]
    assert ok(admin.get("/subscriptions?all=true"))["subscriptions"][0]["owner_id"] == analyst[0]
