"""Each screen on the demo data, as an analyst uses it, in English, French and Spanish."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, open_administration, sign_in

pytestmark = [pytest.mark.slow, pytest.mark.browser]

HEADINGS = {
    "/": {"en": "Home", "fr": "Accueil", "es": "Inicio"},
    "/browse": {"en": "Browse", "fr": "Parcourir", "es": "Explorar"},
    "/sql": {"en": "New SQL query", "fr": "Nouvelle requête SQL", "es": "Nueva consulta SQL"},
    "/data": {"en": "Data", "fr": "Données", "es": "Datos"},
    "/history": {"en": "History", "fr": "Historique", "es": "Historial"},
    "/audit": {"en": "Audit log", "fr": "Journal d'audit", "es": "Registro de auditoría"},
    "/question/new": {"en": "New question", "fr": "Nouvelle question", "es": "Nueva pregunta"},
}
RUN = {"en": "Run", "fr": "Exécuter", "es": "Ejecutar"}


def open_sql_editor(page):
    page.get_by_role("link", name="New SQL").click()
    expect(page.get_by_role("heading", name="New SQL query")).to_be_visible()


def write_sql(page, sql: str):
    editor = page.get_by_role("textbox", name="SQL statement")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    editor.press_sequentially(sql)


def run(page):
    page.get_by_role("button", name="Run").click()


def expect_rows(page, count: int):
    expect(page.get_by_test_id("result-status")).to_contain_text(f"Rows: {count}")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_main_screen_in_each_language_passes_axe(page, stack, language):
    email = f"reader-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    for path, names in HEADINGS.items():
        page.goto(path)
        expect(page.get_by_role("heading", name=names[language], exact=True)).to_be_visible()
        if path == "/sql":
            page.get_by_role("textbox").first.click()
            page.keyboard.type("select channel, count(*) as visits from visits group by 1 order by 2 desc")
            page.get_by_role("button", name=RUN[language]).click()
            expect(page.get_by_test_id("chart")).to_be_visible()
        if path == "/data":
            page.get_by_role("button", name="visits", exact=True).click()
            expect(page.get_by_role("rowheader", name="channel")).to_be_visible()
        check_accessibility(page, f"{path} ({language})")


def test_sql_editor_runs_draws_and_shows_a_table(page, stack):
    sql = "select date_trunc('day', visit_start) as day, count(*) as visits from visits group by 1 order by 1"
    # 89 to 91 days of 90 days of demo traffic, by the time of day the demo was made.
    days = stack.ok("POST", "/sql", json={"sql": sql})["row_count"]
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, sql)
    page.keyboard.press("Control+Enter")
    expect_rows(page, days)
    expect(page.get_by_test_id("chart").locator("svg")).to_be_visible()
    page.get_by_label("Forecast").select_option("12")
    expect(page.get_by_text("Forecast method: Holt-Winters (seasonal), with an 80 % interval.")).to_be_visible()
    expect(page.get_by_test_id("chart")).to_contain_text("forecast (holt_winters)")
    page.get_by_label("Chart", exact=True).select_option("table")
    table = page.get_by_role("region", name="Result table")
    expect(table.get_by_role("columnheader", name="visits")).to_be_visible()
    table.get_by_role("button", name="visits").click()
    expect(table.get_by_role("columnheader", name="visits")).to_have_attribute("aria-sort", "ascending")
    # Columns resize with the keyboard (a focusable separator) and by dragging its handle.
    header = table.get_by_role("columnheader", name="visits")
    before = header.bounding_box()["width"]
    handle = table.get_by_role("separator", name="Resize column visits")
    handle.focus()
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert header.bounding_box()["width"] >= before + 60
    box = handle.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 100, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert header.bounding_box()["width"] >= before + 150
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    assert download.value.suggested_filename.endswith(".csv")


def test_sql_editor_runs_the_selection_with_variables_and_marks_errors(page):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select count(*) as n from visits where channel = {{channel}} [[and country = {{country}}]]")
    expect(page.get_by_label("channel", exact=True)).to_be_visible()
    expect(page.get_by_label("country (optional)")).to_be_visible()
    page.get_by_label("channel", exact=True).fill("Email")
    run(page)
    expect_rows(page, 1)
    expect(page.get_by_role("figure")).to_contain_text("n")
    page.get_by_label("Type of channel").select_option("number")
    run(page)
    expect(page.get_by_text("Enter a number (e.g. 12.5).")).to_be_visible()
    write_sql(page, "select 1 as one,\nfrom from visits")
    run(page)
    expect(page.get_by_role("alert")).to_contain_text("Syntax error")
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("from from visits")


def test_a_refusal_keeps_the_text_and_names_no_internals(page):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select * from secret_table_that_does_not_exist")
    run(page)
    alert = page.get_by_role("alert")
    expect(alert).to_be_visible()
    assert "Traceback" not in alert.inner_text()
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("secret_table_that_does_not_exist")


def test_format_and_autocomplete(page):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select channel from vis")
    page.keyboard.press("Control+Space")
    expect(page.get_by_role("option", name=re.compile("^visits"))).to_be_visible()
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Format").click()
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("SELECT")


def test_save_browse_rename_move_and_delete_a_question(page, stack):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select channel, count(*) as visits from visits group by 1 order by 2 desc")
    run(page)
    expect(page.get_by_test_id("chart")).to_be_visible()
    page.get_by_label("Chart", exact=True).select_option("pie")
    page.get_by_role("button", name="Save").click()
    dialog = page.get_by_role("dialog", name="Save the question")
    dialog.get_by_label("Name").fill("Visits by channel")
    dialog.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Visits by channel")).to_be_visible()
    # The newest of that name: the Demo folder has a "Visits by channel" of its own.
    saved = max(stack.ok("GET", "/questions", params={"search": "Visits by channel"})["questions"],
                key=lambda question: question["question_id"])
    assert saved["visualization"]["kind"] == "pie"

    page.get_by_role("link", name="Browse").click()
    page.get_by_role("button", name="New shared folder").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Team reports")
    page.get_by_role("dialog").get_by_role("button", name="Save").click()
    expect(page.get_by_role("link", name="Team reports")).to_be_visible()
    page.get_by_role("link", name="My personal folder").click()
    page.get_by_role("button", name="Rename Visits by channel").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Visits per channel")
    page.get_by_role("dialog").get_by_role("button", name="Save").click()
    expect(page.get_by_role("link", name="Visits per channel")).to_be_visible()
    page.get_by_role("button", name="Move Visits per channel").click()
    page.get_by_role("dialog").get_by_label("Move to").select_option(label="Team reports")
    page.get_by_role("dialog").get_by_role("button", name="Save").click()
    expect(page.get_by_role("link", name="Visits per channel")).to_have_count(0)
    page.get_by_role("link", name="Team reports").click()
    page.get_by_role("link", name="Visits per channel").click()
    expect(page.get_by_role("heading", name="Visits per channel")).to_be_visible()
    expect(page.get_by_test_id("result-status")).to_have_count(0)
    page.get_by_role("link", name="Browse").click()
    page.get_by_label("Search questions by name").fill("per channel")
    # Exact names: other tests of the same stack may have saved "Visits per channel, shared".
    page.get_by_role("button", name="Delete Visits per channel", exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("link", name="Visits per channel", exact=True)).to_have_count(0)
    left = stack.ok("GET", "/questions", params={"search": "per channel"})["questions"]
    assert "Visits per channel" not in [question["name"] for question in left]


def test_data_screen_shows_descriptions_searches_and_samples(page):
    sign_in(page)
    page.get_by_role("link", name="Data").click()
    page.get_by_role("button", name="visits", exact=True).click()
    row = page.get_by_role("row", name=re.compile("^channel"))
    expect(row).to_contain_text("VARCHAR")
    page.get_by_label("Search tables and columns").fill("bounce")
    expect(page.get_by_role("button", name="visits", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="orders", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Show sample rows").click()
    expect(page.get_by_role("region", name="Result table")).to_be_visible()


def test_history_reopens_a_statement_and_the_audit_log_shows_sign_ins(page):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select 42 as answer")
    run(page)
    expect_rows(page, 1)
    page.get_by_role("link", name="History").click()
    row = page.get_by_role("row").filter(has_text="select 42 as answer").first
    expect(row).to_contain_text("Workbench")
    row.get_by_role("link", name="Open in the editor").click()
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("select 42 as answer")
    open_administration(page, "Audit log")
    page.get_by_label("Kind").select_option("sign_in")
    expect(page.get_by_role("cell", name="sign_in.succeeded").first).to_be_visible()
    page.get_by_label("Person").fill("nobody-signed-in-as-this")
    expect(page.get_by_text("No entry matches.")).to_be_visible()


def test_a_network_failure_keeps_the_text_and_offers_to_retry(page, context):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select 7 as seven")
    context.set_offline(True)
    run(page)
    expect(page.get_by_role("alert")).to_contain_text("The server could not be reached")
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("select 7 as seven")
    context.set_offline(False)
    page.get_by_role("button", name="Retry").click()
    expect_rows(page, 1)


def test_cancel_stops_the_statement_on_the_server(page):
    """Cancel stops waiting and stops the statement itself (whichever of the two workers runs it):
    its history line says cancelled at once, where a statement left running would end at the
    30-second timeout as failed."""
    sign_in(page)
    open_sql_editor(page)
    for attempt in range(2):
        write_sql(page, f"select count(*) as n{attempt} from range(100000000000) a")
        run(page)
        expect(page.get_by_text("Running…")).to_be_visible()
        page.get_by_role("button", name="Cancel").click()
        expect(page.get_by_text("The statement was cancelled.")).to_be_visible()
    page.get_by_role("link", name="History").click()
    for attempt in range(2):
        row = page.get_by_role("row").filter(has_text=f"as n{attempt} from range")
        expect(row).to_contain_text("Cancelled (query_cancelled)", timeout=10_000)


def test_csv_download_holds_the_whole_result_not_only_the_rows_shown(page):
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select n from range(25000) t(n) order by n")
    run(page)
    # The screen's row bound, flagged as truncated.
    expect(page.get_by_test_id("result-status")).to_contain_text("Rows: 10,000")
    expect(page.get_by_test_id("result-status")).to_contain_text("Truncated")
    page.get_by_label("Chart", exact=True).select_option("table")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download CSV").click()
    lines = open(download.value.path(), encoding="utf-8").read().splitlines()
    assert lines[0] == "n" and len(lines) == 25001 and lines[-1] == "24999"


def test_a_narrow_window_stays_readable(page):
    page.set_viewport_size({"width": 480, "height": 800})
    sign_in(page)
    open_sql_editor(page)
    write_sql(page, "select 1 as one")
    run(page)
    expect_rows(page, 1)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 480, f"the page scrolls sideways: {width} px"


def test_question_builder_filters_summarizes_joins_and_opens_as_sql(page, stack):
    sign_in(page)
    page.get_by_role("link", name="New question").click()
    page.get_by_label("Table", exact=True).select_option("warehouse.analytics.visits")
    expect(page.get_by_test_id("result-status")).to_contain_text("Rows: 1,000")  # the row limit
    page.get_by_role("button", name="Add a filter").click()
    page.get_by_label("Column").first.select_option(label="channel")
    page.get_by_label("Condition").select_option("in")
    page.get_by_label("Value", exact=True).fill("Email, Referral")
    page.get_by_role("button", name="Add a measure").click()
    page.get_by_role("button", name="Add a grouping").click()
    page.get_by_label("Group by").select_option(label="visit_start")
    page.get_by_label("Time bucket").select_option("month")
    expect(page.get_by_test_id("chart")).to_be_visible()
    months = stack.ok("POST", "/sql", json={"sql": "select count(distinct date_trunc('month', visit_start)) from visits "
                                                   "where channel in ('Email', 'Referral')"})["rows"][0][0]
    expect(page.get_by_test_id("result-status")).to_contain_text(f"Rows: {months}")
    page.get_by_role("button", name="Save").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Email and referral visits by month")
    page.get_by_role("dialog").get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Email and referral visits by month")).to_be_visible()
    page.get_by_role("link", name="Browse").click()
    page.get_by_role("link", name="Email and referral visits by month").click()
    expect(page.get_by_label("Time bucket")).to_have_value("month")
    expect(page.get_by_test_id("chart")).to_be_visible()
    page.get_by_role("button", name="View as SQL").click()
    expect(page.get_by_role("textbox", name="SQL statement")).to_contain_text("DATE_TRUNC")
    run(page)
    expect_rows(page, months)
