"""The analysis screen on the demo data: a funnel built step by step (added, reordered), then paths
and retention, in English, French and Spanish, each passing axe."""
from __future__ import annotations

import json
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
