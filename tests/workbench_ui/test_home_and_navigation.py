"""The home page the workbench opens on, and the main menu with administration grouped under one
entry, in Chromium against the real stack (demo data: the Demo dashboard is pinned)."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import (ADMINISTRATION, ANALYST, LANGUAGES, MAIN_MENU, check_accessibility,
                                         open_administration, sign_in)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WORDS = {
    "en": {"home": "Home", "pinned": "Pinned for everyone", "recent": "Your recent dashboards and questions",
           "next": "Next steps", "people": "People", "invite": "Invite people"},
    "fr": {"home": "Accueil", "pinned": "Épinglé pour tous", "recent": "Vos tableaux de bord et questions récents",
           "next": "Prochaines étapes", "people": "Personnes", "invite": "Inviter des personnes"},
    "es": {"home": "Inicio", "pinned": "Fijado para todos", "recent": "Sus paneles y preguntas recientes",
           "next": "Próximos pasos", "people": "Personas", "invite": "Invitar a personas"},
}


def section(page, title):
    return page.get_by_role("region", name=title, exact=True)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_home_page_after_sign_in_in_each_language(page, stack, language):
    words = WORDS[language]
    email = f"home-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    expect(page.get_by_role("heading", name=words["home"], exact=True)).to_be_visible()
    expect(section(page, words["pinned"]).get_by_role("link", name="Demo dashboard")).to_be_visible()
    steps = section(page, words["next"])
    expect(steps.get_by_role("listitem")).to_have_count(4)
    # Other people exist on this stack: inviting people is ticked off.
    expect(steps.get_by_role("listitem").filter(has=page.get_by_role("link", name=words["invite"]))).to_contain_text(
        {"en": "done", "fr": "fait", "es": "hecho"}[language])
    check_accessibility(page, f"home ({language})")

    section(page, words["pinned"]).get_by_role("link", name="Demo dashboard").click()
    expect(page.get_by_role("heading", name="Demo dashboard")).to_be_visible()
    page.get_by_role("navigation", name=MAIN_MENU[language]).get_by_role("link", name=words["home"]).click()
    expect(section(page, words["recent"]).get_by_role("link", name="Demo dashboard")).to_be_visible()

    open_administration(page, words["people"], language)
    expect(page.get_by_role("heading", name=words["people"], exact=True)).to_be_visible()
    administration = page.get_by_role("navigation", name=MAIN_MENU[language]).get_by_role(
        "link", name=ADMINISTRATION[language], exact=True)
    expect(administration).to_have_attribute("aria-current", "page")
    check_accessibility(page, f"administration ({language})")


def test_an_analyst_sees_no_administration_and_no_next_steps(page, stack):
    sign_in(page, ANALYST)
    expect(page.get_by_role("heading", name="Home", exact=True)).to_be_visible()
    main = page.get_by_role("navigation", name="Main")
    expect(main.get_by_role("link")).to_have_text(
        ["Home", "Browse", "Dashboards", "New question", "New analysis", "Segments", "New SQL", "Data", "History"])
    expect(page.get_by_role("link", name="Administration")).to_have_count(0)
    expect(page.get_by_role("region", name="Next steps")).to_have_count(0)
    expect(page.get_by_role("link", name="API tokens")).to_be_visible()  # their own tokens, beside the account
    page.goto("/admin/people")  # typed by hand: the screen is not there for them
    expect(page.get_by_role("navigation", name="Administration")).to_have_count(0)


def test_an_administrator_pins_a_dashboard_for_everyone(page, stack, browser):
    board = stack.ok("POST", "/dashboards", json={"name": "Weekly review"})
    sign_in(page, path=f"/dashboards/{board['dashboard_id']}")
    page.get_by_role("button", name="Pin on the home page").click()
    expect(page.get_by_role("button", name="Unpin from the home page")).to_be_visible()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Home").click()
    pinned = section(page, "Pinned for everyone")
    expect(pinned.get_by_role("link", name="Weekly review")).to_be_visible()
    pinned.get_by_role("button", name="Unpin “Weekly review”").click()
    expect(pinned.get_by_role("link", name="Weekly review")).to_have_count(0)
    expect(pinned.get_by_role("link", name=re.compile("Demo dashboard"))).to_be_visible()


def test_an_administrator_pins_a_question_from_the_editor(page, stack):
    question = stack.ok("POST", "/questions", json={"name": "Visits this week", "sql": "SELECT 1 AS one"})
    sign_in(page, path=f"/sql?question={question['question_id']}")
    expect(page.get_by_role("heading", name="Visits this week")).to_be_visible()
    page.get_by_role("button", name="Pin on the home page").click()
    expect(page.get_by_role("button", name="Unpin from the home page")).to_be_visible()
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Home").click()
    pinned = section(page, "Pinned for everyone")
    expect(pinned.get_by_role("link", name="Visits this week")).to_have_attribute(
        "href", f"/questions/{question['question_id']}")
    pinned.get_by_role("button", name="Unpin “Visits this week”").click()
    expect(pinned.get_by_role("link", name="Visits this week")).to_have_count(0)
