"""The People screen: invite with a one-time link (the invited person sets a password through
it), edit language, attributes and groups, reset a password, deactivate (their open session ends
at once); in English, French and Spanish, with axe."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TITLE = {"en": "People", "fr": "Personnes", "es": "Personas"}


def test_invite_edit_reset_and_deactivate_a_person(page, context, stack):
    group = stack.ok("POST", "/groups", json={"name": "North readers"})
    sign_in(page)
    open_administration(page, "People")
    expect(page.get_by_role("heading", name="People", exact=True)).to_be_visible()
    page.get_by_role("button", name="Invite a person").click()
    form = page.get_by_role("form", name="Invite a person")
    form.get_by_label("E-mail address").fill("invited@example.org")
    form.get_by_label("Display name").fill("Ines Invited")
    form.get_by_label("Language").select_option("fr")
    form.get_by_role("button", name="Create and get the link").click()
    expect(page.get_by_role("heading", name="invited@example.org is invited")).to_be_visible()
    link = page.get_by_test_id("one-time-secret").inner_text()
    assert "/set-password#" in link
    page.get_by_role("button", name="Close").click()

    # The invited person opens the link in their own browser and chooses a password.
    invited = context.browser.new_context(base_url=stack.base_url, locale="en-US")
    try:
        theirs = invited.new_page()
        theirs.goto(link)
        expect(theirs.get_by_text("Choose the password of invited@example.org.")).to_be_visible()
        check_accessibility(theirs, "set-password")
        theirs.get_by_label("Password", exact=True).fill("my very own password")
        theirs.get_by_role("button", name="Set the password and sign in").click()
        expect(theirs.get_by_role("navigation").first).to_be_visible()
        expect(theirs.get_by_role("link", name="Parcourir")).to_be_visible()  # their language: French

        # The administrator edits attributes and groups.
        page.get_by_role("button", name="Edit invited@example.org").click()
        page.get_by_role("button", name="Add an attribute").click()
        page.get_by_label("Attribute 1 name").fill("region")
        page.get_by_label("Attribute 1 value").fill("north")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Saved.")).to_be_visible()
        page.get_by_label("North readers").check()
        expect(page.get_by_label("North readers")).to_be_checked()
        user_id = stack.users.setdefault("invited@example.org", next(
            u["user_id"] for u in stack.ok("GET", "/users")["users"] if u["email"] == "invited@example.org"))
        person = stack.ok("GET", f"/users/{user_id}")
        assert person["attributes"] == {"region": "north"} and group["group_id"] in person["groups"]

        page.get_by_role("button", name="Reset the password").click()
        expect(page.get_by_text("Password reset link: it works once, within 3 days.")).to_be_visible()

        page.get_by_role("button", name="Deactivate").click()
        page.get_by_role("dialog").get_by_role("button", name="Deactivate").click()
        expect(page.get_by_role("row", name="invited@example.org")).to_contain_text("Deactivated")
        # Their open page is refused at its next request and goes back to sign-in.
        theirs.get_by_role("link", name="Historique").click()
        expect(theirs).to_have_url(f"{stack.base_url}/sign-in?next=%2Fhistory", timeout=15_000)
    finally:
        invited.close()


def test_a_spent_or_forged_link_says_so(page, stack):
    page.goto("/set-password#forged-token")
    expect(page.get_by_role("alert")).to_contain_text("This link is wrong, was used already or has expired")
    check_accessibility(page, "set-password refused")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_people_screen_in_each_language_passes_axe(page, stack, language):
    email = f"people-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    open_administration(page, TITLE[language], language)
    expect(page.get_by_role("heading", name=TITLE[language], exact=True)).to_be_visible()
    page.get_by_role("row", name=email).get_by_role("button").click()
    expect(page.get_by_role("heading", name=email)).to_be_visible()
    check_accessibility(page, f"people ({language})")
