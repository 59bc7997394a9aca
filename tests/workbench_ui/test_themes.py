"""Themes in Chromium: the editor with its live preview and logo upload in three languages (axe),
and a folder's theme dressing a dashboard two folders down in the viewer, until the dashboard
names its own."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.workbench_api.test_themes import png
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, open_administration, sign_in
from tests.workbench_ui.test_dashboards import _demo_question, card, expect_chart

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WORDS = {
    "en": {"nav": "Themes", "new": "New theme name", "create": "Create theme", "accent": "Accent",
           "save": "Save", "saved": "Theme saved.", "upload": "Upload a logo"},
    "fr": {"nav": "Thèmes", "new": "Nom du nouveau thème", "create": "Créer le thème", "accent": "Accent",
           "save": "Enregistrer", "saved": "Thème enregistré.", "upload": "Téléverser un logo"},
    "es": {"nav": "Temas", "new": "Nombre del nuevo tema", "create": "Crear tema", "accent": "Acento",
           "save": "Guardar", "saved": "Tema guardado.", "upload": "Subir un logotipo"},
}
HOSTILE_NAME = '<img src=x onerror="window.pwned=1"> Brand'


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_theme_editor_previews_live_and_passes_axe_in_each_language(page, stack, language, tmp_path):
    words = WORDS[language]
    email = f"themes-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    open_administration(page, words["nav"], language)
    expect(page.get_by_role("heading", name=words["nav"], exact=True)).to_be_visible()
    page.get_by_label(words["new"]).fill(f"{HOSTILE_NAME} {language}")
    page.get_by_role("button", name=words["create"]).click()
    preview = page.get_by_test_id("theme-preview")
    # A hostile name is shown as text in the preview, and nothing ran.
    expect(preview.get_by_role("heading")).to_have_text(f"{HOSTILE_NAME} {language}")
    assert page.evaluate("window.pwned") is None
    # The preview follows the editor before anything is saved.
    page.get_by_label(words["accent"], exact=True).fill("#8a1c1c")
    expect(preview.get_by_role("heading")).to_have_css("color", "rgb(138, 28, 28)")
    logo = tmp_path / "logo.png"
    logo.write_bytes(png(8, 8))
    page.get_by_label(words["upload"]).set_input_files(str(logo))
    expect(page.get_by_role("img", name=f"{HOSTILE_NAME} {language}")).to_be_visible()
    page.get_by_role("button", name=words["save"], exact=True).click()
    expect(page.get_by_text(words["saved"])).to_be_visible()
    saved = next(theme for theme in stack.ok("GET", "/themes")["themes"] if theme["name"].endswith(f" {language}"))
    assert saved["settings"]["colors"]["primary"] == "#8a1c1c" and saved["has_logo"] is True
    check_accessibility(page, f"theme editor ({language})")


def test_a_folder_theme_dresses_a_dashboard_two_folders_down_until_it_has_its_own(page, stack):
    warm = stack.ok("POST", "/themes", json={"name": "Warm", "settings": {
        "colors": {"surface": "#fff8e1"}, "card": {"radius": 16}}})
    cool = stack.ok("POST", "/themes", json={"name": "Cool", "settings": {"colors": {"surface": "#e8f4fd"}}})
    top = stack.ok("POST", "/folders", json={"name": "Brand top"})
    middle = stack.ok("POST", "/folders", json={"name": "Brand middle", "parent_id": top["folder_id"]})
    bottom = stack.ok("POST", "/folders", json={"name": "Brand bottom", "parent_id": middle["folder_id"]})
    stack.ok("PUT", f"/folders/{top['folder_id']}/theme", json={"theme_id": warm["theme_id"]})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": "Dressed", "folder_id": bottom["folder_id"],
        "cards": [{"question_id": _demo_question(stack, "Visits by channel"), "width": 6}]})
    sign_in(page, path=f"/dashboards/{dashboard['dashboard_id']}")
    expect_chart(page, "Visits by channel")
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(255, 248, 225)")
    expect(card(page, "Visits by channel")).to_have_css("border-radius", "16px")
    check_accessibility(page, "a themed dashboard")
    # Its own theme wins over the folders'.
    stack.ok("PUT", f"/dashboards/{dashboard['dashboard_id']}/theme", json={"theme_id": cool["theme_id"]})
    page.reload()
    expect_chart(page, "Visits by channel")
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(232, 244, 253)")


EMBER = "#8a1c1c"  # the first colour of the palette: the bars of a one-series bar chart


def _bar_question(stack, name: str, folder_id: int | None = None) -> int:
    return stack.ok("POST", "/questions", json={
        "name": name, **({"folder_id": folder_id} if folder_id else {}),
        "sql": "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 ORDER BY 1",
        "visualization": {"kind": "bar", "x": "channel", "y": ["visits"]}})["question_id"]


def _run_question(page, question_id: int, run: str = "Run"):
    page.goto(f"/questions/{question_id}")
    page.get_by_role("button", name=run, exact=True).click()
    expect(page.get_by_test_id("chart").locator("svg")).to_be_visible(timeout=30_000)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_question_takes_its_folder_s_theme_in_that_folder_and_below_and_not_elsewhere(page, stack, language):
    ember = stack.ok("POST", "/themes", json={"name": f"Ember {language}", "settings": {
        "colors": {"surface": "#fdf2e9"}, "card": {"radius": 14}, "palette": [EMBER, "#0f766e"]}})
    top = stack.ok("POST", "/folders", json={"name": f"Ember top {language}"})
    below = stack.ok("POST", "/folders", json={"name": f"Ember below {language}", "parent_id": top["folder_id"]})
    elsewhere = stack.ok("POST", "/folders", json={"name": f"Plain {language}"})
    stack.ok("PUT", f"/folders/{top['folder_id']}/theme", json={"theme_id": ember["theme_id"]})
    email = f"question-theme-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    run = {"en": "Run", "fr": "Exécuter", "es": "Ejecutar"}[language]
    colour = {"en": "Colour of visits", "fr": "Couleur de visits", "es": "Color de visits"}[language]
    for folder in (top, below):
        _run_question(page, _bar_question(stack, f"Themed {folder['name']}", folder["folder_id"]), run)
        themed = page.get_by_test_id("question-card")
        expect(themed).to_have_css("background-color", "rgb(253, 242, 233)")
        expect(themed).to_have_css("border-radius", "14px")
        # The chart draws with the theme's palette.
        expect(themed.get_by_test_id("chart").locator(f'path[fill="{EMBER}"]').first).to_be_attached()
        # The chart settings offer the theme's colour for the series.
        expect(themed.get_by_label(colour)).to_have_value(EMBER)
    check_accessibility(page, f"a themed question ({language})")
    _run_question(page, _bar_question(stack, f"Plain question {language}", elsewhere["folder_id"]), run)
    plain = page.get_by_test_id("question-card")
    expect(plain).to_have_css("background-color", "rgb(255, 255, 255)")
    expect(plain.get_by_test_id("chart").locator('path[fill="#1d4ed8"]').first).to_be_attached()
    expect(plain.get_by_test_id("chart").locator(f'path[fill="{EMBER}"]')).to_have_count(0)
    expect(plain.get_by_label(colour)).to_have_value("#1d4ed8")


THEME_WORDS = {"en": ("Edit", "Save", "Theme", "Inherit from the folder"),
               "fr": ("Modifier", "Enregistrer", "Thème", "Hériter du dossier"),
               "es": ("Editar", "Guardar", "Tema", "Heredar de la carpeta")}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_dashboard_s_own_theme_is_chosen_in_its_editor_and_back_to_its_folder_s(page, stack, language):
    edit, save, label, inherit = THEME_WORDS[language]
    folder_theme = stack.ok("POST", "/themes", json={"name": f"Folder sand {language}",
                                                     "settings": {"colors": {"surface": "#fff8e1"}}})
    own = stack.ok("POST", "/themes", json={"name": f"Own mint {language}", "settings": {
        "colors": {"surface": "#e6f7ef"}, "palette": ["#0f5132"]}})
    folder = stack.ok("POST", "/folders", json={"name": f"Sand {language}"})
    stack.ok("PUT", f"/folders/{folder['folder_id']}/theme", json={"theme_id": folder_theme["theme_id"]})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": f"Chosen theme {language}", "folder_id": folder["folder_id"],
        "cards": [{"question_id": _demo_question(stack, "Visits by channel"), "width": 6}]})
    email = f"dashboard-theme-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email, path=f"/dashboards/{dashboard['dashboard_id']}")
    expect_chart(page, "Visits by channel")
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(255, 248, 225)")

    page.get_by_role("button", name=edit, exact=True).click()
    expect(page.get_by_label(label, exact=True)).to_have_value("")
    page.get_by_label(label, exact=True).select_option(label=own["name"])
    check_accessibility(page, f"the dashboard editor's theme choice ({language})")
    page.get_by_role("button", name=save, exact=True).click()
    expect(page.get_by_role("button", name=edit, exact=True)).to_be_visible()
    # Applied at once, the chart drawn again in the new palette; and still after a reload.
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(230, 247, 239)")
    expect(card(page, "Visits by channel").locator('path[fill="#0f5132"]').first).to_be_attached()
    page.reload()
    expect_chart(page, "Visits by channel")
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(230, 247, 239)")
    expect(card(page, "Visits by channel").locator('path[fill="#0f5132"]').first).to_be_attached()
    assert stack.ok("GET", f"/dashboards/{dashboard['dashboard_id']}/theme")["source"]["kind"] == "dashboard"

    page.get_by_role("button", name=edit, exact=True).click()
    expect(page.get_by_label(label, exact=True)).to_have_value(str(own["theme_id"]))
    page.get_by_label(label, exact=True).select_option(label=inherit)
    page.get_by_role("button", name=save, exact=True).click()
    expect(page.get_by_role("button", name=edit, exact=True)).to_be_visible()
    page.reload()
    expect_chart(page, "Visits by channel")
    expect(card(page, "Visits by channel")).to_have_css("background-color", "rgb(255, 248, 225)")
    expect(card(page, "Visits by channel").locator('path[fill="#0f5132"]')).to_have_count(0)
    assert stack.ok("GET", f"/dashboards/{dashboard['dashboard_id']}/theme")["source"] == {
        "kind": "folder", "id": folder["folder_id"]}
