"""A report set for every site: a folder named after the site holding the dashboards of
`report_templates.py`, created once per site.

The workbench learns of sites from the warehouse's `analytics.sites` view (live: a site appears
there the moment the collector creates it), read as `analytics_reader` like every other view. It
looks when a person opens the home page, the dashboards or the folders (at most once a minute per
worker), and `analytics up` / `analytics demo` look too. A row of `seeded_content`
(`site_reports:<site id>`) records that a site's set was made: people may edit, move or delete any
of it, and it is never created again over their changes.

The texts (dashboards' names and descriptions, card titles and descriptions, text cards, filter
names) are written in the workbench's default language (the settings' `default_locale`) when the set
is made, from the `reports.po` catalogues: they are then ordinary texts that people may change, and
a later change of the default language leaves them as they are.

Sets made before the Segment filter existed get it once (`add_segment_filters`, marker
`site_reports:segment-filter`): on each product-made dashboard without a segment filter, the
product's own statements that are as the product wrote them (a person's edit leaves a statement
alone) are brought to the current templates, and a Segment filter is linked to every card whose
question takes a segment.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from typing import Any, Callable

import psycopg

from pipelines.database import bootstrap
from pipelines.settings import Settings
from workbench_app.accounts import instance_settings
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, folders, questions
from workbench_app.errors import WorkbenchError
from workbench_app.home import report_templates

log = logging.getLogger(__name__)
MARKER_PREFIX = "site_reports:"
SEGMENT_UPGRADE_MARKER = "site_reports:segment-filter"
# Created by the product, not by a person: an administrator's rights, no account (created_by null).
PRODUCT = Identity(user_id=None, email="analytics", is_admin=True)  # type: ignore[arg-type]
SITES_STATEMENT = "select site_id::text, site_name, tracking_mode from analytics.sites order by created_at, site_id"
# The warehouse is asked at most this often per worker.
_RECHECK_SECONDS = 60
_checked = {"at": float("-inf")}
_lock = threading.Lock()


def marker(site_id: str) -> str:
    return f"{MARKER_PREFIX}{site_id}"


def seed_site_reports(conn: psycopg.Connection, site: dict[str, Any]) -> int | None:
    """The site's folder and reports unless made before; the folder's id when created now, else None."""
    with conn.transaction():
        # Claiming the marker first: a concurrent caller waits on it, then finds it taken.
        claimed = conn.execute("insert into seeded_content (name) values (%s) on conflict do nothing returning name",
                               (marker(site["site_id"]),)).fetchone()
        if claimed is None:
            return None
        locale = instance_settings.default_locale(conn)
        folder = folders.create_folder(conn, PRODUCT, site["site_name"], None)
        for report in report_templates.reports(site.get("tracking_mode"), locale):
            _create_report(conn, folder["folder_id"], site["site_id"], report, report_templates.texts(locale))
    return folder["folder_id"]


def _create_report(conn: psycopg.Connection, folder_id: int, site_id: str, report: dict[str, Any],
                   _: Callable[[str], str]) -> int:
    cards, links = [], {"site": [], "from": [], "channel": [], "segment": []}
    for index, (card, place) in enumerate(zip(report["cards"], report_templates.layout(report["cards"]))):
        grid = {"key": str(index), "width": card["width"], "height": card["height"], **place}
        if "text" in card:
            cards.append({**grid, "kind": "text", "text": card["text"]})
            continue
        question = questions.create_question(conn, PRODUCT, {**card["question"], "kind": "sql",
                                                             "folder_id": folder_id})
        cards.append({**grid, "kind": "question", "question_id": question["question_id"]})
        if "site" in question["variables"]:
            links["site"].append({"card": str(index), "variable": "site"})
        if "from" in question["variables"]:
            links["from"].append({"card": str(index), "variable": "from", "end_variable": "to"})
        if "channel" in question["variables"]:
            links["channel"].append({"card": str(index), "variable": "channel"})
        if "segment" in question["variables"]:
            links["segment"].append({"card": str(index), "variable": "segment"})
    filters = []
    if report.get("period", True):
        filters.append({"name": _(report_templates.PERIOD_FILTER), "type": "date_range", "required": True,
                        "default": report_templates.DEFAULT_PERIOD, "links": links["from"]})
    if links["channel"]:
        filters.append({"name": _(report_templates.SEGMENT_FILTER), "type": "one_of", "links": links["channel"],
                        "values": report_templates.SEGMENT_VALUES})
    if links["segment"]:
        filters.append({"name": _(report_templates.SAVED_SEGMENT_FILTER), "type": "segment", "links": links["segment"]})
    filters.append({"name": _(report_templates.SITE_FILTER), "type": "text", "required": True, "default": site_id,
                    "links": links["site"]})
    dashboard = dashboards.create_dashboard(conn, PRODUCT, {
        "name": report["name"], "description": report["description"], "folder_id": folder_id, "cards": cards,
        "filters": filters, "auto_refresh_seconds": report.get("auto_refresh_seconds"),
        "cache_ttl_seconds": report.get("cache_ttl_seconds")})
    return dashboard["dashboard_id"]


# The segment's optional clauses of the templates, past and present: a statement without them is
# the template it was made from, whichever of them it has.
_SEGMENT_CLAUSES = re.compile(r"\n\s*\[\[AND (?:list_contains\(\{\{channel\}\}, channel\)|visit_id IN \{\{segment\}\}|"
                              r"visit_id IN \(SELECT visit_id FROM visits WHERE list_contains\(\{\{channel\}\}, "
                              r"channel\)\))\]\]")


def _templates_by_statement() -> dict[str, dict[str, Any]]:
    """Each template statement (in every language: the New and Returning labels), without its segment
    clauses -> the current template question."""
    found = {}
    for locale in report_templates.LANGUAGES:
        for report in report_templates.reports(None, locale):
            for card in report["cards"]:
                if "question" in card:
                    found[_SEGMENT_CLAUSES.sub("", card["question"]["sql"])] = card["question"]
    return found


def add_segment_filters(conn: psycopg.Connection) -> list[int]:
    """Once per workbench: the Segment filter on the report sets made before it existed; the ids of
    the dashboards it was added to. Only product-made dashboards without a filter of type segment
    and with a statement of an earlier template, still as the product wrote it, which is brought up
    to date (a person's edited statement is left alone)."""
    with conn.transaction():
        claimed = conn.execute("insert into seeded_content (name) values (%s) on conflict do nothing returning name",
                               (SEGMENT_UPGRADE_MARKER,)).fetchone()
        if claimed is None:
            return []
        _ = report_templates.texts(instance_settings.default_locale(conn))
        templates = _templates_by_statement()
        added = []
        rows = conn.execute(
            """select d.dashboard_id from dashboards d where d.created_by is null and not exists
                 (select 1 from dashboard_filters f where f.dashboard_id = d.dashboard_id and f.type = 'segment')
               order by d.dashboard_id""").fetchall()
        for (dashboard_id,) in rows:
            links, brought_up = [], False
            for card_id, question_id, sql, variables, made_by_product in conn.execute(
                    """select c.card_id, q.question_id, q.sql_text, q.variables, q.created_by is null
                       from dashboard_cards c join questions q using (question_id)
                       where c.dashboard_id = %s and c.kind = 'question' order by c.card_id""",
                    (dashboard_id,)).fetchall():
                template = templates.get(_SEGMENT_CLAUSES.sub("", sql or "")) if made_by_product else None
                if template is not None and sql != template["sql"]:
                    variables = questions.update_question(conn, PRODUCT, question_id, {
                        "sql": template["sql"], "variables": template["variables"]})["variables"]
                    brought_up = True
                segment = next((name for name, kind in (variables or {}).items() if kind == "segment"), None)
                if segment is not None:
                    links.append({"card": str(card_id), "variable": segment})
            # A set made with the filter has every statement current: one without it lost it to a person.
            if links and brought_up:
                dashboards.insert_filter(conn, dashboard_id, {
                    "name": _(report_templates.SAVED_SEGMENT_FILTER), "type": "segment", "links": links},
                    {link["card"]: (int(link["card"]), {link["variable"]: "segment"}) for link in links})
                added.append(dashboard_id)
    if added:
        log.info("added the Segment filter to %d report(s) made before it", len(added))
    return added


def seed_for_sites(conn: psycopg.Connection, sites: list[dict[str, Any]]) -> list[str]:
    """Each listed site's set unless made before; the ids of the sites whose set was made now."""
    made = []
    for site in sites:
        try:
            if seed_site_reports(conn, site) is not None:
                made.append(site["site_id"])
        except (psycopg.Error, WorkbenchError) as error:  # one site's failure leaves the others' sets be
            log.warning("the reports of site %s could not be created: %s", site["site_id"], error)
    if made:
        log.info("created the reports of %d new site(s)", len(made))
    return made


def sites_in(warehouse: psycopg.Connection) -> list[dict[str, Any]] | None:
    """The sites of `analytics.sites`; None when the view is not built yet."""
    try:
        with warehouse.transaction():
            rows = warehouse.execute(SITES_STATEMENT).fetchall()
    except psycopg.errors.UndefinedTable:
        return None
    return [{"site_id": site_id, "site_name": name, "tracking_mode": mode} for site_id, name, mode in rows]


def keep_up(settings: Settings, conn: psycopg.Connection, *, now: bool = False) -> list[str]:
    """Make the sets of sites that have none yet, reading the sites at most once a minute per worker
    (`now`: read them whatever the time). A warehouse that cannot answer is retried a minute later."""
    with _lock:
        if not now and time.monotonic() - _checked["at"] < _RECHECK_SECONDS:
            return []
        _checked["at"] = time.monotonic()
    try:
        add_segment_filters(conn)
    except (psycopg.Error, WorkbenchError) as error:  # the sets stay as they are; the reports still open
        log.warning("the Segment filter could not be added to the earlier report sets: %s", error)
    try:
        with psycopg.connect(bootstrap.database_urls(settings).reader, connect_timeout=3,
                             options="-c statement_timeout=3000") as warehouse:
            sites = sites_in(warehouse)
    except psycopg.Error as error:
        log.info("the warehouse could not list the sites: %s", error)
        return []
    if not sites:
        return []
    known = {name for (name,) in conn.execute("select name from seeded_content where name like %s",
                                              (MARKER_PREFIX + "%",)).fetchall()}
    return seed_for_sites(conn, [site for site in sites if marker(site["site_id"]) not in known])


def forget_check() -> None:
    """Read the sites again at the next call (tests)."""
    with _lock:
        _checked["at"] = float("-inf")
