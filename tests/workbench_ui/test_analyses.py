"""The analysis screen on the demo data: a funnel built step by step (added, reordered), then paths
and retention, in English, French and Spanish, each passing axe."""
from __future__ import annotations

import json
import re
import uuid

import pytest
from playwright.sync_api import expect

from pipelines.demo import DEMO_SITE_NAME
from tests.conftest import REPO_ROOT
from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

LOCALES = REPO_ROOT / "workbench_app" / "frontend" / "src" / "i18n" / "locales"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_funnel_a_path_and_retention_in_each_language(page, stack, language):
    words = json.loads((LOCALES / language / "analyses.json").read_text())

    def say(key: str, n: int | None = None) -> str:
        return words[key].replace("{{n}}", str(n)) if n is not None else words[key]

    email = f"analyses-{language}-{uuid.uuid4().hex[:8]}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    page.get_by_role("link", name=say("nav.newAnalysis"), exact=True).click()
    expect(page.get_by_role("heading", name=say("analysis.title"), exact=True)).to_be_visible()

    # The sites are offered by name (the warehouse's sites view), not by id.
    expect(page.get_by_label(say("analysis.site"), exact=True).locator("option", has_text=DEMO_SITE_NAME)).to_have_count(1)
    # A saved segment narrows any analysis (none saved here: every visit).
    expect(page.get_by_label(say("analysis.segment"), exact=True)).to_have_value("")
    page.get_by_label(say("analysis.range"), exact=True).select_option("last90")
    page.get_by_label(say("analysis.pagePattern", 1)).fill("/")
    page.get_by_label(say("analysis.pagePattern", 2)).fill("/shoes*")
    page.get_by_role("button", name=say("analysis.addStep")).click()
    page.get_by_label(say("analysis.stepKind", 3)).select_option("event")
    page.get_by_label(say("analysis.eventName", 3)).fill("view_item")
    # Reordered down and back up: the steps follow their fields.
    page.get_by_role("button", name=say("analysis.moveDown", 2)).click()
    expect(page.get_by_label(say("analysis.eventName", 2))).to_have_value("view_item")
    page.get_by_role("button", name=say("analysis.moveUp", 3)).click()
    expect(page.get_by_label(say("analysis.pagePattern", 2))).to_have_value("/shoes*")
    chart = page.get_by_test_id("chart")
    expect(chart).to_contain_text("3. view_item")
    check_accessibility(page, f"a funnel ({language})")

    page.get_by_label(say("analysis.kind"), exact=True).select_option("path")
    page.get_by_label(say("analysis.page"), exact=True).fill("/shoes")
    expect(chart).to_contain_text(f"{say('analysis.stepNode', 0)} · /shoes")
    check_accessibility(page, f"paths ({language})")

    page.get_by_label(say("analysis.kind"), exact=True).select_option("retention")
    page.get_by_label(say("analysis.range"), exact=True).select_option("last30")  # a few cohorts: a lighter map
    page.get_by_label(say("analysis.periods"), exact=True).fill("3")
    expect(chart).to_contain_text(say("analysis.periodNumber", 1))
    expect(page.get_by_text(say("analysis.retentionNote")).last).to_be_visible()
    check_accessibility(page, f"retention ({language})")


LAST_7_DAYS = {"en": "Last 7 days", "fr": "7 derniers jours", "es": "Últimos 7 días"}
APPLY = {"en": "Apply filters", "fr": "Appliquer les filtres", "es": "Aplicar filtros"}


def _funnel_visitors(page, action) -> int:
    """The first step's visitors of the funnel card's run that `action` sets off."""
    with page.expect_response(lambda answer: "/cards/" in answer.url and answer.url.endswith("/run")) as run:
        action()
    assert run.value.ok, run.value.text()
    return run.value.json()["rows"][0][2]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_funnel_card_follows_the_dashboard_s_period(page, stack, language):
    overview = next(d for d in stack.ok("GET", "/dashboards")["dashboards"] if d["name"] == "Overview")
    site_id = next(f["default_value"] for f in stack.ok("GET", f"/dashboards/{overview['dashboard_id']}")["filters"]
                   if f["name"] == "Site")
    # Saved over a month without traffic: on the dashboard, the Period filter's days count instead.
    definition = {"kind": "funnel", "site_id": site_id, "date_range": {"from": "2020-01-01", "to": "2020-01-31"},
                  "window": {"amount": 1, "unit": "day"}, "steps": [{"page": "/"}, {"page": "/shoes*"}]}
    question = stack.ok("POST", "/questions", json={"name": f"Shoes funnel {language}", "kind": "analysis",
                                                      "analysis": definition,
                                                      "visualization": {"kind": "funnel", "x": "label", "y": ["visitors"]}})
    dashboard = stack.ok("POST", "/dashboards", json={
        "name": f"Funnel by period {language}", "cards": [{"key": "f", "question_id": question["question_id"]}],
        "filters": [{"name": "Period", "type": "date_range", "default": "last-90-days", "required": True,
                     "links": [{"card": "f", "variable": "from", "end_variable": "to"}]}]})
    assert stack.ok("POST", f"/questions/{question['question_id']}/run")["rows"][0][2] == 0
    email = f"analysis-card-{language}-{uuid.uuid4().hex[:8]}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    last_90 = _funnel_visitors(page, lambda: page.goto(f"/dashboards/{dashboard['dashboard_id']}"))
    assert last_90 > 0
    expect(page.get_by_test_id("chart")).to_contain_text("/shoes*", timeout=30_000)
    check_accessibility(page, f"a funnel card on a dashboard ({language})")
    page.get_by_role("combobox", name=re.compile("^Period")).select_option(label=LAST_7_DAYS[language])
    last_7 = _funnel_visitors(page, lambda: page.get_by_role("button", name=APPLY[language]).click())
    assert 0 < last_7 < last_90
    stack.ok("DELETE", f"/dashboards/{dashboard['dashboard_id']}")
