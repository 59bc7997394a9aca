"""The assistant's screens in Chromium against the real stack and a scripted OpenAI-compatible provider.

The workbench (started by `analytics up`) reaches the scripted provider over real HTTP; the tests
configure it through the API, and clear it afterwards so other screens' tests see the assistant off.
"""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO_ROOT
from tests.scripted_chat_provider import ScriptedChatProvider
from tests.workbench_ui.conftest import ADMIN, LANGUAGES, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LOCALES = REPO_ROOT / "workbench_app" / "frontend" / "src" / "i18n" / "locales"
CHART_SQL = "select channel, count(*) as visits from visits group by 1 order by 1"


def texts(language: str) -> dict[str, str]:
    """The screen's own strings in `language` (the steps read the page as a person would)."""
    return json.loads((LOCALES / language / "assistant.json").read_text())


@pytest.fixture
def provider(stack):
    fake = ScriptedChatProvider().start()
    stack.ok("PUT", "/assistant/provider", json={"base_url": fake.base_url, "model": "scripted", "api_key": "sk-ui",
                                                 "requests_per_hour": 1000})
    yield fake
    stack.ok("DELETE", "/assistant/provider")
    fake.stop()


def test_the_assistant_is_off_until_configured_and_its_settings_screen_passes_axe(page, stack):
    stack.ok("DELETE", "/assistant/provider")
    sign_in(page, ADMIN)
    navigation = page.get_by_role("navigation").first
    expect(navigation.get_by_role("link", name="Assistant", exact=True)).to_have_count(0)
    open_administration(page, "Assistant settings")
    expect(page.get_by_role("heading", name="Assistant provider")).to_be_visible()
    check_accessibility(page, "the assistant settings")
    page.goto("/assistant")
    expect(page.get_by_text(texts("en")["assistant.off"])).to_be_visible()

    # Configured through the screen: the key is write-only, the Assistant entry appears.
    fake = ScriptedChatProvider().start()
    try:
        page.get_by_role("link", name="Configure a provider").click()
        page.get_by_label("Base URL").fill(fake.base_url)
        page.get_by_label("Model").fill("scripted")
        page.get_by_label("API key").fill("sk-from-the-screen")
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_text("Settings saved.")).to_be_visible()
        expect(page.get_by_text("A key is set (sealed on the server).", exact=False)).to_be_visible()
        expect(page.get_by_label("API key")).to_have_value("")
        described = stack.ok("GET", "/assistant/provider")
        assert described["enabled"] and described["api_key_set"] and described["model"] == "scripted"
        page.reload()
        expect(navigation.get_by_role("link", name="Assistant", exact=True)).to_be_visible()
    finally:
        stack.ok("DELETE", "/assistant/provider")
        fake.stop()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_chart_answer_streams_as_text_and_draws_with_the_chart_component(page, stack, provider, language):
    words = texts(language)
    email = f"asker-{language}@example.org"
    user_id = stack.create_user(email, locale=language)
    # A restricted person (organic search visits only), as the analyst of the stack is.
    group = next(g for g in stack.ok("GET", "/groups")["groups"] if g["name"] == "Organic analysts")
    stack.ok("PUT", f"/users/{user_id}/attributes", json={"attributes": {"channel": "Organic Search"}})
    stack.ok("PUT", f"/groups/{group['group_id']}/members/{user_id}")
    provider.script(
        {"tool_calls": [{"name": "show_chart", "arguments": {"sql": CHART_SQL, "x": "channel", "y": "visits",
                                                             "title": "Visits by channel"}}]},
        {"text": "Visits **by channel** below. <img src=x onerror=\"window.__xss = 1\"><script>window.__xss = 2</script>"})
    sign_in(page, email)
    page.get_by_role("navigation").first.get_by_role("link", name=words["assistant.title"], exact=True).click()
    page.get_by_role("button", name=words["assistant.new"]).click()
    page.get_by_label(words["assistant.ask"]).fill("Visits by channel?")
    page.get_by_role("button", name=words["assistant.send"]).click()

    answer = page.get_by_role("article", name=words["assistant.assistant"]).last
    expect(answer.locator("strong", has_text="by channel")).to_be_visible()
    expect(answer.get_by_test_id("chart").locator("svg")).to_be_visible()
    expect(answer.get_by_text("Visits by channel", exact=True)).to_be_visible()
    # The person's rows only: the tool ran with their rights.
    assert provider.received[-1]["body"]["messages"][-1]["content"].count("Organic Search") >= 1
    assert "Direct" not in provider.received[-1]["body"]["messages"][-1]["content"]
    assert answer.locator("img, script").count() == 0
    assert page.evaluate("window.__xss") is None
    check_accessibility(page, f"the assistant in {language}")

    # The SQL it ran opens in the SQL editor.
    answer.get_by_role("link", name=words["assistant.openInEditor"]).click()
    expect(page).to_have_url(re.compile(r"/sql\?sql="))
    expect(page.locator(".cm-content")).to_contain_text("group by 1")


def test_a_chart_is_saved_as_a_question_and_a_conversation_renamed_then_deleted(page, stack, provider):
    words = texts("en")
    provider.script({"tool_calls": [{"name": "show_chart", "arguments": {"sql": CHART_SQL, "x": "channel",
                                                                         "y": "visits", "mark": "line"}}]},
                    {"text": "Here it is."})
    sign_in(page, ADMIN)
    page.goto("/assistant")
    page.get_by_role("button", name=words["assistant.new"]).click()
    page.get_by_label(words["assistant.ask"]).fill("Chart the channels")
    page.get_by_role("button", name=words["assistant.send"]).click()
    answer = page.get_by_role("article", name=words["assistant.assistant"]).last
    expect(answer.get_by_test_id("chart").locator("svg")).to_be_visible()
    answer.get_by_role("button", name=words["assistant.saveAsQuestion"]).click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Name").fill("Channels from the assistant")
    dialog.get_by_role("button", name="Save").click()
    expect(answer.get_by_role("status").filter(has_text="Channels from the assistant")).to_be_visible()
    saved = [q for q in stack.ok("GET", "/questions")["questions"] if q["name"] == "Channels from the assistant"]
    assert saved and saved[0]["sql"] == CHART_SQL and saved[0]["visualization"]["kind"] == "line"

    conversations = page.get_by_role("navigation", name=words["assistant.conversations"])
    conversations.get_by_role("button", name="Rename New conversation").first.click()
    conversations.get_by_label(words["assistant.title"]).fill("Channel talk")
    conversations.get_by_role("button", name=words["assistant.saveTitle"]).click()
    expect(conversations.get_by_role("link", name="Channel talk")).to_be_visible()
    conversations.get_by_role("button", name="Delete Channel talk").click()
    page.get_by_role("dialog").get_by_role("button", name=words["assistant.delete"]).click()
    expect(conversations.get_by_role("link", name="Channel talk")).to_have_count(0)
    assert all(c["title"] != "Channel talk" for c in stack.ok("GET", "/assistant/conversations")["conversations"])
