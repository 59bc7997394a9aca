"""The Sources screen: a form per kind, "Test connection" before saving, passwords never shown,
schema refresh and removal; in English, French and Spanish, with axe."""
from __future__ import annotations

import psycopg
import pytest
from playwright.sync_api import expect

from pipelines.database import connection
from pipelines.settings import Settings
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TITLE = {"en": "Sources", "fr": "Sources", "es": "Fuentes"}
KIND = {"en": "Kind", "fr": "Type", "es": "Tipo"}
PATH = {"en": "Path on the server", "fr": "Chemin sur le serveur", "es": "Ruta en el servidor"}
TEST = {"en": "Test connection", "fr": "Tester la connexion", "es": "Probar la conexión"}
NO_PATH = {"en": "There is no such file or folder on the workbench server.",
           "fr": "Ce fichier ou ce dossier n'existe pas sur le serveur de l'atelier.",
           "es": "Ese archivo o carpeta no existe en el servidor del banco de trabajo."}
PASSWORD = "pg-source-secret-7731"


def _source_names(stack) -> set[str]:
    return {source["name"] for source in stack.ok("GET", "/sources")["sources"]}


def _remove(stack, name: str) -> None:
    for source in stack.ok("GET", "/sources")["sources"]:
        if source["name"] == name:
            stack.ok("DELETE", f"/sources/{source['source_id']}")


def test_a_folder_source_is_tested_saved_queried_and_removed(page, stack, tmp_path):
    (tmp_path / "targets.csv").write_text("country,target\nFR,100\nUS,300\n")
    sign_in(page)
    open_administration(page, "Sources")
    expect(page.get_by_role("heading", name="Sources", exact=True)).to_be_visible()
    expect(page.get_by_role("rowheader", name="warehouse")).to_be_visible()
    page.get_by_role("button", name="Add a source").click()
    page.get_by_label("Name").fill("targets")
    page.get_by_label("Kind").select_option("files")
    page.get_by_label("Path on the server").fill(str(tmp_path / "missing"))
    page.get_by_role("button", name="Test connection").click()
    expect(page.get_by_test_id("connection-test")).to_have_text(NO_PATH["en"])
    page.get_by_label("Path on the server").fill(str(tmp_path))
    page.get_by_role("button", name="Test connection").click()
    expect(page.get_by_test_id("connection-test")).to_have_text("Connection works: 1 table found.")
    assert "targets" not in _source_names(stack)  # testing saved nothing
    page.get_by_role("button", name="Save").click()
    row = page.get_by_role("row", name="targets")
    expect(row).to_contain_text("Connected")
    try:
        # A catalog at once, without restart.
        result = stack.ok("POST", "/sql", json={"sql": "select sum(target) from targets.targets"})
        assert result["rows"] == [[400]]
        page.get_by_role("button", name="Refresh schemas").click()
        expect(page.get_by_text("The sources' tables are read again.")).to_be_visible()
        page.get_by_role("button", name="Remove targets").click()
        page.get_by_role("dialog").get_by_role("button", name="Remove").click()
        expect(page.get_by_role("rowheader", name="targets")).to_have_count(0)
        assert "targets" not in _source_names(stack)
    finally:
        _remove(stack, "targets")


def test_a_password_is_set_or_not_set_and_never_comes_back(page, stack):
    server = psycopg.conninfo.conninfo_to_dict(connection.server_url(Settings.from_env(stack.env)))
    sign_in(page)
    page.goto("/admin/sources")
    page.get_by_role("button", name="Add a source").click()
    page.get_by_label("Name").fill("pgcopy")
    page.get_by_label("Host").fill(server.get("host") or "127.0.0.1")
    page.get_by_label("Port").fill(str(server.get("port") or 5432))
    page.get_by_label("Database").fill("no_such_database")
    page.get_by_label("User").fill(server.get("user") or "postgres")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Test connection").click()
    expect(page.get_by_test_id("connection-test")).to_have_text("The server has no such database.")
    page.get_by_label("Database").fill(server.get("dbname") or "postgres")
    page.get_by_role("button", name="Test connection").click()
    expect(page.get_by_test_id("connection-test")).to_contain_text("Connection works")
    page.get_by_role("button", name="Save").click()
    try:
        row = page.get_by_role("row", name="pgcopy")
        expect(row.get_by_role("cell", name="set", exact=True)).to_be_visible()
        page.get_by_role("button", name="Edit pgcopy").click()
        expect(page.get_by_text("A password is set; leave empty to keep it.")).to_be_visible()
        expect(page.get_by_label("Password", exact=True)).to_have_value("")
        # The saved password tests the saved source.
        page.get_by_role("button", name="Test connection").click()
        expect(page.get_by_test_id("connection-test")).to_contain_text("Connection works")
        assert PASSWORD not in page.content()
        assert PASSWORD not in stack.api("GET", "/sources").text
        assert PASSWORD not in stack.api("GET", "/audit", params={"action": "source"}).text
        page.get_by_label("Remove the saved password").check()
        page.get_by_role("button", name="Save").click()
        expect(row.get_by_role("cell", name="not set", exact=True)).to_be_visible()
    finally:
        _remove(stack, "pgcopy")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sources_screen_in_each_language_passes_axe(page, stack, language):
    email = f"sources-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    open_administration(page, TITLE[language], language)
    expect(page.get_by_role("heading", name=TITLE[language], exact=True)).to_be_visible()
    page.get_by_role("button", name={"en": "Add a source", "fr": "Ajouter une source", "es": "Añadir una fuente"}[
        language]).click()
    page.get_by_label(KIND[language]).select_option("sqlite")
    page.get_by_label(PATH[language]).fill("/no/such/file.sqlite")
    page.get_by_role("button", name=TEST[language]).click()
    expect(page.get_by_test_id("connection-test")).to_have_text(NO_PATH[language])
    check_accessibility(page, f"sources ({language})")


def test_a_non_administrator_has_no_sources_link_and_the_api_refuses(page, stack):
    from tests.workbench_ui.conftest import ANALYST

    sign_in(page, ANALYST)
    expect(page.get_by_role("link", name="Sources", exact=True)).to_have_count(0)
    expect(page.get_by_role("link", name="Administration", exact=True)).to_have_count(0)
    page.goto("/admin/sources")  # typed by hand: no administration screen, and the API refuses anyway
    expect(page.get_by_role("heading", name="This page does not exist.")).to_be_visible()
    expect(page.get_by_role("navigation", name="Administration")).to_have_count(0)
    refused = page.request.get(f"{stack.base_url}/api/v1/sources")
    assert refused.status == 403 and refused.json()["error"]["message"] == "Only administrators may do this."
