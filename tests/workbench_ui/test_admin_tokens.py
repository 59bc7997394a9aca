"""The API tokens screen: a person's own tokens (secret shown once, copied, last use, revoke);
administrators see and revoke everyone's; in three languages with axe."""
from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from tests.workbench_ui.conftest import ANALYST, LANGUAGES, check_accessibility, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TITLE = {"en": "API tokens", "fr": "Jetons d'API", "es": "Tokens de API"}


def _me(stack, secret: str) -> int:
    return requests.get(f"{stack.base_url}/api/v1/me", headers={"Authorization": f"Bearer {secret}"},
                        timeout=30).status_code


def test_a_person_creates_copies_uses_and_revokes_a_token_and_an_admin_sees_it(page, context, stack, browser):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, ANALYST)
    page.get_by_role("link", name="API tokens", exact=True).click()
    expect(page.get_by_role("heading", name="API tokens", exact=True)).to_be_visible()
    page.get_by_label("Name").fill("weekly export")
    page.get_by_role("button", name="Create a token").last.click()
    secret = page.get_by_test_id("one-time-secret").inner_text()
    assert secret.startswith("wbt_")
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    assert _me(stack, secret) == 200
    page.reload()
    row = page.get_by_role("table", name="My tokens").get_by_role("row", name="weekly export")
    expect(row).not_to_contain_text("Never")  # last use shown
    assert secret not in page.content()  # shown once only

    admin = browser.new_context(base_url=stack.base_url, locale="en-US").new_page()
    try:
        sign_in(admin)
        admin.goto("/tokens")
        everyone = admin.get_by_role("table", name="Everyone's tokens")
        theirs = everyone.get_by_role("row", name="weekly export")
        expect(theirs).to_contain_text(ANALYST)
        theirs.get_by_role("button", name="Revoke").click()
        expect(theirs).to_contain_text("Revoked")
        assert _me(stack, secret) == 401
    finally:
        admin.context.close()
    page.reload()
    expect(page.get_by_role("table", name="My tokens").get_by_role("row", name="weekly export")).to_contain_text("Revoked")
    expect(page.get_by_role("table", name="Everyone's tokens")).to_have_count(0)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tokens_screen_in_each_language_passes_axe(page, stack, language):
    email = f"tokens-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    page.get_by_role("link", name=TITLE[language], exact=True).click()
    expect(page.get_by_role("heading", name=TITLE[language], exact=True)).to_be_visible()
    check_accessibility(page, f"tokens ({language})")
