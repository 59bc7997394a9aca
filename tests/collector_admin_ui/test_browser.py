"""The administration pages in Chromium against the real collector under gunicorn.

Each test reads like a site owner's steps. The pipeline's work (the rebuild after a channel-rule
change, privacy requests) runs the way the product runs it: the Dagster sensor on the rules'
version evaluated and its job executed in process, and the maintenance function the privacy
sensor's asset calls.
"""
from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
import requests
from playwright.sync_api import expect

from pipelines.admin import admin_users
from tests.collector_admin_ui.browser_steps import (PASSWORD, SnippetPage, create_site, expect_accessible,  # noqa: F401
                                                    open_page, running_collector, sign_in)
from tests.conftest import TEST_SECRET
from tests.tracker.conftest import LAUNCH_ARGS, browser, chromium_path  # noqa: F401  (shared Chromium)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def collector(pg_server_url, template_database):
    with running_collector(pg_server_url, template_database, "test_admin_ui") as real:
        with psycopg.connect(real.database_url, autocommit=True) as conn:
            admin_users.create_user(conn, email="owner@example.org", password=PASSWORD, actor="tests")
        yield real


@pytest.fixture
def owner(collector, open_page):
    page = open_page()
    sign_in(page, collector.base_url)
    return page


def test_snippet_pasted_into_a_page_is_counted_in_the_check_figures(collector, owner, open_page):
    site = create_site(owner, collector.base_url, "Snippet shop")
    expect_accessible(owner)
    snippet = owner.get_by_label("Snippet", exact=True).input_value()
    assert f'data-site="{site}"' in snippet and "/a.js" in snippet
    landing = SnippetPage()
    try:
        landing.paste(snippet)
        visitor = open_page()
        visitor.goto(landing.url)
        collector.wait_events(site, "pageview")
    finally:
        landing.stop()
    owner.get_by_role("link", name="Check figures").click()
    figure = owner.get_by_text("Events received in the last 24 hours").locator("xpath=following-sibling::dd")
    expect(figure).to_have_text("1")
    expect_accessible(owner)
    owner.get_by_role("link", name="Sites").first.click()
    row = owner.get_by_role("row", name=re.compile("Snippet shop"))
    expect(row.get_by_role("cell").nth(1)).to_have_text("1")
    expect_accessible(owner)


def test_consent_mode_snippet_shows_the_consent_call(collector, owner):
    create_site(owner, collector.base_url, "Consent shop", mode="Wait for consent")
    expect(owner.get_by_label("Consent call", exact=True)).to_have_value("audience.consent(true)")
    assert "audience.q.push" in owner.get_by_label("Snippet", exact=True).input_value()


def send_server_event(collector, secret: str, **event) -> requests.Response:
    return requests.post(f"{collector.base_url}/collect/server", timeout=10,
                         headers={"Authorization": f"Bearer {secret}"},
                         json={"events": [{"type": "pageview", "url": "https://shop.example/", **event}]})


def test_server_key_created_used_revoked_and_audited(collector, owner):
    site = create_site(owner, collector.base_url, "Key shop")
    owner.get_by_label("Key name", exact=True).fill("Checkout back end")
    owner.get_by_role("button", name="Create a key").click()
    expect(owner.get_by_text("it will never be shown again")).to_be_visible()
    secret = owner.get_by_label("Secret of the key “Checkout back end”").input_value()
    assert secret.startswith("sk_")
    expect(owner.get_by_role("button", name="Copy the secret")).to_be_visible()
    expect_accessible(owner)
    owner.reload()  # repeats the GET after the redirect: no second key, and the secret is gone
    expect(owner.get_by_role("heading", name="Server keys")).to_be_visible()
    expect(owner.get_by_text("it will never be shown again")).to_have_count(0)
    expect(owner.get_by_role("row", name=re.compile("Checkout back end"))).to_have_count(1)
    assert send_server_event(collector, secret).status_code == 202
    owner.goto(f"{collector.base_url}/admin/sites/{site}/settings")
    expect(owner.get_by_text(secret)).to_have_count(0)  # never shown again
    owner.once("dialog", lambda dialog: dialog.accept())
    owner.get_by_role("button", name="Revoke “Checkout back end”").click()
    expect(owner.get_by_role("status")).to_contain_text("The key was revoked")
    row = owner.get_by_role("row", name=re.compile("Checkout back end"))
    expect(row).to_contain_text("revoked")
    assert send_server_event(collector, secret).status_code == 401
    owner.get_by_role("link", name="Audit log").click()
    owner.get_by_label("Site", exact=True).select_option(label="Key shop")
    owner.get_by_label("Kind", exact=True).select_option("server_key")
    owner.get_by_role("button", name="Filter").click()
    expect(owner.get_by_role("row").filter(has_text="server_key.")).to_have_count(2)
    expect_accessible(owner)


def test_classifications_good_csv_previewed_then_imported_bad_csv_refused(collector, owner):
    site = create_site(owner, collector.base_url, "CSV shop")
    owner.get_by_role("link", name="Metadata").click()
    good = b"dimension,value,attribute,attribute_value\ncampaign,spring_fb,product_line,Shoes\ncampaign,fall_g,product_line,Bags\n"
    owner.get_by_label("CSV file", exact=True).set_input_files({"name": "good.csv", "mimeType": "text/csv", "buffer": good})
    owner.get_by_role("button", name="Preview the file").click()
    preview = owner.get_by_role("table", name=re.compile("Preview: the first 2 of 2 rows"))
    expect(preview.get_by_role("row")).to_have_count(3)
    expect(preview).to_contain_text("spring_fb")
    assert collector.db.execute("select count(*) as n from collect.classifications where site_id = %s",
                                (site,)).fetchone()["n"] == 0
    expect_accessible(owner)
    owner.get_by_role("button", name="Import these 2 rows").click()
    expect(owner.get_by_role("status")).to_contain_text("2 rows were imported.")

    bad = b"dimension,value,attribute,attribute_value\ncampaign,x,product_line,Hats\nCampaign!,y,product_line,Caps\ncampaign,z,line\n"
    owner.get_by_label("CSV file", exact=True).set_input_files({"name": "bad.csv", "mimeType": "text/csv", "buffer": bad})
    owner.get_by_role("button", name="Preview the file").click()
    errors = owner.get_by_role("table", name=re.compile("Wrong lines of the file"))
    expect(errors.get_by_role("row").nth(1)).to_contain_text("3")
    expect(errors.get_by_role("row").nth(1)).to_contain_text("dimension")
    expect(errors.get_by_role("row").nth(2)).to_contain_text("expected 4 fields")
    expect_accessible(owner)

    owner.get_by_label("CSV file", exact=True).set_input_files({"name": "latin1.csv", "mimeType": "text/csv",
                                                    "buffer": "dimension,value,attribute,attribute_value\ncampaign,été,a,b\n".encode("latin-1")})
    owner.get_by_role("button", name="Preview the file").click()
    expect(owner.get_by_role("alert")).to_contain_text("not UTF-8")

    owner.get_by_label("CSV file", exact=True).set_input_files({"name": "huge.csv", "mimeType": "text/csv",
                                                    "buffer": b"dimension,value,attribute,attribute_value\n" + b"x" * (11 * 1024 * 1024)})
    owner.get_by_role("button", name="Preview the file").click()
    expect(owner.get_by_role("heading", name="The file is too large")).to_be_visible()
    rows = collector.db.execute("select value from collect.classifications where site_id = %s order by value",
                                (site,)).fetchall()
    assert [row["value"] for row in rows] == ["fall_g", "spring_fb"]


def test_stored_xss_in_a_site_name_and_an_annotation_never_runs(collector, owner):
    payload = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
    dialogs = []
    owner.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    site = create_site(owner, collector.base_url, payload)
    owner.get_by_role("link", name="Metadata").click()
    owner.get_by_label("Date", exact=True).fill("2026-03-01")
    owner.get_by_label("Text", exact=True).fill(payload)
    owner.get_by_role("button", name="Add the annotation").click()
    expect(owner.get_by_role("cell", name=payload)).to_be_visible()
    for path in ("/admin/sites", f"/admin/sites/{site}/metadata", f"/admin/sites/{site}/settings", "/admin/audit"):
        owner.goto(collector.base_url + path)
        assert owner.evaluate("window.__xss") is None, path
    assert dialogs == []
    owner.goto(collector.base_url + "/admin/sites")
    expect(owner.get_by_role("link", name=payload)).to_be_visible()  # shown as text


def test_a_form_without_its_csrf_token_is_refused(collector, owner):
    owner.goto(f"{collector.base_url}/admin/sites/new")
    owner.get_by_label("Name", exact=True).fill("Forged shop")
    owner.evaluate("document.querySelectorAll('input[name=csrf_token]').forEach(input => input.value = 'forged')")
    owner.get_by_role("button", name="Create the site").click()
    expect(owner.get_by_role("heading", name="Access refused")).to_be_visible()
    assert collector.db.execute("select count(*) as n from collect.sites where name = 'Forged shop'").fetchone()["n"] == 0


def test_a_form_error_keeps_the_input_and_names_the_field(collector, owner):
    owner.goto(f"{collector.base_url}/admin/sites/new")
    owner.get_by_label("Name", exact=True).fill("Typed name")
    owner.get_by_label("Allowed domains", exact=True).fill("https://not-a-host/path")
    owner.get_by_role("button", name="Create the site").click()
    expect(owner.get_by_role("alert")).to_contain_text("Check the field “Allowed domains”.")
    expect(owner.get_by_label("Name", exact=True)).to_have_value("Typed name")
    expect(owner.get_by_label("Allowed domains", exact=True)).to_have_value("https://not-a-host/path")
    expect_accessible(owner)


SCREENS = ("settings", "metadata", "channels", "figures", "privacy")
HEADINGS = {"en-GB": ("Sites", "Settings", "Metadata", "Channels", "Check figures", "Privacy requests", "Audit log"),
            "fr-FR": ("Sites", "Réglages", "Métadonnées", "Canaux", "Chiffres de contrôle",
                      "Demandes de confidentialité", "Journal d'audit"),
            "es-ES": ("Sitios", "Ajustes", "Metadatos", "Canales", "Cifras de control", "Solicitudes de privacidad",
                      "Registro de auditoría")}


@pytest.mark.parametrize("locale", list(HEADINGS))
def test_every_screen_in_each_language_without_serious_accessibility_violations(collector, open_page, locale):
    with psycopg.connect(collector.database_url, autocommit=True) as conn:
        site = conn.execute("insert into collect.sites (name) values ('Langues') returning site_id").fetchone()[0]
        conn.execute("insert into collect.zones (site_id, name, selector, label) values (%s, 'pricing', '#pricing', 'Prix')",
                     (site,))
    page = open_page(locale)
    page.goto(f"{collector.base_url}/admin/sign-in")
    expect_accessible(page)
    sign_in(page, collector.base_url)
    paths = ["/admin/sites", *(f"/admin/sites/{site}/{screen}" for screen in SCREENS), "/admin/audit"]
    for path, heading in zip(paths, HEADINGS[locale]):
        page.goto(collector.base_url + path)
        expect(page.get_by_role("heading", level=1)).to_have_text(heading)
        assert page.locator("html").get_attribute("lang") == locale[:2]
        expect_accessible(page)
    for path in ("/admin/sites/new", f"/admin/sites/{site}/metadata/zones/pricing/edit"):
        page.goto(collector.base_url + path)
        expect_accessible(page)
