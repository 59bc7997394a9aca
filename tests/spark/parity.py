"""What the Spark parity tests share: the models Spark builds from the lake, with the key their
rows are ordered by, and the row-for-row comparison of one model on both engines (money and shares
with a tolerance)."""
from __future__ import annotations

import json
import math
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import duckdb
import psycopg

from pipelines.lake.layout import ANALYTICS, Lake

# Every model Spark builds from the lake (everything but the event views, which read PostgreSQL's
# raw events live), with the key its rows are ordered by. The inbound services' models are built
# too; the shop has no chat or database events, so theirs are compared empty.
MODELS = {
    "intermediate.int_events_sessionized": "event_id",
    "intermediate.int_visits": "visit_id",
    "intermediate.int_traffic_source_channels": "site_id, source, medium, campaign",
    "intermediate.int_classification_attributes": "site_id, dimension, dimension_value",
    "intermediate.int_conversions": "conversion_id",
    "intermediate.int_attribution_touches": "conversion_id, touch_number",
    "marts.fct_events": "event_id",
    "marts.fct_scroll_depth": "site_id, page_id",
    "marts.fct_visits": "visit_id",
    "marts.fct_pageviews": "event_id",
    "marts.fct_zone_visibility": "event_id",
    "marts.fct_orders": "order_id",
    "marts.fct_order_items": "order_id, line_number",
    "marts.fct_ecommerce_funnel": "site_id, visit_date, step_number",
    "marts.fct_conversions": "conversion_id",
    "marts.fct_attribution": "conversion_id, attribution_model, touch_number",
    "marts.dim_annotations": "annotation_id",
    "marts.dim_sites": "site_id",
    "marts.dim_channel_rules": "site_id, rule_position",
    "marts.dim_classifications": "site_id, dimension, dimension_value, attribute",
    "marts.dim_traffic_sources": "site_id, source, medium, campaign",
    "analytics.visits": "visit_id",
    "analytics.pageviews": "event_id",
    "analytics.events": "event_id",
    "analytics.scroll_depth": "site_id, page_id",
    "analytics.zone_visibility": "event_id",
    "analytics.orders": "order_id",
    "analytics.order_items": "order_id, line_number",
    "analytics.ecommerce_funnel": "site_id, visit_date, step_number",
    "analytics.conversions": "conversion_id",
    "analytics.attribution": "conversion_id, attribution_model, touch_number",
    "analytics.traffic_sources": "site_id, source, medium, campaign",
    "analytics.channel_rules": "site_id, rule_position",
    "analytics.classifications": "site_id, dimension, dimension_value, attribute",
    "analytics.annotations": "annotation_id",
    "analytics.sites": "site_id",
}
INBOUND = {
    "marts.fct_chat_conversations": "conversation_id",
    "marts.fct_chat_messages": "message_id",
    "marts.fct_db_record_changes": "change_id",
    "marts.dim_db_records_current": "tenant, base, table_name, record_id",
    "analytics.chat_conversations": "conversation_id",
    "analytics.chat_messages": "message_id",
    "analytics.chat_undelivered_messages": "message_id",
    "analytics.database_record_history": "change_id",
    "analytics.database_records_current": "tenant, base, table_name, record_id",
}
# Columns that say when a row was built, not what it holds.
BUILD_TIME = {"built_at", "goals_fingerprint"}



def comparable(value):
    """A value as both engines' drivers can agree on it: timestamps naive UTC, JSON parsed, numbers
    float, UUIDs text (Spark has no UUID type: the lake holds them as text)."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (dict, list)):
        return value
    return value


def spark_value(value, pg_value):
    """PyHive's value read as the PostgreSQL driver's type (timestamps and JSON come as text)."""
    if isinstance(value, str) and isinstance(pg_value, datetime):
        return datetime.fromisoformat(value)
    if isinstance(value, str) and isinstance(pg_value, (dict, list)):
        return json.loads(value)
    if isinstance(value, str) and type(pg_value) is date:
        return date.fromisoformat(value)
    if isinstance(value, str) and isinstance(pg_value, (Decimal, float)):
        return float(value)
    return comparable(value)


def same(left, right) -> bool:
    if isinstance(left, float) or isinstance(right, float):
        return left is not None and right is not None and math.isclose(float(left), float(right), rel_tol=1e-9,
                                                                      abs_tol=1e-9)
    return left == right


def sort_key(row: dict, key: str):
    """Rows in the same order on both engines (their collations differ): by the key's values, nulls last."""
    return [(row[column] is None, str(comparable(row[column]))) for column in key.split(", ")]


def lake_rows(spark_build, table: str, columns: list[str]) -> list[tuple]:
    """A view's rows as Spark wrote them into the lake (every partition's file; the site of a table
    split by site and day is in its folders' names, not in the files)."""
    files = [str(path) for path in Lake(spark_build["settings"].lake_path).partitions(ANALYTICS, table).values()]
    if not files:
        return []
    listed = ", ".join("'" + name.replace("'", "''") + "'" for name in files)
    selected = ", ".join('"' + column + '"' for column in columns)
    with duckdb.connect() as duck:
        duck.execute("SET TimeZone = 'UTC'")
        return duck.execute(f"SELECT {selected} FROM read_parquet([{listed}], hive_partitioning = true)").fetchall()


def compare(spark_build, spark_cursor, model: str, key: str, allow_empty: bool = False, lake_views=None) -> None:
    with psycopg.connect(spark_build["url"]) as db:
        cursor = db.execute(f"select * from {model}")
        columns = [column.name for column in cursor.description if column.name not in BUILD_TIME]
        expected = sorted((dict(zip([c.name for c in cursor.description], row)) for row in cursor.fetchall()),
                          key=lambda row: sort_key(row, key))
    assert expected or allow_empty, f"{model} is empty on PostgreSQL: nothing would be compared"
    schema, name = model.split(".")
    if schema == ANALYTICS and lake_views is not None and name in lake_views:
        found = [dict(zip(columns, row)) for row in lake_rows(spark_build, name, columns)]
    else:
        spark_cursor.execute(f"select {', '.join(columns)} from {model}")
        found = [dict(zip(columns, row)) for row in spark_cursor.fetchall()]
    assert len(found) == len(expected), f"{model}: {len(expected)} rows on PostgreSQL, {len(found)} on Spark"
    if expected:
        kinds = expected[0]
        found = sorted(found, key=lambda row: sort_key({c: spark_value(v, kinds[c]) for c, v in row.items()}, key))
    for pg_row, spark_row in zip(expected, found):
        differences = {column: (pg_row[column], spark_row[column]) for column in columns
                       if not same(comparable(pg_row[column]), spark_value(spark_row[column], pg_row[column]))}
        assert not differences, f"{model} row {pg_row[key.split(', ')[0]]}: (PostgreSQL, Spark) differ in {differences}"
