"""The first-run setup of the administration pages in Chromium, against the collector under
gunicorn, in English, French and Spanish: open the link `analytics up` printed, create the
administrator, land signed in; the spent and the forged link then get their pages."""
from __future__ import annotations

import re

import psycopg
import pytest
from playwright.sync_api import expect

from pipelines.admin import admin_setup
from tests.collector_admin_ui.browser_steps import (PASSWORD, expect_accessible, open_page,  # noqa: F401
                                                    running_collector)
from tests.tracker.conftest import LAUNCH_ARGS, browser, chromium_path  # noqa: F401  (shared Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# What a person reads and clicks, per language: the form's heading, its fields and button, the
# language chosen (the next pages' heading), and the headings of the two refusals.
WORDS = {
    "en-GB": {"title": "Create the collector's administrator", "email": "E-mail address", "password": "Password",
              "language": "Language", "submit": "Create the administrator", "choice": "English", "sites": "Sites",
              "done": "The collector has an administrator already", "invalid": "This setup link does not work"},
    "fr-FR": {"title": "Créer l'administrateur du collecteur", "email": "Adresse e-mail", "password": "Mot de passe",
              "language": "Langue", "submit": "Créer l'administrateur", "choice": "Français", "sites": "Sites",
              "done": "Le collecteur a déjà un administrateur",
              "invalid": "Ce lien de configuration ne fonctionne pas"},
    "es-ES": {"title": "Crear el administrador del recolector", "email": "Correo electrónico",
              "password": "Contraseña", "language": "Idioma", "submit": "Crear el administrador",
              "choice": "Español", "sites": "Sitios", "done": "El recolector ya tiene un administrador",
              "invalid": "Este enlace de configuración no funciona"},
}


@pytest.fixture(scope="module")
def collector(pg_server_url, template_database):
    with running_collector(pg_server_url, template_database, "test_admin_setup") as real:
        yield real


@pytest.fixture
def printed_link(collector) -> str:
    """A fresh installation's link, as `analytics up` prints it (each test starts without accounts)."""
    with psycopg.connect(collector.database_url, autocommit=True) as conn:
        conn.execute("delete from collect.admin_users")
        token = admin_setup.issue(conn)
    return f"{collector.base_url}/admin/setup?token={token}"


@pytest.mark.parametrize("locale", list(WORDS))
def test_the_printed_link_creates_the_administrator_in_each_language(collector, open_page, printed_link, locale):
    words = WORDS[locale]
    page = open_page(locale)
    page.goto(f"{collector.base_url}/admin/sign-in")
    expect(page.get_by_text(re.compile("analytics up"))).to_be_visible()  # where the first account comes from
    page.goto(printed_link)
    expect(page.get_by_role("heading", level=1)).to_have_text(words["title"])
    assert page.locator("html").get_attribute("lang") == locale[:2]
    expect_accessible(page)

    # A refused field keeps the form and the link, and says which field.
    page.get_by_label(words["email"]).fill("first-admin@example.org")
    page.get_by_label(words["password"]).fill("short")
    page.get_by_label(words["password"]).evaluate("input => input.removeAttribute('minlength')")
    page.get_by_role("button", name=words["submit"]).click()
    expect(page.get_by_role("alert")).to_contain_text(words["password"])
    expect(page.get_by_label(words["email"])).to_have_value("first-admin@example.org")
    expect_accessible(page)

    page.get_by_label(words["password"]).fill(PASSWORD)
    expect(page.get_by_label(words["language"])).to_have_value(locale[:2])  # the page's own, by default
    page.get_by_label(words["language"]).select_option(label=words["choice"])
    page.get_by_role("button", name=words["submit"]).click()
    expect(page).to_have_url(re.compile(r"/admin/sites$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(words["sites"])
    expect(page.get_by_role("button", name=re.compile("Sign out|Se déconnecter|Cerrar sesión"))).to_be_visible()

    # The link is spent: a clear page, in the reader's language, and no form.
    page.goto(printed_link)
    expect(page.get_by_role("heading", level=1)).to_have_text(words["done"])
    expect(page.get_by_role("button", name=words["submit"])).to_have_count(0)
    expect_accessible(page)
    forged = open_page(locale)
    forged.goto(printed_link.split("token=")[0] + "token=forged")
    expect(forged.get_by_role("heading", level=1)).to_have_text(words["done"])
    with psycopg.connect(collector.database_url) as conn:
        assert conn.execute("select count(*) from collect.admin_users").fetchone()[0] == 1


def test_a_forged_or_replaced_link_gets_its_page_before_any_administrator(collector, open_page, printed_link):
    with psycopg.connect(collector.database_url, autocommit=True) as conn:
        newer = admin_setup.issue(conn)
    for locale, words in WORDS.items():
        page = open_page(locale)
        page.goto(printed_link)  # replaced by the newer link
        expect(page.get_by_role("heading", level=1)).to_have_text(words["invalid"])
        expect(page.get_by_label(words["password"])).to_have_count(0)
        expect_accessible(page)
    page = open_page()
    page.goto(f"{collector.base_url}/admin/setup?token={newer}")
    expect(page.get_by_role("heading", level=1)).to_have_text(WORDS["en-GB"]["title"])
