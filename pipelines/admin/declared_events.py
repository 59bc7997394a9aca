"""Declared events of a site: names, labels and typed properties.

The pipeline regenerates the site's event views from these rows (labels become SQL comments).
Every change sets `updated_at = now()` on the event row; a deletion removes the row. So the set of
(name, updated_at) pairs of a site changes on every edit, which is what the pipeline watches.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import known_name, require_site
from pipelines.admin.errors import Conflict, InvalidInput, NotFound

PROPERTY_TYPES = ("string", "number", "boolean", "timestamp")
MAX_PROPERTIES = 100


def _validated(body: Any, *, name_required: bool) -> dict[str, Any]:
    body = validation.require_object(body)
    validation.reject_unknown(body, ("name", "label", "description", "properties"))
    event = {
        "name": validation.identifier(body, "name", required=name_required),
        "label": validation.text(body, "label", required=True, min_length=1, max_length=200),
        "description": validation.text(body, "description", default="", max_length=2000, single_line=False),
    }
    raw = body.get("properties", [])
    if not isinstance(raw, list) or len(raw) > MAX_PROPERTIES:
        raise InvalidInput(f"properties must be a list of at most {MAX_PROPERTIES} properties",
                           {"field": "properties"})
    properties, seen = [], set()
    for index, item in enumerate(raw):
        where = f"properties[{index}]."
        if not isinstance(item, dict):
            raise InvalidInput("each property must be an object", {"field": f"properties[{index}]"})
        validation.reject_unknown(item, ("name", "type", "label", "description"), where)
        prop = {
            "name": validation.identifier(item, "name", where=where),
            "type": validation.choice(item, "type", PROPERTY_TYPES, required=True, where=where),
            "label": validation.text(item, "label", required=True, min_length=1, max_length=200, where=where),
            "description": validation.text(item, "description", default="", max_length=2000, where=where,
                                           single_line=False),
        }
        if prop["name"] in seen:
            raise InvalidInput(f"property {prop['name']!r} is declared twice", {"field": where + "name"})
        seen.add(prop["name"])
        properties.append(prop)
    event["properties"] = properties
    return event


def _properties(conn: psycopg.Connection, site, names: list[str]) -> dict[str, list[dict[str, Any]]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(
            """select event_name, name, type, label, description from collect.declared_event_properties
                where site_id = %s and event_name = any(%s) order by event_name, name""",
            (site, names),
        ).fetchall()
    grouped: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for row in rows:
        grouped[row.pop("event_name")].append(row)
    return grouped


def list_events(conn: psycopg.Connection, site_id: object) -> list[dict[str, Any]]:
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        events = cur.execute(
            "select name, label, description, updated_at from collect.declared_events where site_id = %s order by name",
            (site,),
        ).fetchall()
    properties = _properties(conn, site, [event["name"] for event in events])
    return [{**event, "properties": properties[event["name"]]} for event in events]


def get_event(conn: psycopg.Connection, site_id: object, name: str) -> dict[str, Any]:
    name = known_name(name, validation.IDENTIFIER, "declared event")
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        event = cur.execute(
            "select name, label, description, updated_at from collect.declared_events where site_id = %s and name = %s",
            (site, name),
        ).fetchone()
    if event is None:
        raise NotFound("declared event not found", {"name": name[:100]})
    return {**event, "properties": _properties(conn, site, [name])[name]}


def _write_properties(conn: psycopg.Connection, site, name: str, properties: list[dict[str, Any]]) -> None:
    conn.execute("delete from collect.declared_event_properties where site_id = %s and event_name = %s", (site, name))
    if properties:
        with conn.cursor() as cur:
            cur.executemany(
                """insert into collect.declared_event_properties (site_id, event_name, name, type, label, description)
                   values (%s, %s, %s, %s, %s, %s)""",
                [(site, name, p["name"], p["type"], p["label"], p["description"]) for p in properties],
            )


def create_event(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id, lock=True)
    event = _validated(body, name_required=True)
    inserted = conn.execute(
        """insert into collect.declared_events (site_id, name, label, description) values (%s, %s, %s, %s)
           on conflict do nothing returning name""",
        (site, event["name"], event["label"], event["description"]),
    ).fetchone()
    if inserted is None:
        raise Conflict(f"event {event['name']!r} is already declared", {"name": event["name"]})
    _write_properties(conn, site, event["name"], event["properties"])
    audit.record(conn, actor, "declared_event.created", str(site), {"name": event["name"]})
    return get_event(conn, site, event["name"])


def replace_event(conn: psycopg.Connection, site_id: object, name: str, body: Any, *, actor: str) -> dict[str, Any]:
    """Replace label, description and the whole property list of a declared event."""
    name = known_name(name, validation.IDENTIFIER, "declared event")
    site = require_site(conn, site_id, lock=True)
    event = _validated(body, name_required=False)
    if event["name"] is not None and event["name"] != name:
        raise InvalidInput("the name in the body differs from the one in the path", {"field": "name"})
    updated = conn.execute(
        """update collect.declared_events set label = %s, description = %s, updated_at = now()
            where site_id = %s and name = %s returning name""",
        (event["label"], event["description"], site, name),
    ).fetchone()
    if updated is None:
        raise NotFound("declared event not found", {"name": name[:100]})
    _write_properties(conn, site, name, event["properties"])
    audit.record(conn, actor, "declared_event.updated", str(site), {"name": name})
    return get_event(conn, site, name)


def delete_event(conn: psycopg.Connection, site_id: object, name: str, *, actor: str) -> None:
    name = known_name(name, validation.IDENTIFIER, "declared event")
    site = require_site(conn, site_id, lock=True)
    deleted = conn.execute("delete from collect.declared_events where site_id = %s and name = %s returning name",
                           (site, name)).fetchone()
    if deleted is None:
        raise NotFound("declared event not found", {"name": name[:100]})
    audit.record(conn, actor, "declared_event.deleted", str(site), {"name": name})
