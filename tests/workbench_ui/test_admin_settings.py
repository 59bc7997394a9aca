"""The Settings screen: the language of new accounts, the sign-in methods; three languages, axe."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TITLE = {"en": "Settings", "fr": "Réglages", "es": "Ajustes"}


def test_the_language_of_new_accounts_is_set_in_the_screen(page, stack):
    sign_in(page)
    open_administration(page, "Settings")
    page.get_by_label("Language of new accounts").select_option("fr")
    expect(page.get_by_text("Saved.")).to_be_visible()
    try:
        created = stack.ok("POST", "/users", json={"email": "defaulted@example.org"})
        assert created["locale"] == "fr"
        expect(page.get_by_text("Single sign-on (OpenID Connect): off")).to_be_visible()
    finally:
        stack.ok("PATCH", "/settings", json={"default_locale": "en"})


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_settings_screen_in_each_language_passes_axe(page, stack, language):
    email = f"settings-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    open_administration(page, TITLE[language], language)
    expect(page.get_by_role("heading", name=TITLE[language], exact=True)).to_be_visible()
    check_accessibility(page, f"settings ({language})")
