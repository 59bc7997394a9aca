"""The demo site's report set on the real stack: made once by `analytics up`, every card's statement
runs on the demo data, and the Overview report reads well in each language (axe, filters in the address)."""
from __future__ import annotations

import re
import time
import uuid

import pytest
from playwright.sync_api import expect

from pipelines.demo import DEMO_SITE_NAME
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, sign_in
from workbench_app.home import report_templates

REPORTS = [report["name"] for report in report_templates.reports()]


def demo_reports(stack) -> dict[str, int]:
    folders = [f for f in stack.ok("GET", "/folders")["folders"] if f["name"] == DEMO_SITE_NAME]
    assert len(folders) == 1, folders
    listed = stack.ok("GET", "/dashboards")["dashboards"]
    return {d["name"]: d["dashboard_id"] for d in listed if d["folder_id"] == folders[0]["folder_id"]}


def test_the_demo_site_has_its_reports_and_every_card_runs(stack):
    reports = demo_reports(stack)
    assert sorted(reports) == sorted(REPORTS)
    for name, dashboard_id in reports.items():
        dashboard = stack.ok("GET", f"/dashboards/{dashboard_id}")
        for card in dashboard["cards"]:
            if card["kind"] != "question":
                continue
            # The filters' defaults: the demo site, the last 30 days (over the 90 days of demo traffic).
            answer = stack.api("POST", f"/dashboards/{dashboard_id}/cards/{card['card_id']}/run", json={})
            assert answer.status_code == 200, (name, card["question_name"], answer.text)
            result = answer.json()
            spec = card["visualization"]
            names = {column["name"] for column in result["columns"]}
            assert set(spec.get("y", [])) <= names and spec.get("x", next(iter(names))) in names, (name, spec, names)
            if name == "Real time":
                continue  # the demo's last events may be older than 30 minutes
            assert result["row_count"] > 0, (name, card["question_name"])
            if spec["kind"] == "change":
                assert result["rows"][0][0] is not None and result["rows"][0][1] is not None, (name, result["rows"])
    # The segment: the Overview's visits of one channel are fewer than all of them.
    overview = stack.ok("GET", f"/dashboards/{reports['Overview']}")
    visits = next(card for card in overview["cards"] if card["question_name"] == "Visits")
    run = f"/dashboards/{reports['Overview']}/cards/{visits['card_id']}/run"
    every = stack.ok("POST", run, json={})["rows"][0][0]
    direct = stack.ok("POST", run, json={"filters": {"Channel": ["Direct"]}})["rows"][0][0]
    assert 0 < direct < every
    # It reaches the cards over other tables of visits too, through the visit (Content's pages).
    content = stack.ok("GET", f"/dashboards/{reports['Content']}")
    pages = next(card for card in content["cards"] if card["question_name"] == "Most viewed pages")
    run = f"/dashboards/{reports['Content']}/cards/{pages['card_id']}/run"
    every = sum(row[1] for row in stack.ok("POST", run, json={})["rows"])
    direct = sum(row[1] for row in stack.ok("POST", run, json={"filters": {"Channel": ["Direct"]}})["rows"])
    assert 0 < direct < every


RANGE = {"en": "Last 90 days", "fr": "90 derniers jours", "es": "Últimos 90 días"}
APPLY = {"en": "Apply filters", "fr": "Appliquer les filtres", "es": "Aplicar filtros"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_overview_report_in_each_language(page, stack, language):
    overview = demo_reports(stack)["Overview"]
    period = next(f for f in stack.ok("GET", f"/dashboards/{overview}")["filters"] if f["name"] == "Period")
    email = f"site-reports-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email, path=f"/dashboards/{overview}")  # the sign-in page speaks the browser's language
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    visitors = page.get_by_role("figure", name="Visitors", exact=True)
    expect(visitors).to_contain_text(re.compile(r"\d"), timeout=30_000)
    expect(page.get_by_role("region", name="Visits day by day").get_by_test_id("chart").locator("svg")).to_be_visible(
        timeout=30_000)
    # The period is a dashboard filter kept in the address: a copied link shows the same view.
    page.get_by_role("combobox", name=re.compile("^Period")).select_option(label=RANGE[language])
    page.get_by_role("button", name=APPLY[language]).click()
    expect(page).to_have_url(re.compile(rf"f\.{period['filter_id']}=last-90-days"))
    expect(visitors).to_contain_text(re.compile(r"\d"), timeout=30_000)
    check_accessibility(page, f"the Overview report ({language})")


_MADE_IN: dict[str, dict[str, int]] = {}


def reports_made_in(stack, language: str) -> dict[str, int]:
    """A new site's reports made while the workbench's default language is `language` (the demo's
    set, made in English, for "en"): the site is created in the collector's database, and the
    workbench's next look at the sites (at most a minute later) makes its set."""
    if language == "en":
        return demo_reports(stack)
    if language not in _MADE_IN:
        name = f"Site made in {language}"
        stack.psql(f"insert into collect.sites (name, tracking_mode) values ('{name}', 'cookie')")
        stack.ok("PATCH", "/settings", json={"default_locale": language})
        try:
            deadline = time.monotonic() + 120
            while not [f for f in stack.ok("GET", "/folders")["folders"] if f["name"] == name]:
                assert time.monotonic() < deadline, f"the reports of {name} were not made"
                time.sleep(5)
        finally:
            stack.ok("PATCH", "/settings", json={"default_locale": "en"})
        folder = next(f for f in stack.ok("GET", "/folders")["folders"] if f["name"] == name)
        _MADE_IN[language] = {d["name"]: d["dashboard_id"] for d in stack.ok("GET", "/dashboards")["dashboards"]
                              if d["folder_id"] == folder["folder_id"]}
    return _MADE_IN[language]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_site_s_reports_read_in_the_workbench_s_language(page, stack, language):
    written = report_templates.reports(None, language)
    reports = reports_made_in(stack, language)
    assert sorted(reports) == sorted(report["name"] for report in written)
    overview, texts = written[0], report_templates.texts(language)
    email = f"site-reports-made-{language}-{uuid.uuid4().hex[:6]}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email, path=f"/dashboards/{reports[overview['name']]}")
    expect(page.get_by_role("heading", name=overview["name"], exact=True)).to_be_visible()
    expect(page.get_by_text(overview["description"])).to_be_visible()
    for card in overview["cards"][:2]:
        expect(page.get_by_role("figure", name=card["question"]["name"], exact=True)).to_be_visible(timeout=30_000)
    expect(page.get_by_role("combobox", name=re.compile(f"^{texts('Period')}"))).to_be_visible()
    check_accessibility(page, f"a site's reports made in {language}")
