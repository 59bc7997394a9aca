"""What a restricted person sees, and text from data or people always shown as text."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import ANALYST, sign_in
from tests.workbench_ui.test_screens import expect_rows, open_sql_editor, run, write_sql

pytestmark = [pytest.mark.slow, pytest.mark.browser]

XSS = '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>'


def test_a_restricted_person_sees_only_their_rows_and_never_a_hidden_column(page, stack):
    sign_in(page, ANALYST)
    page.get_by_role("link", name="Data").click()
    page.get_by_role("button", name="visits", exact=True).click()
    expect(page.get_by_role("rowheader", name="channel")).to_be_visible()
    expect(page.get_by_role("rowheader", name="visitor_key")).to_have_count(0)
    page.get_by_label("Search tables and columns").fill("visitor_key")
    expect(page.get_by_role("button", name="visits", exact=True)).to_have_count(0)

    open_sql_editor(page)
    write_sql(page, "select channel, count(*) as n from visits group by 1")
    run(page)
    expect_rows(page, 1)
    page.get_by_label("Chart", exact=True).select_option("table")
    table = page.get_by_role("region", name="Result table")
    expect(table.get_by_role("cell", name="Organic Search")).to_be_visible()

    write_sql(page, "select * from visits limit 5")
    run(page)
    page.get_by_label("Chart", exact=True).select_option("table")
    expect(table.get_by_role("columnheader", name="channel")).to_be_visible()
    expect(table.get_by_role("columnheader", name="visitor_key")).to_have_count(0)

    write_sql(page, "select * from visits where visitor_")
    page.keyboard.press("Control+Space")
    expect(page.get_by_role("option", name=re.compile("^visitor_kind"))).to_be_visible()
    expect(page.get_by_role("option", name=re.compile("^visitor_key"))).to_have_count(0)

    write_sql(page, "select visitor_key from visits")
    run(page)
    alert = page.get_by_role("alert")
    expect(alert).to_be_visible()


def test_a_stored_xss_in_a_question_name_and_a_column_comment_never_runs(page, stack):
    stack.psql(f"comment on column analytics.visits.browser is '{XSS}'")
    stack.ok("POST", "/sources/refresh")  # comments are read with the schema: refresh it, as after a build
    stack.ok("POST", "/questions", json={"name": XSS, "kind": "sql", "sql": f"select '{XSS.replace(chr(39), chr(39) * 2)}' as v"})
    try:
        sign_in(page)
        page.get_by_role("link", name="Browse").click()  # the person's folder (home is the first screen)
        expect(page.get_by_role("link", name=XSS)).to_be_visible()
        page.get_by_role("link", name=XSS).click()
        expect(page.get_by_role("heading", name=XSS)).to_be_visible()
        run(page)
        expect_rows(page, 1)
        page.get_by_label("Chart", exact=True).select_option("table")
        expect(page.get_by_role("cell", name=XSS)).to_be_visible()
        page.get_by_role("link", name="Data").click()
        page.get_by_role("button", name="visits", exact=True).click()
        expect(page.get_by_role("row", name=re.compile("^browser")).get_by_role("cell", name=XSS)).to_be_visible()
        page.get_by_role("link", name="History").click()
        expect(page.get_by_role("row").filter(has_text="onerror").first).to_be_visible()
        assert page.evaluate("window.__xss") is None
    finally:
        stack.psql("comment on column analytics.visits.browser is 'Browser family'")
        stack.ok("POST", "/sources/refresh")
