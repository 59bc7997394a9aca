"""Shared pages in Chromium: the share dialog's PDF choice, the PDF button of a public link and of
an embed whose token allows it (the download read back with pypdf: A4, the dashboard's text), no
button where the share does not offer it; a one-of filter on a public page that loads its values
through the link."""
from __future__ import annotations

import re
import time
from io import BytesIO

import jwt
import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.workbench_ui.conftest import ANALYST, LANGUAGES, PASSWORD, check_accessibility, sign_in
from tests.workbench_ui.test_sharing import DASHBOARD, card, fresh_page, shared  # noqa: F401 - a fixture

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _downloaded_pdf(page) -> str:
    """Click PDF, and the text of the A4 file it downloads."""
    with page.expect_download(timeout=90_000) as download:
        page.get_by_role("button", name="PDF", exact=True).click()
    reader = PdfReader(BytesIO(open(download.value.path(), "rb").read()))
    for one in reader.pages:
        assert abs(float(one.mediabox.width) - 595) <= 1 and abs(float(one.mediabox.height) - 842) <= 1
    return "\n".join(one.extract_text() for one in reader.pages)


def test_a_public_link_made_with_pdf_offers_the_download(page, browser, stack, shared):  # noqa: F811
    stack.ok("PATCH", "/settings", json={"public_sharing": True})
    dashboard = shared["dashboard"]
    sign_in(page, path=f"/dashboards/{dashboard['dashboard_id']}")
    page.get_by_role("button", name="Share").click()
    dialog = page.get_by_role("dialog", name="Share this dashboard")
    dialog.get_by_label("Visitors may download it as PDF").check()
    dialog.get_by_role("button", name="Create a public link").click()
    address = dialog.get_by_test_id("one-time-secret").inner_text()
    expect(dialog.get_by_role("cell", name="Offered", exact=True).first).to_be_visible()
    without = stack.ok("POST", f"/dashboards/{dashboard['dashboard_id']}/public-links", json={})
    context, visitor = fresh_page(browser, stack)
    try:
        visitor.goto(address)
        expect(card(visitor)).to_contain_text(shared["channels"][0], timeout=30_000)
        text = _downloaded_pdf(visitor)
        assert DASHBOARD in text and shared["channels"][0] in text
        visitor.goto(without["path"])
        expect(card(visitor)).to_contain_text(shared["channels"][0], timeout=30_000)
        expect(visitor.get_by_role("button", name="PDF", exact=True)).to_have_count(0)
    finally:
        context.close()


def test_an_embed_whose_token_allows_it_offers_the_download(browser, stack, shared):  # noqa: F811
    created = stack.ok("POST", "/embedding-secrets", json={"name": "PDF portal", "group_id": shared["group_id"],
                                                           "allowed_origins": []})
    kid, secret = created["embedding_secret"]["kid"], created["secret"]
    channel = shared["channels"][0]

    def token(**extra) -> str:
        return jwt.encode({"resource": {"dashboard": shared["dashboard"]["dashboard_id"]},
                           "exp": int(time.time()) + 600, **extra,
                           "user": {"id": "customer-pdf", "attributes": {"channel": channel}}},
                          secret, algorithm="HS256", headers={"kid": kid})

    context, visitor = fresh_page(browser, stack)
    try:
        visitor.goto(f"/embed?token={token(permissions=['download_pdf'])}")
        expect(card(visitor)).to_contain_text(channel, timeout=30_000)
        text = _downloaded_pdf(visitor)
        assert DASHBOARD in text and channel in text
        assert all(other not in text for other in shared["channels"] if other != channel)
        visitor.goto(f"/embed?token={token()}")
        expect(card(visitor)).to_contain_text(channel, timeout=30_000)
        expect(visitor.get_by_role("button", name="PDF", exact=True)).to_have_count(0)
    finally:
        context.close()


def test_a_one_of_filter_on_a_public_page_loads_its_values_through_the_link(browser, stack, shared):  # noqa: F811
    stack.ok("PATCH", "/settings", json={"public_sharing": True})
    # Made by the analyst, who reads organic search visits only: the link offers what they read.
    token = stack.ok("POST", "/auth/token", json={"email": ANALYST, "password": PASSWORD})["secret"]
    question = stack.ok("POST", "/questions", token=token, json={
        "name": "Visits by channel, one-of", "visualization": {"kind": "table", "y": []},
        "sql": "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 ORDER BY 1"})
    dashboard = stack.ok("POST", "/dashboards", token=token, json={
        "name": "Channels to choose", "cards": [{"key": "c", "question_id": question["question_id"], "width": 12}],
        "filters": [{"name": "Channel", "type": "one_of", "links": [{"card": "c", "column": "channel"}],
                     "values": {"table": "warehouse.analytics.visits", "column": "channel"}}]})
    link = stack.ok("POST", f"/dashboards/{dashboard['dashboard_id']}/public-links", token=token,
                    json={"allowed_filters": ["Channel"]})
    context, visitor = fresh_page(browser, stack)
    try:
        visitor.goto(link["path"])
        values = visitor.get_by_role("list", name="Values of Channel")
        expect(values.get_by_role("checkbox", name="Organic Search")).to_be_visible(timeout=30_000)
        expect(values.get_by_role("checkbox")).to_have_count(1)
        expect(visitor.get_by_role("alert")).to_have_count(0)
        values.get_by_role("checkbox", name="Organic Search").check()
        visitor.get_by_role("button", name="Apply filters").click()
        expect(visitor).to_have_url(re.compile(r"f\.[0-9]+=Organic"))
        region = visitor.get_by_role("region", name="Visits by channel, one-of", exact=True)
        expect(region).to_contain_text("Organic Search", timeout=30_000)
    finally:
        context.close()


def test_embedding_accounts_are_neither_people_nor_offered_to_view_as(page, stack, shared):  # noqa: F811
    created = stack.ok("POST", "/embedding-secrets", json={"name": "Hidden portal", "group_id": shared["group_id"]})
    kid = created["embedding_secret"]["kid"]
    sign_in(page, path="/admin/people")
    expect(page.get_by_role("heading", name="People", exact=True)).to_be_visible()
    expect(page.get_by_text(ANALYST).first).to_be_visible()
    expect(page.get_by_text(f"{kid}@embedding.invalid")).to_have_count(0)
    expect(page.get_by_text("Embedding: Hidden portal")).to_have_count(0)
    page.goto("/admin/groups")
    picker = page.get_by_label("Person", exact=True)
    expect(picker.locator("option", has_text=ANALYST)).to_have_count(1)
    expect(picker.locator("option", has_text="embedding.invalid")).to_have_count(0)


VALUES_OF = {"en": "Values of Channel", "fr": "Valeurs de Channel", "es": "Valores de Channel"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_public_page_with_pdf_and_a_one_of_filter_passes_axe(browser, stack, language):
    stack.ok("PATCH", "/settings", json={"public_sharing": True})
    question = stack.ok("POST", "/questions", json={
        "name": f"Channels ({language})", "sql": "SELECT channel, count(*) AS visits FROM visits GROUP BY 1 ORDER BY 1",
        "visualization": {"kind": "table", "y": []}})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": f"Public channels ({language})", "cards": [{"key": "c", "question_id": question["question_id"]}],
        "filters": [{"name": "Channel", "type": "one_of", "links": [{"card": "c", "column": "channel"}],
                     "values": {"table": "warehouse.analytics.visits", "column": "channel"}}]})
    link = stack.ok("POST", f"/dashboards/{dashboard['dashboard_id']}/public-links",
                    json={"allowed_filters": ["Channel"], "allow_pdf": True})
    context, visitor = fresh_page(browser, stack, language)
    try:
        visitor.goto(link["path"])
        expect(visitor.get_by_role("list", name=VALUES_OF[language]).get_by_role("checkbox").first).to_be_visible(
            timeout=30_000)
        expect(visitor.get_by_role("button", name="PDF", exact=True)).to_be_visible()
        check_accessibility(visitor, f"public dashboard with PDF and a one-of filter ({language})")
    finally:
        context.close()
