"""One exchange with a real OpenAI-compatible provider, when one is configured in the environment.

Set ANALYTICS_TEST_OPENAI_BASE_URL, ANALYTICS_TEST_OPENAI_API_KEY (optional for a self-hosted
server) and ANALYTICS_TEST_OPENAI_MODEL; without a base URL and a model the test is skipped.
"""
from __future__ import annotations

import os

import pytest

from tests.workbench_api.conftest import ok

BASE_URL = os.environ.get("ANALYTICS_TEST_OPENAI_BASE_URL")
MODEL = os.environ.get("ANALYTICS_TEST_OPENAI_MODEL")

pytestmark = pytest.mark.skipif(not (BASE_URL and MODEL), reason="no real provider configured "
                                "(ANALYTICS_TEST_OPENAI_BASE_URL, ANALYTICS_TEST_OPENAI_MODEL)")


def test_a_real_provider_answers_a_question_with_the_tools(admin):
    ok(admin.put("/assistant/provider", {"base_url": BASE_URL, "model": MODEL, "timeout_seconds": 120,
                                         "api_key": os.environ.get("ANALYTICS_TEST_OPENAI_API_KEY") or None}))
    conversation = ok(admin.post("/assistant/conversations", {"title": "Real provider"}), 201)["conversation_id"]
    answer = admin.client.post(f"/api/v1/assistant/conversations/{conversation}/messages",
                               json={"content": "How many rows does the page_views table have? Run SQL to count them."},
                               headers={"Authorization": f"Bearer {admin.token}"})
    assert answer.status_code == 201, answer.get_data(as_text=True)
    body = answer.get_json()
    assert body["message"]["content"].strip()
    # A model may answer without a tool, but a capable one counts with run_sql: then the count is 5.
    runs = [tool for tool in body["tools"] if tool["name"] == "run_sql" and "result" in tool]
    if runs:
        assert "5" in body["message"]["content"] or "five" in body["message"]["content"].lower()
