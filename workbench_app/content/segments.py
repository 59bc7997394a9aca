"""Saved segments: a set of conditions on visits, kept in a folder (the folder's access, as a
question has), and compiled to a subquery of visit ids over the analytics views.

A question uses a segment through a variable of type "segment" whose value is the segment's id,
typically in an optional clause: `WHERE ... [[AND visit_id IN {{segment}}]]`. A dashboard filter
of type "segment" feeds such a variable; a builder definition's `segment` adds the same condition.
Before the statement is bound, `expand` reads each named segment (the runner must be able to view
it: a 404 otherwise) and replaces the placeholder with

    (SELECT visit_id FROM "warehouse"."analytics"."visits" WHERE <conditions>)

whose values are `{{<variable>__<part>}}` variables bound by the engine, never written into the
text. The whole statement then goes through the permission rewrite as any other, so a row filter
or a hidden column of `visits`, `conversions` or `events` applies to the segment too. A segment
variable given no value is left to the engine: its optional clause drops out (every visit), and
outside one it is refused as any missing value is.
"""
from __future__ import annotations

from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from workbench_app.accounts.identity import Identity
from workbench_app.analyses.compiler import EVENTS, VISITS, Binder, like_pattern
from workbench_app.content import folders
from workbench_app.content.shapes import MAX_SEGMENTS, SEGMENT_TYPE, SegmentConditions, segment_conditions
from workbench_app.engine import substitute_placeholders
from workbench_app.errors import invalid
from workbench_app.records import audit_log

CONVERSIONS = '"warehouse"."analytics"."conversions"'
_COLUMNS = "segment_id, folder_id, name, description, conditions, created_by, created_at, updated_at"

Statement = tuple[str, dict[str, str], dict[str, Any]]


def compile_conditions(conditions: SegmentConditions, prefix: str) -> Statement:
    """(subquery of visit ids, variable types, values); variables are named `<prefix>__<part>`."""
    binder = Binder()
    parts = []
    for field, column in (("channels", "channel"), ("countries", "country"), ("devices", "device_class")):
        values = getattr(conditions, field)
        if values:
            parts.append(f"list_contains({binder.bind(f'{prefix}__{field}', 'list', list(values))}, {column})")
    if conditions.landing_page is not None:
        pattern = binder.bind(f"{prefix}__landing_page", "text", like_pattern(conditions.landing_page))
        parts.append(f"entry_path LIKE {pattern} ESCAPE '\\'")
    if conditions.goal is not None:
        goal = binder.bind(f"{prefix}__goal", "text", conditions.goal)
        parts.append(f"visit_id IN (SELECT visit_id FROM {CONVERSIONS} WHERE goal_name = {goal})")
    if conditions.event is not None:
        match = binder.event(f"{prefix}__event", conditions.event.event, conditions.event.properties)
        parts.append(f"visit_id IN (SELECT visit_id FROM {EVENTS} WHERE {match})")
    sql = f"(SELECT visit_id FROM {VISITS} WHERE {' AND '.join(parts) or 'TRUE'})"
    return sql, binder.types, binder.values


def _segment_id(value: Any, name: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise invalid(f"The variable {name} takes a saved segment's id.", field=f"variables.{name}")
    return value


def expand(conn: psycopg.Connection, identity: Identity, statement: Statement) -> Statement:
    """The statement with each segment variable that has a value replaced by its segment's subquery."""
    sql, types, values = statement
    names = [name for name, kind in types.items() if kind == SEGMENT_TYPE]
    if not names:
        return statement
    types, values = dict(types), dict(values)
    texts = {}
    for name in names:
        del types[name]
        value = values.pop(name, None)
        if value is None:
            # No segment: the engine drops the optional clause (or asks for the value).
            types[name] = "text"
            continue
        segment = get_segment(conn, identity, _segment_id(value, name))
        subquery, sub_types, sub_values = compile_conditions(
            SegmentConditions.model_validate(segment["conditions"]), name)
        if set(sub_types) & set(types):
            raise invalid("A question's variable name is reserved for a segment's conditions.", field="variables")
        types.update(sub_types)
        values.update(sub_values)
        texts[name] = subquery
    return substitute_placeholders(sql, texts), types, values


def expanded(workbench: Any, identity: Identity, statement: Statement) -> Statement:
    """`expand` in a transaction of its own (a statement compiled from an unsaved definition)."""
    with workbench.transaction() as conn:
        return expand(conn, identity, statement)


# --- storage ---------------------------------------------------------------------------------


def get_segment(conn: psycopg.Connection, identity: Identity, segment_id: int, level: str = "view") -> dict[str, Any]:
    return folders.filed_item(conn, identity, "segments", "segment_id", _COLUMNS, segment_id, level, "Segment")


def list_segments(conn: psycopg.Connection, identity: Identity, folder_id: int | None = None) -> list[dict[str, Any]]:
    with conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(f"""select {_COLUMNS} from segments
                               where %(folder)s::bigint is null or folder_id = %(folder)s order by name, segment_id""",
                           {"folder": folder_id}).fetchall()
    return folders.visible(conn, identity, rows)


def _count_in_tree(conn: psycopg.Connection, folder_id: int) -> int:
    """Segments in the folder's tree (a personal tree, or the shared folders): the bound on counts."""
    owner = folders.root_owner(conn, folder_id)
    return conn.execute(
        """with recursive tree as (
               select folder_id, owner_id as root from folders where parent_id is null
               union all
               select f.folder_id, t.root from folders f join tree t on f.parent_id = t.folder_id)
           select count(*) from segments s join tree t using (folder_id)
           where t.root is not distinct from %s""", (owner,)).fetchone()[0]


def create_segment(conn: psycopg.Connection, identity: Identity, fields: dict[str, Any]) -> dict[str, Any]:
    conditions = segment_conditions(fields.get("conditions"))
    folder_id = fields.get("folder_id") or folders.personal_folder(conn, identity)
    folders.require(conn, identity, folder_id, "edit")
    if _count_in_tree(conn, folder_id) >= MAX_SEGMENTS:
        raise invalid(f"At most {MAX_SEGMENTS} segments are kept in personal folders, and as many in shared ones.",
                      field="folder_id")
    segment_id = conn.execute(
        """insert into segments (folder_id, name, description, conditions, created_by)
           values (%s, %s, %s, %s, %s) returning segment_id""",
        (folder_id, fields["name"], fields.get("description") or "",
         Jsonb(conditions.model_dump(exclude_defaults=True)), identity.user_id)).fetchone()[0]
    audit_log.record(conn, identity.user_id, identity.actor, "segment.created", str(segment_id),
                     {"folder_id": folder_id})
    return get_segment(conn, identity, segment_id)


def update_segment(conn: psycopg.Connection, identity: Identity, segment_id: int,
                   fields: dict[str, Any]) -> dict[str, Any]:
    current = get_segment(conn, identity, segment_id, "edit")
    folder_id = fields.get("folder_id") or current["folder_id"]
    if folder_id != current["folder_id"]:
        folders.require(conn, identity, folder_id, "edit")
    # Given (even null, which the document does not allow: refused), the conditions are replaced whole.
    conditions = (segment_conditions(fields["conditions"]).model_dump(exclude_defaults=True)
                  if "conditions" in fields else current["conditions"])
    conn.execute(
        """update segments set folder_id = %s, name = %s, description = %s, conditions = %s, updated_at = now()
           where segment_id = %s""",
        (folder_id, fields.get("name") or current["name"],
         fields["description"] if fields.get("description") is not None else current["description"],
         Jsonb(conditions), segment_id))
    audit_log.record(conn, identity.user_id, identity.actor, "segment.updated", str(segment_id),
                     {"fields": sorted(name for name, value in fields.items() if value is not None)})
    return get_segment(conn, identity, segment_id)


def delete_segment(conn: psycopg.Connection, identity: Identity, segment_id: int) -> None:
    get_segment(conn, identity, segment_id, "edit")
    conn.execute("delete from segments where segment_id = %s", (segment_id,))
    audit_log.record(conn, identity.user_id, identity.actor, "segment.deleted", str(segment_id))
