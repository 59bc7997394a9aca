"""Goals (conversions) of a site.

A goal is reached by a page view whose path matches `path_pattern` (`*` matches any run of
characters, `/` included; everything else is literal, compared with the whole path), or by an event
named `event_name`, optionally only when its property `property_name` equals `property_value`.
`value` is what one conversion is worth, in the site's currency.
"""
from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

import psycopg
from psycopg.rows import dict_row

from pipelines import audit
from pipelines.admin import validation
from pipelines.admin._records import parse_id, require_site
from pipelines.admin.errors import Conflict, InvalidInput, NotFound

MAX_VALUE = Decimal("99999999999999")
_COLUMNS = "goal_id as id, name, kind, path_pattern, event_name, property_name, property_value, value"
_EVENT_NAME = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")


def path_pattern_to_like(pattern: str) -> str:
    """The SQL LIKE pattern equivalent to a goal's path pattern (for the pipeline)."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def _validated(body: Any) -> dict[str, Any]:
    body = validation.require_object(body)
    validation.reject_unknown(body, ("name", "kind", "path_pattern", "event_name", "property_name",
                                     "property_value", "value"))
    validation.reject_nulls(body)
    goal = {
        "name": validation.text(body, "name", required=True, min_length=1, max_length=200),
        "path_pattern": validation.text(body, "path_pattern", max_length=500),
        "event_name": validation.text(body, "event_name", max_length=100),
        "property_name": validation.text(body, "property_name", max_length=100),
        "property_value": validation.text(body, "property_value", max_length=500, strip=False),
    }
    if (goal["path_pattern"] is None) == (goal["event_name"] is None):
        raise InvalidInput("give exactly one of path_pattern (page view goal) or event_name (event goal)",
                           {"field": "path_pattern"})
    kind = "pageview" if goal["path_pattern"] is not None else "event"
    declared_kind = validation.choice(body, "kind", ("pageview", "event"))
    if declared_kind is not None and declared_kind != kind:
        raise InvalidInput(f"kind {declared_kind} does not match the goal's "
                           f"{'path_pattern' if kind == 'pageview' else 'event_name'}", {"field": "kind"})
    goal["kind"] = kind
    if kind == "pageview":
        pattern = goal["path_pattern"]
        if not pattern.startswith("/") or any(char.isspace() for char in pattern):
            raise InvalidInput("path_pattern must be a path starting with / (use * as a wildcard), without spaces",
                               {"field": "path_pattern"})
        if goal["property_name"] is not None or goal["property_value"] is not None:
            raise InvalidInput("property_name and property_value apply to event goals only",
                               {"field": "property_name"})
    else:
        if not _EVENT_NAME.match(goal["event_name"]):
            raise InvalidInput("event_name must be 1 to 100 letters, digits, _ . : or -", {"field": "event_name"})
        if (goal["property_name"] is None) != (goal["property_value"] is None):
            raise InvalidInput("give property_name and property_value together, or neither",
                               {"field": "property_name" if goal["property_name"] is None else "property_value"})
    value = body.get("value")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 <= value <= MAX_VALUE:
            raise InvalidInput(f"value must be a number from 0 to {MAX_VALUE}", {"field": "value"})
        value = Decimal(str(value)).quantize(Decimal("0.0001"))
    goal["value"] = value
    return goal


def list_goals(conn: psycopg.Connection, site_id: object) -> list[dict[str, Any]]:
    site = require_site(conn, site_id)
    with conn.cursor(row_factory=dict_row) as cur:
        return cur.execute(f"select {_COLUMNS} from collect.goals where site_id = %s order by name", (site,)).fetchall()


def get_goal(conn: psycopg.Connection, site_id: object, goal_id: object) -> dict[str, Any]:
    site = require_site(conn, site_id)
    goal = parse_id(goal_id, "goal")
    with conn.cursor(row_factory=dict_row) as cur:
        record = cur.execute(f"select {_COLUMNS} from collect.goals where site_id = %s and goal_id = %s",
                             (site, goal)).fetchone()
    if record is None:
        raise NotFound("goal not found", {"goal_id": str(goal)})
    return record


def _name_taken(conn: psycopg.Connection, site, name: str, except_goal=None) -> bool:
    return conn.execute(
        "select 1 from collect.goals where site_id = %s and name = %s and goal_id is distinct from %s",
        (site, name, except_goal),
    ).fetchone() is not None


def create_goal(conn: psycopg.Connection, site_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id, lock=True)
    goal = _validated(body)
    if _name_taken(conn, site, goal["name"]):
        raise Conflict(f"a goal named {goal['name']!r} already exists", {"name": goal["name"]})
    goal_id = conn.execute(
        """insert into collect.goals (site_id, name, kind, path_pattern, event_name, property_name, property_value, value)
           values (%s, %s, %s, %s, %s, %s, %s, %s) returning goal_id""",
        (site, goal["name"], goal["kind"], goal["path_pattern"], goal["event_name"], goal["property_name"],
         goal["property_value"], goal["value"]),
    ).fetchone()[0]
    audit.record(conn, actor, "goal.created", str(goal_id), {"site_id": str(site), "name": goal["name"]})
    return get_goal(conn, site, goal_id)


def replace_goal(conn: psycopg.Connection, site_id: object, goal_id: object, body: Any, *, actor: str) -> dict[str, Any]:
    site = require_site(conn, site_id, lock=True)
    existing = get_goal(conn, site, goal_id)["id"]
    goal = _validated(body)
    if _name_taken(conn, site, goal["name"], existing):
        raise Conflict(f"a goal named {goal['name']!r} already exists", {"name": goal["name"]})
    conn.execute(
        """update collect.goals set name = %s, kind = %s, path_pattern = %s, event_name = %s, property_name = %s,
                  property_value = %s, value = %s where goal_id = %s""",
        (goal["name"], goal["kind"], goal["path_pattern"], goal["event_name"], goal["property_name"],
         goal["property_value"], goal["value"], existing),
    )
    audit.record(conn, actor, "goal.updated", str(existing), {"site_id": str(site), "name": goal["name"]})
    return get_goal(conn, site, existing)


def delete_goal(conn: psycopg.Connection, site_id: object, goal_id: object, *, actor: str) -> None:
    site = require_site(conn, site_id, lock=True)
    existing = get_goal(conn, site, goal_id)
    conn.execute("delete from collect.goals where goal_id = %s", (existing["id"],))
    audit.record(conn, actor, "goal.deleted", str(existing["id"]), {"site_id": str(site), "name": existing["name"]})
