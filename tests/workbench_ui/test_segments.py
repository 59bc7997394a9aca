"""Saved segments on the real stack and the demo data: a segment filters the demo site's Overview
report through its Segment filter (the same visits as the Channel filter for a channel segment),
and the segment editor, the dashboard's segment picker and the side-by-side comparisons (segment
against segment, period against the period before) in English, French and Spanish, each passing axe."""
from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from tests.conftest import REPO_ROOT
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, sign_in
from tests.workbench_ui.test_site_reports import APPLY, demo_reports

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LOCALES = REPO_ROOT / "workbench_app" / "frontend" / "src" / "i18n" / "locales"


def test_a_saved_segment_filters_a_site_report_as_its_conditions_say(stack):
    overview = demo_reports(stack)["Overview"]
    dashboard = stack.ok("GET", f"/dashboards/{overview}")
    assert any(f["name"] == "Segment" and f["type"] == "segment" for f in dashboard["filters"])
    visits = next(card for card in dashboard["cards"] if card["question_name"] == "Visits")
    run = f"/dashboards/{overview}/cards/{visits['card_id']}/run"
    segment = stack.ok("POST", "/segments", json={"name": f"Direct {uuid.uuid4().hex[:6]}",
                                                   "conditions": {"channels": ["Direct"]}})
    every = stack.ok("POST", run, json={})["rows"][0][0]
    by_channel = stack.ok("POST", run, json={"filters": {"Channel": ["Direct"]}})["rows"][0][0]
    by_segment = stack.ok("POST", run, json={"filters": {"Segment": segment["segment_id"]}})["rows"][0][0]
    assert 0 < by_segment == by_channel < every
    stack.ok("DELETE", f"/segments/{segment['segment_id']}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_segment_editor_and_the_dashboard_picker_in_each_language(page, stack, language):
    words = {**json.loads((LOCALES / language / "segments.json").read_text()),
             **json.loads((LOCALES / language / "nav.json").read_text())}
    overview = demo_reports(stack)["Overview"]
    filters = {f["name"]: f for f in stack.ok("GET", f"/dashboards/{overview}")["filters"]}
    segment_filter, period = filters["Segment"], filters["Period"]
    email = f"segments-{language}-{uuid.uuid4().hex[:8]}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    page.get_by_role("link", name=words["nav.segments"], exact=True).click()
    expect(page.get_by_role("heading", name=words["segments.title"], exact=True)).to_be_visible()

    # A refusal is the server's, in the person's language: a segment needs a condition.
    name = f"<b>Direct</b> {language}"  # text from data is drawn as text
    page.get_by_label(words["segments.name"], exact=True).fill(name)
    page.get_by_role("button", name=words["segments.save"]).click()
    expect(page.get_by_role("alert")).to_be_visible()
    # Values are chips: Enter adds one (without sending the form), each has its own remove button.
    channels_name = words["segments.channels"]
    channels = page.get_by_label(channels_name, exact=True)
    chosen = page.get_by_role("list", name=words["segments.chosen"].replace("{{field}}", channels_name))
    for value in ("Organic Search", "Direct", "Direct"):
        channels.fill(value)
        channels.press("Enter")
    expect(chosen.get_by_role("listitem")).to_have_count(2)  # a value is chosen once
    expect(chosen.get_by_role("listitem")).to_contain_text(["Organic Search", "Direct"])
    check_accessibility(page, f"the segment editor's chosen values ({language})")
    remove = words["segments.removeValue"].replace("{{field}}", channels_name)
    page.get_by_role("button", name=remove.replace("{{value}}", "Organic Search"), exact=True).click()
    expect(chosen.get_by_role("listitem")).to_have_count(1)
    expect(chosen.get_by_role("listitem")).to_contain_text(["Direct"])
    expect(channels).to_be_focused()
    page.get_by_role("button", name=words["segments.save"]).click()
    expect(page.get_by_role("status").filter(has_text=name)).to_be_visible()
    listed = page.get_by_role("list", name=words["segments.listLabel"])
    expect(listed).to_contain_text(name)
    check_accessibility(page, f"the segment editor ({language})")

    page.goto(f"/dashboards/{overview}")
    picker = page.get_by_label("Segment", exact=True)
    expect(picker.locator("option", has_text=name)).to_have_count(1)
    picker.select_option(label=name)
    page.get_by_role("button", name=APPLY[language]).click()
    expect(page).to_have_url(re.compile(rf"f\.{segment_filter['filter_id']}=\d+"))
    visitors = page.get_by_role("figure", name="Visitors", exact=True)
    expect(visitors).to_contain_text(re.compile(r"\d"), timeout=30_000)
    check_accessibility(page, f"a report filtered by a segment ({language})")

    # Side by side: the segment against every visit, kept in the address; the day-by-day chart draws
    # both, named after the segment and "every visit".
    dashboards = json.loads((LOCALES / language / "dashboards.json").read_text())
    page.get_by_label(dashboards["dashboards.compareWith"].replace("{{name}}", "Segment"), exact=True).select_option(
        label=words["segments.everyVisit"])
    page.get_by_role("button", name=APPLY[language]).click()
    expect(page).to_have_url(re.compile(rf"cmp\.{segment_filter['filter_id']}=(&|$)"))
    per_day = page.get_by_role("region", name="Visits day by day")
    expect(per_day.get_by_test_id("chart")).to_contain_text(words["segments.everyVisit"], timeout=30_000)
    expect(per_day.get_by_test_id("chart")).to_contain_text(name)
    check_accessibility(page, f"a report compared side by side ({language})")

    # Period against period: the period just before, of the same length, row by row.
    page.get_by_label(dashboards["dashboards.compareWith"].replace("{{name}}", "Segment"), exact=True).select_option(
        label=dashboards["dashboards.noComparison"])
    page.get_by_label(dashboards["dashboards.compareWithPrevious"].replace("{{name}}", "Period"), exact=True).check()
    page.get_by_role("button", name=APPLY[language]).click()
    expect(page).to_have_url(re.compile(rf"cmp\.{period['filter_id']}=previous"))
    expect(per_day.get_by_test_id("chart")).to_contain_text(dashboards["dashboards.previousPeriod"], timeout=30_000)
    check_accessibility(page, f"a report compared with the period before ({language})")
