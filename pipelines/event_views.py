"""One view per declared event: `analytics.event_<name>`, its properties as typed columns.

Declared events (collect.declared_events and their properties) are metadata that administrators
edit; `regenerate_event_views` makes the analytics schema follow them: stale `event_*` views are
dropped, current ones created, and the declared labels and descriptions become SQL comments, so
the workbench shows them. The views read raw.events, which dbt never drops, so a dbt rebuild
cannot take them away. analytics_reader reads them through the schema's default privileges.

When several sites declare the same event name, the view covers all of them; a property declared
with different types is a string, and different labels are joined.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import psycopg
from psycopg import sql

from pipelines.database.connection import READER_ROLE

SCHEMA = "analytics"
VIEW_PREFIX = "event_"
MAX_IDENTIFIER = 63
# Taken by a view so that two processes never regenerate at the same time.
_LOCK_ID = 7_205_114_050

BASE_COLUMNS = [
    ("event_id", "event_id", "Identifier of the event."),
    ("site_id", "site_id", "Site the event belongs to."),
    ("occurred_at", "occurred_at", "When the event happened (UTC)."),
    ("page_id", "page_id", "Identifier of the page view the event was sent from (joins analytics.pageviews)."),
    ("url", "url", "Full URL of the page."),
    ("path", "path", "Path of the page."),
    ("country", "country", "Country inferred from the IP address (ISO 3166 code)."),
    ("device_class", "device_class", "Device class: mobile, tablet or desktop."),
]
_BASE_NAMES = {name for name, _, _ in BASE_COLUMNS}
_NUMBER = r"^\s*-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\s*$"
_TIMESTAMP = r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$"


@dataclass
class DeclaredProperty:
    name: str
    type: str
    labels: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)

    @property
    def column(self) -> str:
        return f"prop_{self.name}" if self.name in _BASE_NAMES else self.name


@dataclass
class DeclaredEvent:
    name: str
    site_ids: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    properties: dict[str, DeclaredProperty] = field(default_factory=dict)

    @property
    def view_name(self) -> str:
        return view_name(self.name)


def view_name(event_name: str) -> str:
    """`event_<name>`, shortened with a hash suffix when it would exceed PostgreSQL's 63 bytes."""
    name = VIEW_PREFIX + event_name
    if len(name) <= MAX_IDENTIFIER:
        return name
    digest = hashlib.sha256(event_name.encode()).hexdigest()[:8]
    return name[: MAX_IDENTIFIER - 9] + "_" + digest


def _unique(values: list[str]) -> list[str]:
    return [value for index, value in enumerate(values) if value and value not in values[:index]]


def declared_events(conn: psycopg.Connection) -> list[DeclaredEvent]:
    """Declared events grouped by name across sites, with their properties."""
    events: dict[str, DeclaredEvent] = {}
    for site_id, name, label, description in conn.execute(
            "select site_id, name, label, description from collect.declared_events order by name, site_id"):
        event = events.setdefault(name, DeclaredEvent(name))
        event.site_ids.append(str(site_id))
        event.labels.append(label)
        event.descriptions.append(description)
    for event_name, name, type_, label, description in conn.execute(
            """select event_name, name, type, label, description from collect.declared_event_properties
                order by event_name, name, site_id"""):
        event = events.get(event_name)
        if event is None:
            continue
        prop = event.properties.get(name)
        if prop is None:
            prop = event.properties[name] = DeclaredProperty(name, type_)
        elif prop.type != type_:
            prop.type = "string"
        prop.labels.append(label)
        prop.descriptions.append(description)
    return list(events.values())


def _property_expression(prop: DeclaredProperty) -> sql.Composable:
    value = sql.SQL("e.props -> {}").format(sql.Literal(prop.name))
    text = sql.SQL("e.props ->> {}").format(sql.Literal(prop.name))
    if prop.type == "number":
        # Numbers sent as strings ("12.5") are accepted; anything else is null rather than an error.
        return sql.SQL("case when jsonb_typeof({v}) = 'number' or {t} ~ {p} then ({t})::numeric end").format(
            v=value, t=text, p=sql.Literal(_NUMBER))
    if prop.type == "boolean":
        return sql.SQL("case when jsonb_typeof({v}) = 'boolean' then ({t})::boolean "
                       "when lower({t}) in ('true', 'false') then lower({t})::boolean end").format(v=value, t=text)
    if prop.type == "timestamp":
        return sql.SQL("case when {t} ~ {p} then ({t})::timestamptz end").format(t=text, p=sql.Literal(_TIMESTAMP))
    return text


def view_definition(event: DeclaredEvent) -> sql.Composable:
    columns = [sql.SQL("e.{} as {}").format(sql.Identifier(source), sql.Identifier(name))
               for name, source, _ in BASE_COLUMNS]
    columns += [sql.SQL("{} as {}").format(_property_expression(prop), sql.Identifier(prop.column))
                for prop in event.properties.values()]
    return sql.SQL(
        "create view {view} as select {columns} from raw.events as e "
        "where e.event_name = {name} and e.site_id = any({sites}::uuid[])"
    ).format(view=sql.Identifier(SCHEMA, event.view_name), columns=sql.SQL(", ").join(columns),
             name=sql.Literal(event.name), sites=sql.Literal(event.site_ids))


def _comment(labels: list[str], descriptions: list[str]) -> str:
    label = " / ".join(_unique(labels))
    description = " ".join(_unique(descriptions))
    return f"{label}: {description}" if description else label


def existing_event_views(conn: psycopg.Connection) -> set[str]:
    return {name for (name,) in conn.execute(
        """select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = %s and c.relkind = 'v' and c.relname like 'event\\_%%'""", (SCHEMA,))}


def regenerate_event_views(conn: psycopg.Connection) -> list[str]:
    """Make analytics.event_* match the declared events, in one transaction; returns the views."""
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", (_LOCK_ID,))
        events = declared_events(conn)
        wanted = {event.view_name for event in events}
        for stale in sorted(existing_event_views(conn)):
            # Recreated below as well: a property's type may have changed, which create or
            # replace view refuses.
            conn.execute(sql.SQL("drop view {}").format(sql.Identifier(SCHEMA, stale)))
        for event in events:
            view = sql.Identifier(SCHEMA, event.view_name)
            conn.execute(view_definition(event))
            conn.execute(sql.SQL("comment on view {} is {}").format(
                view, sql.Literal(_comment(event.labels, event.descriptions)
                                  + f" (event {event.name}; one row per event, properties as columns)")))
            for name, _, description in BASE_COLUMNS:
                conn.execute(sql.SQL("comment on column {}.{} is {}").format(
                    view, sql.Identifier(name), sql.Literal(description)))
            for prop in event.properties.values():
                conn.execute(sql.SQL("comment on column {}.{} is {}").format(
                    view, sql.Identifier(prop.column),
                    sql.Literal(_comment(prop.labels, prop.descriptions) + f" (property {prop.name}, {prop.type})")))
            # Default privileges grant this already; said again so a view made by another role is readable.
            conn.execute(sql.SQL("grant select on {} to {}").format(view, sql.Identifier(READER_ROLE)))
    return sorted(wanted)


def declared_events_fingerprint(conn: psycopg.Connection) -> str:
    """Changes whenever a declared event or property is added, edited or removed."""
    return conn.execute(
        """select md5(coalesce(string_agg(line, E'\\n' order by line), ''))
             from (select concat_ws('|', site_id, name, label, description) as line from collect.declared_events
                   union all
                   select concat_ws('|', site_id, event_name, name, type, label, description)
                     from collect.declared_event_properties) as lines""").fetchone()[0]
