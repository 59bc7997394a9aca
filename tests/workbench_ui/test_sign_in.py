"""Signing in and out of the web application, expiry, CSRF, the three languages."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import ADMIN, EMAIL, LANGUAGES, PASSWORD, check_accessibility, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_sign_in_then_out(page):
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/sign-in$"))
    check_accessibility(page, "sign-in")
    sign_in(page)
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "wb_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/sign-in"))
    page.goto("/history")
    expect(page).to_have_url(re.compile(r"/sign-in\?next=%2Fhistory$"))


def test_a_wrong_password_is_refused_with_a_clear_message(page):
    sign_in(page, password="not the password", expect_success=False)
    expect(page.get_by_role("alert")).to_have_text("E-mail address or password is wrong.")
    expect(page.get_by_label("Password")).to_have_value("")


def test_an_expired_session_returns_to_sign_in_then_to_the_page(page, stack):
    sign_in(page, path="/data")
    expect(page.get_by_role("heading", name="Data")).to_be_visible()
    stack.workbench_sql("update web_sessions set last_seen_at = now() - interval '1 day'")
    page.goto("/history")
    expect(page).to_have_url(re.compile(r"/sign-in\?next=%2Fhistory$"))
    expect(page.get_by_role("status")).to_contain_text("Your session has ended")
    sign_in_form(page)
    expect(page).to_have_url(re.compile(r"/history$"))
    expect(page.get_by_role("heading", name="History")).to_be_visible()


def sign_in_form(page):
    page.get_by_label("E-mail address").fill(ADMIN)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_a_state_changing_request_without_the_csrf_token_is_refused(page, stack):
    sign_in(page)
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()
    refused = page.request.post(f"{stack.base_url}/api/v1/folders", data={"name": "Forged"})
    assert refused.status == 403 and refused.json()["error"]["code"] == "csrf_failed"
    folders = page.request.get(f"{stack.base_url}/api/v1/folders").json()["folders"]
    assert "Forged" not in [folder["name"] for folder in folders]


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_browsers_language_then_the_accounts(browser, stack, language):
    context = browser.new_context(base_url=stack.base_url, locale={"en": "en-GB", "fr": "fr-FR", "es": "es-ES"}[language])
    page = context.new_page()
    page.goto("/")
    expect(page.get_by_label(EMAIL[language])).to_be_visible()
    check_accessibility(page, f"sign-in ({language})")
    sign_in(page, language=language)
    heading = {"en": "Home", "fr": "Accueil", "es": "Inicio"}[language]
    # The account's language (English) wins over the browser's once signed in.
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()
    assert heading
    context.close()


def test_the_account_language_is_chosen_in_the_menu(page, stack):
    stack.create_user("polyglot@example.org")
    sign_in(page, "polyglot@example.org")
    page.get_by_label("Language").select_option("fr")
    expect(page.get_by_role("heading", name="Accueil")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    page.reload()
    expect(page.get_by_role("link", name="Historique")).to_be_visible()
    page.get_by_label("Langue").select_option("es")
    expect(page.get_by_role("heading", name="Inicio")).to_be_visible()
