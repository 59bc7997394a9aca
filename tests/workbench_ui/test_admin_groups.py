"""The Groups and data rules screen: a rule written in the screen, its row filter checked as it is
typed (unknown column named, quoted placeholder warned about), applying at once to the person's
next statement in the API, the SQL editor and the agent tool server; "view as" shows their rows and
the deciding rule; in three languages with axe."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.mcp_client import call_tools, error_text, payload
from tests.workbench_ui.conftest import LANGUAGES, PASSWORD, check_accessibility, open_administration, sign_in
from tests.workbench_ui.test_screens import expect_rows, open_sql_editor, run, write_sql

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TITLE = {"en": "Groups and data rules", "fr": "Groupes et règles de données", "es": "Grupos y reglas de datos"}


def test_a_rule_written_in_the_screen_applies_at_once_and_view_as_shows_it(page, browser, stack):
    channels = [row[0] for row in stack.ok("POST", "/sql", json={
        "sql": "select distinct channel from visits where channel <> 'Organic Search' order by 1"})["rows"]]
    channel = channels[0]
    person = stack.create_user("ruled@example.org")
    stack.ok("PUT", f"/users/{person}/attributes", json={"attributes": {"channel": channel}})
    token = stack.ok("POST", "/auth/token", json={"email": "ruled@example.org", "password": PASSWORD})["secret"]
    assert stack.api("POST", "/sql", token=token, json={"sql": "select count(*) from visits"}).status_code == 404
    # The person's own browser (cookies of its own), with the SQL editor open before the rule exists.
    theirs = browser.new_context(base_url=stack.base_url, locale="en-US")
    editor = theirs.new_page()
    sign_in(editor, "ruled@example.org")
    open_sql_editor(editor)

    sign_in(page)
    open_administration(page, "Groups and rules")
    expect(page.get_by_role("heading", name="Groups and data rules")).to_be_visible()
    page.get_by_label("New group name").fill("Channel readers")
    page.get_by_role("button", name="Create the group").click()
    expect(page.get_by_role("heading", name="Channel readers")).to_be_visible()
    group_id = next(g["group_id"] for g in stack.ok("GET", "/groups")["groups"] if g["name"] == "Channel readers")
    stack.ok("PUT", f"/groups/{group_id}/members/{person}")

    page.get_by_role("button", name="Add a table rule").click()
    page.get_by_label("Table", exact=True).select_option("warehouse.analytics.visits")
    row_filter = page.get_by_label("Row filter")
    row_filter.fill("chanel = 'x'")
    expect(page.get_by_text("The table has no column chanel.")).to_be_visible()
    row_filter.fill("channel = '{{user.channel}}'")
    expect(page.get_by_test_id("rule-check")).to_contain_text("the placeholder is bound as a value")
    row_filter.fill("channel = {{user.channel}}")
    expect(page.get_by_test_id("rule-check")).to_have_text("The row filter is valid.")
    page.get_by_label("Hide visitor_key").check()
    page.get_by_role("button", name="Save").click()
    rule = page.get_by_role("row", name="warehouse.analytics.visits")
    expect(rule).to_contain_text("channel = {{user.channel}}")
    expect(rule).to_contain_text("visitor_key")

    # At once, for the person's next statement through the API.
    answer = stack.ok("POST", "/sql", token=token, json={"sql": "select distinct channel from visits"})
    assert answer["rows"] == [[channel]]
    assert stack.api("POST", "/sql", token=token, json={"sql": "select visitor_key from visits"}).status_code == 400
    # ... in the SQL editor of the person's own session, opened before the rule existed ...
    write_sql(editor, "select distinct channel from visits")
    run(editor)
    expect_rows(editor, 1)
    expect(editor.get_by_role("cell", name=channel, exact=True)).to_be_visible()
    # ... and through the agent tool server with the person's token.
    _, (seen, hidden) = call_tools(f"{stack.base_url}/mcp", token, [
        ("run_sql", {"sql": "select distinct channel from visits"}),
        ("run_sql", {"sql": "select visitor_key from visits"})])
    assert payload(seen)["rows"] == [[channel]]
    assert "visitor_key" in error_text(hidden)

    page.get_by_label("Person", exact=True).select_option(label="ruled@example.org")
    page.get_by_label("Sample statement").fill("select channel, count(*) as n from visits group by 1")
    page.get_by_role("button", name="Run as this person").click()
    answer = page.get_by_test_id("view-as-answer")
    expect(answer).to_contain_text("warehouse.analytics.visits")
    expect(answer).to_contain_text("Channel readers: table rule")
    expect(answer).to_contain_text("hidden: visitor_key")
    expect(answer.get_by_role("cell", name=channel, exact=True)).to_be_visible()

    page.get_by_role("button", name="Remove the rule on warehouse.analytics.visits").click()
    expect(page.get_by_role("row", name="warehouse.analytics.visits")).to_have_count(0)
    assert stack.api("POST", "/sql", token=token, json={"sql": "select count(*) from visits"}).status_code == 404
    _, (gone,) = call_tools(f"{stack.base_url}/mcp", token, [("run_sql", {"sql": "select count(*) from visits"})])
    assert "visits" in error_text(gone)
    theirs.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_groups_screen_in_each_language_passes_axe(page, stack, language):
    email = f"groups-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    page.goto("/admin/groups")
    expect(page.get_by_role("heading", name=TITLE[language], exact=True)).to_be_visible()
    page.get_by_role("navigation", name=TITLE[language]).get_by_role("button", name="Organic analysts").click()
    expect(page.locator("#group-title")).to_be_visible()
    check_accessibility(page, f"groups ({language})")
