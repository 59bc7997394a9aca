"""The unsubscribe page a delivered report links to, in Chromium against the real stack: it opens
without signing in, in the recipient's language, asks before it changes anything, unsubscribes that
recipient only, and has no serious accessibility violation in English, French and Spanish."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from pipelines.settings import Settings
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility
from workbench_app.subscriptions import unsubscribe

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ASK = {"en": "Unsubscribe", "fr": "Se désabonner", "es": "Darse de baja"}
DONE = {"en": "You are unsubscribed", "fr": "Vous êtes désabonné", "es": "Se ha dado de baja"}


def test_a_recipient_unsubscribes_in_their_language(stack, page):
    people = {language: stack.create_user(f"unsubscriber-{language}@example.org", locale=language) for language in LANGUAGES}
    dashboard = stack.ok("POST", "/dashboards", json={"name": "Weekly traffic"})
    made = stack.ok("POST", "/subscriptions", json={
        "target_kind": "dashboard", "target_id": dashboard["dashboard_id"], "name": "Weekly <b>traffic</b>",
        "schedule": {"every": "week", "weekday": 0, "hour": 8},
        "recipients": [{"user_id": user_id} for user_id in people.values()]})
    recipient_of = {r["user_id"]: r["recipient_id"] for r in made["recipients"]}
    settings = Settings.from_env(stack.env)
    for language, user_id in people.items():
        link = unsubscribe.link(settings, recipient_of[user_id]).replace(settings.workbench_address, stack.base_url)
        page.goto(link)
        expect(page.get_by_role("heading", name=ASK[language])).to_be_visible()
        assert page.locator("html").get_attribute("lang") == language
        # The subscription's name is shown as text, never as markup.
        expect(page.get_by_text("Weekly <b>traffic</b>", exact=False)).to_be_visible()
        check_accessibility(page, f"the unsubscribe page ({language})")
        page.get_by_role("button", name=ASK[language]).click()
        expect(page.get_by_role("heading", name=DONE[language])).to_be_visible()
        check_accessibility(page, f"the unsubscribed page ({language})")
    recipients = stack.ok("GET", f"/subscriptions/{made['subscription_id']}")["recipients"]
    assert all(r["unsubscribed"] for r in recipients)
    # Another recipient's id with this token: nothing changes.
    page.goto(link.replace(f"/{recipient_of[people['es']]}/", f"/{recipient_of[people['en']] + 1000}/"))
    expect(page.get_by_role("heading", name="This link does not work")).to_be_visible()
