"""An administrator's next steps on a new installation, each ticked off once done: add a source,
invite people, set up single sign-on, add a site in the collector (and send its first events).

Each is read from what exists, never from a box someone ticked: a step done and undone (the only
other person deactivated...) comes back. The collector's sites are not the workbench's to read: a
site counts once its events reach the warehouse's `analytics` views, which the workbench reads as
`analytics_reader` (the demo site aside).
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any

import psycopg

from pipelines.database import bootstrap
from pipelines.settings import Settings
from workbench_app.single_sign_on import configuration

log = logging.getLogger(__name__)
STEPS = ("add_source", "invite_people", "single_sign_on", "collector_site")
# The warehouse is asked at most this often per worker until a site shows up (then never again).
_SITES_RECHECK_SECONDS = 60
_sites_seen = {"done": False, "checked": 0.0}
_sites_lock = threading.Lock()


def next_steps(conn: psycopg.Connection, settings: Settings) -> list[dict[str, Any]]:
    """The steps in their order, each {step, done}."""
    source, people, demo = conn.execute(
        """select exists (select from sources where kind <> 'warehouse'),
                  (select count(*) from users where is_active) > 1,
                  exists (select from seeded_content where name = 'demo_folder')""").fetchone()
    done = {
        "add_source": source,
        "invite_people": people,
        "single_sign_on": configuration.effective(conn, settings).enabled,
        "collector_site": _collector_site_reporting(settings, sites_before=1 if demo else 0),
    }
    return [{"step": step, "done": bool(done[step])} for step in STEPS]


def collector_address(settings: Settings) -> str:
    """The collector's pages as this machine reaches them (where `analytics up` serves them)."""
    host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(settings.bind_host, settings.bind_host)
    return f"http://{host}:{settings.collector_port}"


def _collector_site_reporting(settings: Settings, sites_before: int) -> bool:
    with _sites_lock:
        if _sites_seen["done"] or time.monotonic() - _sites_seen["checked"] < _SITES_RECHECK_SECONDS:
            return _sites_seen["done"]
        _sites_seen["checked"] = time.monotonic()
    try:
        with psycopg.connect(bootstrap.database_urls(settings).reader, connect_timeout=3,
                             options="-c statement_timeout=3000") as warehouse:
            sites = warehouse.execute("select count(distinct site_id) from analytics.events").fetchone()[0]
    except psycopg.Error as error:
        log.info("the warehouse could not say which sites report: %s", error)
        return False
    with _sites_lock:
        _sites_seen["done"] = sites > sites_before
        return _sites_seen["done"]


def forget_sites_seen() -> None:
    """Ask the warehouse again at the next call (tests, which change the warehouse between calls)."""
    with _sites_lock:
        _sites_seen.update(done=False, checked=0.0)
