"""Dashboards in Chromium on the demo data: build one with tabs, text, cards and a linked filter;
undo; the filter in the URL; one failing card among drawing ones; each language passes axe."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHANNEL_PER_DAY = "Channel visits per day"
MALICIOUS = ("**Counted without cookies.** <script>window.pwned = 1</script><img src=x onerror=\"window.pwned=2\">\n\n"
             "[a bad link](javascript:window.pwned=3) and [the site](https://example.org)")


@pytest.fixture(scope="module")
def channel_question(stack) -> int:
    return stack.ok("POST", "/questions", json={
        "name": CHANNEL_PER_DAY, "variables": {"channel": "text"},
        "sql": "SELECT CAST(visit_start AS DATE) AS day, count(*) AS visits FROM visits "
               "WHERE true [[AND channel = {{channel}}]] GROUP BY 1 ORDER BY 1",
        "visualization": {"kind": "line", "x": "day", "y": ["visits"]}})["question_id"]


def open_dashboards(page):
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Dashboards").click()
    expect(page.get_by_role("heading", name="Dashboards", exact=True)).to_be_visible()


def add_question(page, name: str):
    page.get_by_label("Question", exact=True).select_option(label=name)
    page.get_by_role("button", name="Add question").click()


def card(page, name: str):
    return page.get_by_role("region", name=name, exact=True)


def expect_chart(page, name: str):
    expect(card(page, name).get_by_test_id("chart").locator("svg")).to_be_visible(timeout=30_000)


def test_build_a_dashboard_with_tabs_text_cards_and_a_linked_filter(page, stack, channel_question):
    sign_in(page)
    open_dashboards(page)
    page.get_by_label("New dashboard name").fill("Channels at a glance")
    page.get_by_role("button", name="Create dashboard").click()
    expect(page.get_by_role("heading", name="Channels at a glance")).to_be_visible()
    page.get_by_role("button", name="Edit").click()

    page.get_by_label("Tab name").fill("Overview")
    page.get_by_role("button", name="Add tab").click()
    add_question(page, "Visits by channel")
    add_question(page, CHANNEL_PER_DAY)
    add_question(page, "Top pages")
    page.get_by_role("button", name="Add heading").click()
    expect(page.get_by_test_id("grid-card")).to_have_count(4)
    # Duplicate, then undo: the last change only is taken back.
    page.get_by_role("button", name="Duplicate Top pages").click()
    expect(page.get_by_test_id("grid-card")).to_have_count(5)
    page.get_by_role("button", name="Undo").click()
    expect(page.get_by_test_id("grid-card")).to_have_count(4)
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    page.get_by_role("button", name="Remove New heading").click()
    expect(page.get_by_test_id("grid-card")).to_have_count(3)

    page.get_by_label("Tab name").fill("Notes")
    page.get_by_role("button", name="Add tab").click()
    page.get_by_role("tab", name="Notes").click()
    page.get_by_role("button", name="Add text").click()
    page.get_by_label("Text (Markdown)").fill(MALICIOUS)

    page.get_by_label("Filter name").fill("Channel")
    page.get_by_role("button", name="Add filter").click()
    page.get_by_label(f"Channel feeds this field of {CHANNEL_PER_DAY}").select_option("channel")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("button", name="Edit")).to_be_visible()

    page.get_by_role("tab", name="Overview").click()
    for name in ("Visits by channel", CHANNEL_PER_DAY, "Top pages"):
        expect_chart(page, name)
        expect(card(page, name).get_by_test_id("card-updated")).to_have_text("Updated just now")
    check_accessibility(page, "a dashboard")

    # The filter re-runs the card it feeds and goes to the URL, so the link reproduces the view.
    all_days = card(page, CHANNEL_PER_DAY).get_by_test_id("chart").inner_text()
    page.get_by_label("Channel", exact=True).fill("Organic Search")
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(r"f\.\d+=Organic\+Search"))
    expect_chart(page, CHANNEL_PER_DAY)
    link = page.url
    other = page.context.new_page()
    other.goto(link)
    expect(other.get_by_label("Channel", exact=True)).to_have_value("Organic Search")
    expect_chart(other, CHANNEL_PER_DAY)
    filtered = stack.ok("POST", f"/questions/{channel_question}/run", json={"variables": {"channel": "Organic Search"}})
    everything = stack.ok("POST", f"/questions/{channel_question}/run", json={})
    assert sum(r[1] for r in filtered["rows"]) < sum(r[1] for r in everything["rows"])
    assert all_days  # drawn before the filter

    # Markdown drawn as text: no script ran, no raw HTML, no javascript: link.
    page.get_by_role("tab", name="Notes").click()
    notes = page.get_by_role("tabpanel", name="Notes")
    expect(notes.locator("strong")).to_have_text("Counted without cookies.")
    expect(notes.get_by_role("link", name="the site")).to_have_attribute("rel", "noopener noreferrer")
    expect(notes.get_by_text("a bad link")).to_be_visible()
    assert notes.locator("script, img, a[href^='javascript']").count() == 0
    assert page.evaluate("window.pwned") is None

    # Auto-refresh goes to the URL too.
    page.get_by_label("Auto-refresh").select_option(label="Every 5 minutes")
    expect(page).to_have_url(re.compile(r"refresh=5"))


def test_one_failing_card_shows_its_error_and_the_others_draw(page, stack):
    broken = stack.ok("POST", "/questions", json={"name": "Soon broken", "sql": "SELECT channel, count(*) AS n "
                                                  "FROM visits GROUP BY 1"})
    dashboard = stack.ok("POST", "/dashboards", json={"name": "Partly broken", "cards": [
        {"question_id": broken["question_id"], "col": 0}, {"question_id": _demo_question(stack, "Top pages"), "col": 6}]})
    stack.ok("PATCH", f"/questions/{broken['question_id']}", json={"sql": "SELECT * FROM no_such_view"})
    sign_in(page, path=f"/dashboards/{dashboard['dashboard_id']}")
    expect(card(page, "Soon broken").get_by_role("alert")).to_contain_text("no_such_view")
    expect_chart(page, "Top pages")


def test_an_opened_address_runs_each_card_of_its_tab_once(page, stack):
    """The card runs start with the dashboard's first reads (before the page draws its grid): each
    card of the tab in the address runs once, carrying the session's CSRF token, with the URL's filter.
    The session, the definition and the theme came inside the page: the browser does not ask for them."""
    top, per_day = _demo_question(stack, "Top pages"), _demo_question(stack, "Visits per day")
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": "Opened by address", "tabs": [{"key": "t1", "name": "One"}, {"key": "t2", "name": "Two"}],
        "cards": [{"question_id": top, "col": 0, "tab": "t1"}, {"question_id": per_day, "col": 6, "tab": "t2"},
                  {"question_id": top, "col": 0, "row": 4, "tab": "t2"}]})
    second = dashboard["tabs"][1]["tab_id"]
    shown = [c["card_id"] for c in dashboard["cards"] if c["tab_id"] == second]
    assert len(shown) == 2
    sign_in(page)
    runs: list[tuple[str, int]] = []
    reads: list[str] = []
    page.on("response", lambda r: runs.append((r.url, r.status)) if r.url.endswith("/run") else None)
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET" and "/api/v1/" in r.url else None)
    page.goto(f"{stack.base_url}/dashboards/{dashboard['dashboard_id']}?tab=t{second}")
    expect(card(page, "Visits per day").get_by_test_id("chart").locator("svg")).to_be_visible(timeout=30_000)
    expect(card(page, "Top pages").get_by_test_id("chart").locator("svg")).to_be_visible(timeout=30_000)
    page.wait_for_timeout(500)
    assert sorted(runs) == sorted((f"{stack.base_url}/api/v1/dashboards/{dashboard['dashboard_id']}/cards/{card_id}/run", 200)
                                  for card_id in shown), runs
    first = f"{stack.base_url}/api/v1/dashboards/{dashboard['dashboard_id']}"
    assert not {f"{stack.base_url}/api/v1/session", first, f"{first}/theme"} & set(reads), reads


def _demo_question(stack, name: str) -> int:
    found = stack.ok("GET", "/questions", params={"search": name})["questions"]
    return next(q["question_id"] for q in found if q["name"] == name)


NAMES = {"en": ("Dashboards", "Edit"), "fr": ("Tableaux de bord", "Modifier"), "es": ("Paneles", "Editar")}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_dashboard_screens_in_each_language_pass_axe(page, stack, language):
    email = f"dashboards-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    title, edit = NAMES[language]
    page.get_by_role("link", name=title).click()
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
    check_accessibility(page, f"dashboards ({language})")
    page.get_by_role("link", name="Demo dashboard").click()
    expect_chart(page, "Visits by channel")
    check_accessibility(page, f"Demo dashboard ({language})")
    page.get_by_role("button", name=edit).click()
    expect(page.get_by_test_id("grid-card").first).to_be_visible()
    check_accessibility(page, f"dashboard editor ({language})")
