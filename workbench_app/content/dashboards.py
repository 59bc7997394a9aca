"""Dashboards: tabs, cards (a question, a text block or a heading on a grid), filters linked to card fields.

The layout is saved whole (`save_layout`): tabs, cards and filters come with local `key`s so that
a card can name its tab and a filter the cards and variables (fields) or result columns it feeds.
Running a card maps the dashboard's filter values onto the card question's variables and adds the
column conditions (`dashboard_filters`).
"""
from __future__ import annotations

import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.content import folders, questions, result_cache, segments
from workbench_app.content.dashboard_filters import (FILTER_TYPES, MAX_VALUES_SHOWN, check_link, column_condition,
                                                     filter_value, link_values, values_source,
                                                     values_statement, with_column_conditions)
from workbench_app.errors import invalid, not_found
from workbench_app.services import WorkbenchServices
from workbench_app.statements.query_runner import run_for

_DASHBOARD = ("dashboard_id, folder_id, name, description, auto_refresh_seconds, cache_ttl_seconds, warm_up, "
              "created_by, created_at, updated_at")


def get_dashboard(conn: psycopg.Connection, identity: Identity, dashboard_id: int, level: str = "view") -> dict[str, Any]:
    with conn.cursor(row_factory=dict_row) as cur:
        dashboard = cur.execute(f"select {_DASHBOARD} from dashboards where dashboard_id = %s",
                                (dashboard_id,)).fetchone()
        if dashboard is None:
            raise not_found("Dashboard")
        folders.require(conn, identity, dashboard["folder_id"], level, "Dashboard")
        dashboard["tabs"] = cur.execute(
            "select tab_id, name, position from dashboard_tabs where dashboard_id = %s order by position, tab_id",
            (dashboard_id,)).fetchall()
        dashboard["cards"] = cur.execute(
            """select c.card_id, c.tab_id, c.kind, c.question_id, q.name as question_name,
                      q.visualization, q.variables, c.text, c.col, c.row, c.width, c.height
               from dashboard_cards c left join questions q using (question_id)
               where c.dashboard_id = %s order by c.tab_id nulls first, c.row, c.col, c.card_id""",
            (dashboard_id,)).fetchall()
        filters = cur.execute(
            """select filter_id, name, type, default_value, required, values_table, values_column
               from dashboard_filters where dashboard_id = %s order by filter_id""",
            (dashboard_id,)).fetchall()
        links = cur.execute(
            """select l.filter_id, l.card_id, l.variable, l.end_variable, l.column_name as column
               from dashboard_filter_links l join dashboard_filters f using (filter_id)
               where f.dashboard_id = %s order by l.card_id""", (dashboard_id,)).fetchall()
        for item in filters:
            table, column = item.pop("values_table"), item.pop("values_column")
            item["values"] = {"table": table, "column": column} if table else None
            item["links"] = [{k: v for k, v in link.items() if k != "filter_id"}
                             for link in links if link["filter_id"] == item["filter_id"]]
        dashboard["filters"] = filters
    return dashboard


def list_dashboards(conn: psycopg.Connection, identity: Identity) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"select {_DASHBOARD} from dashboards order by dashboard_id").fetchall()
    return folders.visible(conn, identity, rows)


def create_dashboard(conn: psycopg.Connection, identity: Identity, fields: dict[str, Any]) -> dict[str, Any]:
    folder_id = fields.get("folder_id") or folders.personal_folder(conn, identity)
    folders.require(conn, identity, folder_id, "edit")
    dashboard_id = conn.execute(
        """insert into dashboards (folder_id, name, description, auto_refresh_seconds, cache_ttl_seconds, warm_up,
                                   created_by)
           values (%s, %s, %s, %s, coalesce(%s, 300), coalesce(%s, false), %s) returning dashboard_id""",
        (folder_id, fields["name"], fields.get("description") or "", fields.get("auto_refresh_seconds"),
         fields.get("cache_ttl_seconds"), fields.get("warm_up"), identity.user_id)).fetchone()[0]
    if any(fields.get(part) for part in ("tabs", "cards", "filters")):
        save_layout(conn, identity, dashboard_id, fields)
    return get_dashboard(conn, identity, dashboard_id)


def update_dashboard(conn: psycopg.Connection, identity: Identity, dashboard_id: int, fields: dict[str, Any]) -> dict[str, Any]:
    current = get_dashboard(conn, identity, dashboard_id, "edit")
    folder_id = fields.get("folder_id") or current["folder_id"]
    if folder_id != current["folder_id"]:
        folders.require(conn, identity, folder_id, "edit")
    conn.execute(
        """update dashboards set folder_id = %s, name = %s, description = %s, auto_refresh_seconds = %s,
                  cache_ttl_seconds = %s, warm_up = %s, updated_at = now() where dashboard_id = %s""",
        (folder_id, fields.get("name") or current["name"],
         fields["description"] if fields.get("description") is not None else current["description"],
         fields["auto_refresh_seconds"] if "auto_refresh_seconds" in fields else current["auto_refresh_seconds"],
         fields["cache_ttl_seconds"] if fields.get("cache_ttl_seconds") is not None else current["cache_ttl_seconds"],
         fields["warm_up"] if fields.get("warm_up") is not None else current["warm_up"],
         dashboard_id))
    if any(part in fields for part in ("tabs", "cards", "filters")):
        save_layout(conn, identity, dashboard_id, fields)
    return get_dashboard(conn, identity, dashboard_id)


def delete_dashboard(conn: psycopg.Connection, identity: Identity, dashboard_id: int) -> None:
    get_dashboard(conn, identity, dashboard_id, "edit")
    conn.execute("delete from dashboards where dashboard_id = %s", (dashboard_id,))


def _key(item: dict[str, Any], index: int) -> str:
    key = item.get("key", str(index))
    if not isinstance(key, (str, int)) or isinstance(key, bool):
        raise invalid("key must be a string or a number.")
    return str(key)


def _grid(card: dict[str, Any], name: str, default: int, minimum: int) -> int:
    value = card.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= 1000:
        raise invalid(f"card {name} must be a whole number from {minimum} to 1000.", field=name)
    return value


def save_layout(conn: psycopg.Connection, identity: Identity, dashboard_id: int, layout: dict[str, Any]) -> None:
    """Replace tabs, cards and filters at once (keys link them within the request)."""
    tabs, cards, filters = (layout.get(part) or [] for part in ("tabs", "cards", "filters"))
    if not all(isinstance(part, list) and len(part) <= 200 and all(isinstance(i, dict) for i in part)
               for part in (tabs, cards, filters)):
        raise invalid("tabs, cards and filters must be lists of objects (at most 200 each).")
    conn.execute("delete from dashboard_tabs where dashboard_id = %s", (dashboard_id,))
    conn.execute("delete from dashboard_cards where dashboard_id = %s", (dashboard_id,))
    conn.execute("delete from dashboard_filters where dashboard_id = %s", (dashboard_id,))
    tab_ids: dict[str, int] = {}
    for index, tab in enumerate(tabs):
        name = tab.get("name")
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            raise invalid("Each tab needs a name.", field="tabs")
        tab_ids[_key(tab, index)] = conn.execute(
            "insert into dashboard_tabs (dashboard_id, name, position) values (%s, %s, %s) returning tab_id",
            (dashboard_id, name, index)).fetchone()[0]
    card_ids: dict[str, tuple[int, dict[str, str]]] = {}
    for index, card in enumerate(cards):
        kind = card.get("kind", "question" if card.get("question_id") is not None else "text")
        tab = card.get("tab")
        if tab is not None and str(tab) not in tab_ids:
            raise invalid("A card names a tab that is not in tabs.", field="cards")
        question_id, text, variables = None, None, {}
        if kind == "question":
            question_id = card.get("question_id")
            if isinstance(question_id, bool) or not isinstance(question_id, int):
                raise invalid("A question card needs question_id.", field="cards")
            variables = questions.get_question(conn, identity, question_id)["variables"]
        elif kind == "text":
            text = card.get("text", "")
            if not isinstance(text, str) or len(text) > 20_000:
                raise invalid("A text card's text must be a string.", field="cards")
        elif kind == "heading":
            text = card.get("text")
            if not isinstance(text, str) or not text.strip() or len(text) > 200:
                raise invalid("A heading card needs a text of at most 200 characters.", field="cards")
        else:
            raise invalid("A card is of kind question, text or heading.", field="cards")
        card_id = conn.execute(
            """insert into dashboard_cards (dashboard_id, tab_id, kind, question_id, text, col, row, width, height)
               values (%s, %s, %s, %s, %s, %s, %s, %s, %s) returning card_id""",
            (dashboard_id, tab_ids.get(str(tab)) if tab is not None else None, kind, question_id, text,
             _grid(card, "col", 0, 0), _grid(card, "row", 0, 0), _grid(card, "width", 6, 1),
             _grid(card, "height", 4, 1))).fetchone()[0]
        card_ids[_key(card, index)] = (card_id, variables)
    for item in filters:
        insert_filter(conn, dashboard_id, item, card_ids)


def insert_filter(conn: psycopg.Connection, dashboard_id: int, item: dict[str, Any],
                  card_ids: dict[str, tuple[int, dict[str, str]]]) -> int:
    """One filter of a layout and its links (`card_ids`: a link's card key -> (card id, its question's
    variables)), checked; its id."""
    name, kind = item.get("name"), item.get("type", "text")
    if not isinstance(name, str) or not name.strip() or len(name) > 200 or kind not in FILTER_TYPES:
        raise invalid("Each filter needs a name and a type among text, number, date, date_range, one_of.",
                      field="filters")
    required = item.get("required", False)
    if not isinstance(required, bool):
        raise invalid("A filter's required is true or false.", field="filters")
    default = filter_value({"name": name, "type": kind}, item.get("default"))
    values_table, values_column = values_source({**item, "type": kind})
    filter_id = conn.execute(
        "insert into dashboard_filters (dashboard_id, name, type, default_value, required, values_table, "
        "values_column) values (%s, %s, %s, %s, %s, %s, %s) returning filter_id",
        (dashboard_id, name, kind, Jsonb(default), required, values_table, values_column)).fetchone()[0]
    links = item.get("links") or []
    if not isinstance(links, list):
        raise invalid("filter links must be a list.", field="filters")
    for link in links:
        if not isinstance(link, dict) or str(link.get("card")) not in card_ids:
            raise invalid("A filter link names a card that is not in cards.", field="filters")
        card_id, variables = card_ids[str(link["card"])]
        variable, end_variable, column = check_link({"type": kind}, link, variables)
        conn.execute("insert into dashboard_filter_links (filter_id, card_id, variable, end_variable, column_name) "
                     "values (%s, %s, %s, %s, %s) on conflict do nothing",
                     (filter_id, card_id, variable, end_variable, column))
    return filter_id


def card_statement(conn: psycopg.Connection, identity: Identity, dashboard: dict[str, Any], card_id: int,
                   filter_values: dict[str, Any], today: datetime.date | None = None
                   ) -> tuple[dict[str, Any], tuple[str, dict[str, str], dict[str, Any]]]:
    """(card, statement) of a question card with the dashboard's filter values (by filter id or name):
    values go to the variables they are linked to, column links wrap the statement."""
    card = next((c for c in dashboard["cards"] if c["card_id"] == card_id), None)
    if card is None or card["kind"] != "question":
        raise not_found("Card")
    today = today or datetime.date.today()
    variables: dict[str, Any] = {}
    conditions = []
    for item in dashboard["filters"]:
        value = filter_value(item, filter_values.get(str(item["filter_id"]),
                                                     filter_values.get(item["name"], item["default_value"])))
        links = [link for link in item["links"] if link["card_id"] == card_id]
        if links and value is None and item["required"]:
            raise invalid(f"The filter {item['name']} needs a value.", field=f"filters.{item['name']}")
        if value is None:
            continue
        fed = link_values(item, value, today)
        for link in links:
            if link["column"] is not None:
                conditions.append(column_condition(item, link["column"], fed,
                                                   f"dashboard_filter_{item['filter_id']}"))
            elif item["type"] == "date_range":
                variables[link["variable"]], variables[link["end_variable"]] = fed["from"], fed["to"]
            else:
                variables[link["variable"]] = fed["value"]
    question = questions.get_question(conn, identity, card["question_id"])
    statement = segments.expand(conn, identity, questions.statement_of(question, variables))
    return card, with_column_conditions(statement, conditions)


def run_card(services: WorkbenchServices, identity: Identity, dashboard_id: int, card_id: int,
             filter_values: dict[str, Any], *, origin: str, row_limit: int | None = None,
             counted: bool = True) -> dict[str, Any]:
    """Run one question card with the dashboard's filter values (by filter id or name), through the
    result cache (`counted=False`: the warm-up's runs are neither hits nor misses)."""
    with services.transaction() as conn:
        dashboard = get_dashboard(conn, identity, dashboard_id)
        card, statement = card_statement(conn, identity, dashboard, card_id, filter_values)
        found = result_cache.lookup(conn, services, identity, dashboard, statement, row_limit, counted=counted)
    if found.hit is not None:
        return {**found.hit, "card_id": card_id}
    sql, types, values = statement
    result = {**run_for(services, identity, sql, origin=origin, variables=values, variable_types=types,
                        row_limit=row_limit, question_id=card["question_id"]),
              "question_id": card["question_id"]}
    result_cache.store(services, found, identity, card_id, filter_values, result)
    return {**result, "cached": False, "card_id": card_id}


def filter_values_list(services: WorkbenchServices, identity: Identity, dashboard_id: int, filter_id: int,
                       search: str | None, *, origin: str) -> dict[str, Any]:
    """The values a one-of filter offers, read from its column under the viewer's own rights (their
    row filters apply, a hidden column is refused), searched and bounded."""
    with services.transaction() as conn:
        dashboard = get_dashboard(conn, identity, dashboard_id)
    item = next((f for f in dashboard["filters"] if f["filter_id"] == filter_id), None)
    if item is None or item["values"] is None:
        raise not_found("Filter")
    sql, types, values = values_statement(item["values"]["table"], item["values"]["column"], search)
    result = run_for(services, identity, sql, origin=origin, variables=values, variable_types=types)
    shown = [row[0] for row in result["rows"]]
    return {"values": shown[:MAX_VALUES_SHOWN], "truncated": len(shown) > MAX_VALUES_SHOWN}
