"""Dashboards in Chromium, continued: a date range and a one-of filter wired to two cards (one through
its fields, one through columns of its result) and reproduced from the URL; cards moved and resized
from the keyboard; the dashboard cache screen of administrators in each language, with axe."""
from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.workbench_ui.conftest import LANGUAGES, check_accessibility, sign_in, open_administration

pytestmark = [pytest.mark.slow, pytest.mark.browser]

BY_COLUMNS = "Visits per day and channel"
BY_FIELDS = "Visits in the period"


@pytest.fixture(scope="module")
def filtered_dashboard(stack) -> dict:
    by_columns = stack.ok("POST", "/questions", json={
        "name": BY_COLUMNS, "visualization": {"kind": "table"},
        "sql": "SELECT CAST(visit_start AS DATE) AS day, channel, count(*) AS visits FROM visits GROUP BY 1, 2 "
               "ORDER BY 1, 2"})
    by_fields = stack.ok("POST", "/questions", json={
        "name": BY_FIELDS, "visualization": {"kind": "table"},
        "variables": {"start": "date", "finish": "date", "channels": "list"},
        "sql": "SELECT count(*) AS visits FROM visits WHERE true "
               "[[AND CAST(visit_start AS DATE) BETWEEN {{start}} AND {{finish}}]] "
               "[[AND list_contains({{channels}}, channel)]]"})
    return stack.ok("POST", "/dashboards", json={
        "name": "Filtered traffic",
        "cards": [{"key": "a", "question_id": by_columns["question_id"], "col": 0},
                  {"key": "b", "question_id": by_fields["question_id"], "col": 6}],
        "filters": [
            {"name": "Period", "type": "date_range", "default": "last-90-days",
             "links": [{"card": "a", "column": "day"}, {"card": "b", "variable": "start", "end_variable": "finish"}]},
            {"name": "Channel", "type": "one_of", "values": {"table": "warehouse.analytics.visits", "column": "channel"},
             "links": [{"card": "a", "column": "channel"}, {"card": "b", "variable": "channels"}]}]})


def _card_answers(page, count: int, action) -> dict[int, dict]:
    """The card runs the page makes while `action` runs: card id -> (filters sent, rows answered)."""
    answers: dict[int, dict] = {}

    def seen(response):
        match = re.search(r"/cards/(\d+)/run$", response.url)
        if match and response.request.method == "POST" and response.ok:
            answers[int(match.group(1))] = {"sent": json.loads(response.request.post_data)["filters"],
                                            "rows": response.json()["rows"]}
    page.on("response", seen)
    action()
    for _ in range(300):  # a bound on waiting, not a timed assertion
        if len(answers) >= count:
            break
        page.wait_for_timeout(100)
    page.remove_listener("response", seen)
    return answers


def test_a_date_range_and_a_one_of_list_feed_two_cards_and_the_link_reproduces_them(page, stack, filtered_dashboard):
    dashboard_id = filtered_dashboard["dashboard_id"]
    period, channel = (str(f["filter_id"]) for f in filtered_dashboard["filters"])
    sign_in(page, path=f"/dashboards/{dashboard_id}")
    expect(page.get_by_label("Period", exact=True)).to_have_value("last-90-days")
    values = page.get_by_role("list", name="Values of Channel")
    expect(values.get_by_role("checkbox").first).to_be_visible()
    # The list is searchable: narrowed by the server, under the viewer's rights.
    page.get_by_label("Search the values of Channel").fill("organic")
    expect(values.get_by_role("checkbox", name="Organic Search")).to_be_visible()
    expect(values.get_by_role("checkbox", name="Direct")).to_have_count(0)
    values.get_by_role("checkbox", name="Organic Search").check()
    page.get_by_label("Period", exact=True).select_option(label="From… to…")
    page.get_by_label("Period: from").fill("2020-01-01")
    page.get_by_label("Period: to").fill("2030-12-31")
    answers = _card_answers(page, 2, lambda: page.get_by_role("button", name="Apply filters").click())
    expect(page).to_have_url(re.compile(rf"f\.{period}=2020-01-01\.\.2030-12-31"))
    expect(page).to_have_url(re.compile(rf"f\.{channel}=Organic\+Search"))
    by_columns, by_fields = (answers[c["card_id"]] for c in filtered_dashboard["cards"])
    assert by_columns["sent"] == {period: "2020-01-01..2030-12-31", channel: ["Organic Search"]}
    assert by_columns["rows"] and {row[1] for row in by_columns["rows"]} == {"Organic Search"}
    # Both cards agree: the column link and the field link filter the same visits.
    assert by_fields["rows"] == [[sum(row[2] for row in by_columns["rows"])]]
    check_accessibility(page, "a dashboard with a date range and a one-of filter")

    other = page.context.new_page()
    again = _card_answers(other, 2, lambda: other.goto(page.url))
    expect(other.get_by_label("Period: from")).to_have_value("2020-01-01")
    expect(other.get_by_role("list", name="Values of Channel").get_by_role("checkbox", name="Organic Search")).to_be_checked()
    assert {card: answer["rows"] for card, answer in again.items()} == {
        card: answer["rows"] for card, answer in answers.items()}


def test_cards_move_and_resize_from_the_keyboard(page, stack, filtered_dashboard):
    question = filtered_dashboard["cards"][1]["question_id"]
    dashboard = stack.ok("POST", "/dashboards", json={"name": "Keyboard layout", "cards": [
        {"question_id": question, "col": 0, "row": 0, "width": 6, "height": 4}]})
    sign_in(page, path=f"/dashboards/{dashboard['dashboard_id']}")
    page.get_by_role("button", name="Edit").click()
    handle = page.get_by_role("button", name=f"Place {BY_FIELDS}")
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowDown")
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.get_by_role("status").filter(has_text=BY_FIELDS)).to_have_text(
        f"{BY_FIELDS}: column 3, row 1, 5 wide, 5 high.")
    expect(handle).to_be_focused()
    check_accessibility(page, "the dashboard editor with a card placed from the keyboard")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("button", name="Edit")).to_be_visible()
    saved = stack.ok("GET", f"/dashboards/{dashboard['dashboard_id']}")["cards"][0]
    assert (saved["col"], saved["row"], saved["width"], saved["height"]) == (2, 0, 5, 5)


# (menu entry, page title, a column): the menu entry does not contain the word of the Dashboards one.
CACHE = {"en": ("Dashboard cache", "Dashboard cache", "Hits"),
         "fr": ("Cache des résultats", "Cache des tableaux de bord", "Succès"),
         "es": ("Caché de resultados", "Caché de los paneles", "Aciertos")}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_dashboard_cache_screen_in_each_language(page, stack, filtered_dashboard, language):
    email = f"cache-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email)
    entry, title, hits = CACHE[language]
    open_administration(page, entry, language)
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
    expect(page.get_by_role("columnheader", name=hits, exact=True)).to_be_visible()
    row = page.get_by_test_id("cache-row").filter(has=page.get_by_role("link", name="Filtered traffic"))
    expect(row).to_have_count(1)
    check_accessibility(page, f"the dashboard cache ({language})")


# (edit, save, filter name, add filter, "feeds" label, "a column" option, the picker's label, type it, typed label)
PICKER = {
    "en": ("Edit", "Save", "Filter name", "Add filter", "{f} feeds this field of {c}", "A column of its result",
           "Column of {c} that {f} restricts", "Another column (type its name)",
           "Name of the column of {c} that {f} restricts"),
    "fr": ("Modifier", "Enregistrer", "Nom du filtre", "Ajouter le filtre", "{f} alimente ce champ de {c}",
           "Une colonne de son résultat", "Colonne de {c} que {f} restreint", "Une autre colonne (saisir son nom)",
           "Nom de la colonne de {c} que {f} restreint"),
    "es": ("Editar", "Guardar", "Nombre del filtro", "Añadir filtro", "{f} alimenta este campo de {c}",
           "Una columna de su resultado", "Columna de {c} que {f} restringe", "Otra columna (escribir su nombre)",
           "Nombre de la columna de {c} que {f} restringe"),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_filter_linked_to_a_column_picks_it_from_the_card_s_columns_or_types_it(page, stack, filtered_dashboard,
                                                                                 language):
    edit, save, filter_name, add_filter, feeds, a_column, picker, type_it, typed = PICKER[language]
    listed, needing = filtered_dashboard["cards"][0]["question_id"], stack.ok("POST", "/questions", json={
        "name": f"Needs a channel {language}", "variables": {"wanted": "text"},
        "sql": "SELECT channel, count(*) AS visits FROM visits WHERE channel = {{wanted}} GROUP BY 1"})["question_id"]
    dashboard = stack.ok("POST", "/dashboards", json={"name": f"Picked columns {language}", "cards": [
        {"key": "a", "question_id": listed, "col": 0}, {"key": "b", "question_id": needing, "col": 6}]})
    email = f"picker-{language}@example.org"
    stack.create_user(email, locale=language, is_admin=True)
    sign_in(page, email, path=f"/dashboards/{dashboard['dashboard_id']}")
    page.get_by_role("button", name=edit, exact=True).click()
    page.get_by_label(filter_name).fill("Canal")
    page.get_by_role("button", name=add_filter).click()
    needs = f"Needs a channel {language}"

    # The columns of the card's question, listed by the server: one is picked.
    page.get_by_label(feeds.format(f="Canal", c=BY_COLUMNS)).select_option(label=a_column)
    columns = page.get_by_label(picker.format(f="Canal", c=BY_COLUMNS), exact=True)
    expect(columns.locator("option", has_text="visits")).to_have_count(1)
    columns.select_option(label="channel")
    # Another name may still be typed.
    columns.select_option(label=type_it)
    page.get_by_label(typed.format(f="Canal", c=BY_COLUMNS)).fill("CHANNEL")
    columns.select_option(label="channel")
    expect(page.get_by_label(typed.format(f="Canal", c=BY_COLUMNS))).to_have_count(0)

    # A question that needs a value cannot list its columns: the name is typed.
    page.get_by_label(feeds.format(f="Canal", c=needs)).select_option(label=a_column)
    fallback = page.get_by_role("textbox", name=picker.format(f="Canal", c=needs), exact=True)
    expect(fallback).to_be_visible()
    fallback.fill("channel")
    check_accessibility(page, f"the column picker of a linked filter ({language})")
    page.get_by_role("button", name=save, exact=True).click()
    expect(page.get_by_role("button", name=edit, exact=True)).to_be_visible()
    saved = stack.ok("GET", f"/dashboards/{dashboard['dashboard_id']}")
    assert [link["column"] for link in saved["filters"][0]["links"]] == ["channel", "channel"]
