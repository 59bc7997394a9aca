"""A report set for every site: a folder named after the site holding the dashboards of
`report_templates.py`, created once per site.

The workbench learns of sites from the warehouse's `analytics.sites` view (live: a site appears
there the moment the collector creates it), read as `analytics_reader` like every other view. It
looks when a person opens the home page, the dashboards or the folders (at most once a minute per
worker), and `analytics up` / `analytics demo` look too. A row of `seeded_content`
(`site_reports:<site id>`) records that a site's set was made: people may edit, move or delete any
of it, and it is never created again over their changes.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

import psycopg

from pipelines.database import bootstrap
from pipelines.settings import Settings
from workbench_app.accounts.identity import Identity
from workbench_app.content import dashboards, folders, questions
from workbench_app.errors import WorkbenchError
from workbench_app.home import report_templates

log = logging.getLogger(__name__)
MARKER_PREFIX = "site_reports:"
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
        folder = folders.create_folder(conn, PRODUCT, site["site_name"], None)
        for report in report_templates.reports(site.get("tracking_mode")):
            _create_report(conn, folder["folder_id"], site["site_id"], report)
    return folder["folder_id"]


def _create_report(conn: psycopg.Connection, folder_id: int, site_id: str, report: dict[str, Any]) -> int:
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
        filters.append({"name": report_templates.PERIOD_FILTER, "type": "date_range", "required": True,
                        "default": report_templates.DEFAULT_PERIOD, "links": links["from"]})
    if links["channel"]:
        filters.append({"name": report_templates.SEGMENT_FILTER, "type": "one_of", "links": links["channel"],
                        "values": report_templates.SEGMENT_VALUES})
    if links["segment"]:
        filters.append({"name": report_templates.SAVED_SEGMENT_FILTER, "type": "segment", "links": links["segment"]})
    filters.append({"name": report_templates.SITE_FILTER, "type": "text", "required": True, "default": site_id,
                    "links": links["site"]})
    dashboard = dashboards.create_dashboard(conn, PRODUCT, {
        "name": report["name"], "description": report["description"], "folder_id": folder_id, "cards": cards,
        "filters": filters, "auto_refresh_seconds": report.get("auto_refresh_seconds"),
        "cache_ttl_seconds": report.get("cache_ttl_seconds")})
    return dashboard["dashboard_id"]


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
