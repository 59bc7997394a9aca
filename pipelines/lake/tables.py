"""Which tables the lake holds and how each is split into files.

Raw events by site and day; every view of the `analytics` schema (the views the workbench
shows, event views included) in a folder of its own. A table is split by site and day when it
has a `site_id` and an event-time column (the time of the event, visit, conversion or order), by
day with only the time, and kept whole otherwise (channel rules, annotations, classifications:
small tables edited by people, rewritten whole at each refresh).
"""
from __future__ import annotations

from dataclasses import dataclass

from pipelines.lake.layout import ANALYTICS, DAY, RAW_EVENTS, SITE_DAY, WHOLE

# Event-time columns, in order of preference: the day of a row is the UTC day of the first present.
DAY_COLUMNS = ("occurred_at", "visit_start", "converted_at", "ordered_at", "visit_date", "first_scrolled_at")
# No lake file may hold one of these (DESIGN.md: the IP address and the user agent are dropped at
# collection); a table that gained one is refused rather than exported.
FORBIDDEN_COLUMNS = frozenset({"ip", "ip_address", "remote_addr", "client_ip", "user_agent", "ua"})
# The other tables the dbt models read (their sources besides raw events): the collector's metadata
# and the inbound services' raw tables, each kept whole in the lake (<lake>/<schema>/<table>/part-0.parquet)
# and rewritten at each export, for an engine that reads the lake (Spark: docs/data-engineer/spark.md).
# collect.salts, the keys, accounts and inbound secrets are not among them: never in the lake.
SOURCE_TABLES = (
    ("collect", "sites"), ("collect", "goals"), ("collect", "channel_rules"), ("collect", "source_categories"),
    ("collect", "classifications"), ("collect", "annotations"), ("collect", "zones"),
    ("raw", "chat_events"), ("raw", "chat_conversations"), ("raw", "db_events"), ("raw", "db_rows"),
)
# Event views read raw.events directly (pipelines/event_views.py): they are fresher than the build.
LIVE_PREFIX = "event_"


# PostgreSQL cannot push a filter on the day below a window function or an aggregate, so reading a
# few days of these views would compute them over all history. A refresh of some days also names
# the rows' keys (the window's partition, the aggregate's group), which PostgreSQL does push down
# to an index: for each view, the key column and the query of the keys of a site's days. (Only
# keys with an index: a long `= any` list without one costs minutes at 10,000,000 events where the
# whole aggregate costs seconds. scroll_depth's pages have a partial one, dbt_project/macros/
# reader_indexes.sql; ecommerce_funnel, orders and order_items take the day filter as it is.)
NARROWING = {
    "visits": ("visitor_key", "select distinct visitor_key from intermediate.int_visits"
                              " where site_id = any(%(sites)s) and visit_start >= %(low)s and visit_start < %(high)s"),
    "attribution": ("conversion_id", "select conversion_id from intermediate.int_conversions"
                                     " where site_id = any(%(sites)s) and converted_at >= %(low)s"
                                     " and converted_at < %(high)s"),
    "scroll_depth": ("page_id", "select distinct page_id from intermediate.int_events_sessionized"
                                " where event_name = 'scroll_depth' and site_id = any(%(sites)s)"
                                " and occurred_at >= %(low)s and occurred_at < %(high)s"),
}


class ForbiddenColumn(ValueError):
    """A table holds a column that must never reach the lake."""


@dataclass(frozen=True)
class LakeTable:
    """A PostgreSQL relation as the lake stores it."""

    schema: str
    name: str
    columns: tuple[tuple[str, str], ...]  # (name, DuckDB type) in order
    layout: str
    day_column: str | None

    @property
    def column_names(self) -> list[str]:
        return [name for name, _ in self.columns]

    @property
    def stored_columns(self) -> tuple[tuple[str, str], ...]:
        """The columns as the files hold them: the sources' (raw events', the metadata's) UUIDs and
        JSON as their text, which Spark reads (Spark 4.0 refuses Parquet's UUID type and has no JSON
        type; docs/data-engineer/spark.md; raw events' JSON as it always was). The views keep DuckDB's types."""
        if self.schema == ANALYTICS:
            return self.columns
        as_text = ("UUID",) if (self.schema, self.name) == RAW_EVENTS else ("UUID", "JSON")
        return tuple((name, "VARCHAR" if kind in as_text else kind) for name, kind in self.columns)

    def stored_expression(self, name: str) -> str:
        """The SELECT expression writing column `name` as the files hold it."""
        quoted = '"' + name.replace('"', '""') + '"'
        kind = dict(self.stored_columns)[name]
        return quoted if kind == dict(self.columns)[name] else f"CAST({quoted} AS {kind}) AS {quoted}"

    @property
    def live(self) -> bool:
        """Whether PostgreSQL's rows of this table change between builds (event views)."""
        return self.schema == ANALYTICS and self.name.startswith(LIVE_PREFIX)

    def day_expression(self, alias: str = "") -> str:
        """SQL (DuckDB) of a row's partition day."""
        column = f'{alias}"{self.day_column}"'
        kind = dict(self.columns)[self.day_column].upper()
        if kind == "DATE":
            return column
        if "TIME ZONE" in kind:
            return f"CAST(timezone('UTC', {column}) AS DATE)"
        return f"CAST({column} AS DATE)"


def lake_table(schema: str, name: str, columns: list[tuple[str, str]]) -> LakeTable:
    """How a relation with these columns is stored (ForbiddenColumn when it must not be)."""
    names = {column.lower() for column, _ in columns}
    forbidden = sorted(names & FORBIDDEN_COLUMNS)
    if forbidden:
        raise ForbiddenColumn(f"{schema}.{name} has {', '.join(forbidden)}: never written to the lake")
    day_column = next((column for column in DAY_COLUMNS if column in names), None)
    if day_column and "site_id" in names:
        layout = SITE_DAY
    elif day_column:
        layout = DAY
    else:
        layout = WHOLE
    return LakeTable(schema, name, tuple(columns), layout, day_column)


def is_raw_events(table: LakeTable) -> bool:
    return (table.schema, table.name) == RAW_EVENTS
