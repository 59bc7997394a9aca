"""Zones of a site: named page areas (CSS selector) whose visibility time the script measures."""
from __future__ import annotations

import re
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import known_name, require_site
from pipelines.admin.errors import Conflict, InvalidInput, NotFound

ZONE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")


def _validated(body: Any, *, name_required: bool) -> dict[str, Any]:
    body = validation.require_object(body)
    validation.reject_unknown(body, ("name", "selector", "label"))
    zone = {
        "name": validation.identifier(body, "name", required=name_required, pattern=ZONE_NAME,
                                      rule="a lowercase letter, then up to 62 lowercase letters, digits, _ or -"),
        "selector": validation.text(body, "selector", required=True, min_length=1, max_length=500),
        "label": validation.text(body, "label", required=True, min_length=1, max_length=200),
    }
    # The script hands the selector to querySelectorAll; braces or a stray ; could only come from
    # a pasted style rule, never from a selector.
    if any(char in zone["selector"] for char in "{};"):
        raise InvalidInput("selector must be a CSS selector such as #pricing or .hero", {"field": "selector"})
    return zone


def list_zones(conn: psycopg.Connection, site_id: object) -> list[dict[str, Any]]:
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute("select name, selector, label from collect.zones where site_id = %s order by name",
                           (site,)).fetchall()


def get_zone(conn: psycopg.Connection, site_id: object, name: str) -> dict[str, Any]:
    name = known_name(name, ZONE_NAME, "zone")
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        zone = cur.execute("select name, selector, label from collect.zones where site_id = %s and name = %s",
                           (site, name)).fetchone()
    if zone is None:
        raise NotFound("zone not found", {"name": name[:100]})
    return zone


def create_zone(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id, lock=True)
    zone = _validated(body, name_required=True)
    inserted = conn.execute(
        """insert into collect.zones (site_id, name, selector, label) values (%s, %s, %s, %s)
           on conflict do nothing returning name""",
        (site, zone["name"], zone["selector"], zone["label"]),
    ).fetchone()
    if inserted is None:
        raise Conflict(f"zone {zone['name']!r} already exists", {"name": zone["name"]})
    audit.record(conn, actor, "zone.created", str(site), {"name": zone["name"]})
    return get_zone(conn, site, zone["name"])


def replace_zone(conn: psycopg.Connection, site_id: object, name: str, body: Any, *, actor: str) -> dict[str, Any]:
    name = known_name(name, ZONE_NAME, "zone")
    site = require_site(conn, site_id, lock=True)
    zone = _validated(body, name_required=False)
    if zone["name"] is not None and zone["name"] != name:
        raise InvalidInput("the name in the body differs from the one in the path", {"field": "name"})
    updated = conn.execute(
        "update collect.zones set selector = %s, label = %s where site_id = %s and name = %s returning name",
        (zone["selector"], zone["label"], site, name),
    ).fetchone()
    if updated is None:
        raise NotFound("zone not found", {"name": name[:100]})
    audit.record(conn, actor, "zone.updated", str(site), {"name": name})
    return get_zone(conn, site, name)


def delete_zone(conn: psycopg.Connection, site_id: object, name: str, *, actor: str) -> None:
    name = known_name(name, ZONE_NAME, "zone")
    site = require_site(conn, site_id, lock=True)
    if conn.execute("delete from collect.zones where site_id = %s and name = %s returning name",
                    (site, name)).fetchone() is None:
        raise NotFound("zone not found", {"name": name[:100]})
    audit.record(conn, actor, "zone.deleted", str(site), {"name": name})
