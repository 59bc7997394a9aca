"""The raw tables of inbound sources as assets, kept up to date by processing the webhook inbox.

Collector processes already process their deliveries right after answering; this asset is the
safety net (a collector stopped before its worker ran) and the place where lineage starts for the
dbt models that read these tables (their dbt sources are `inbound.*`).
"""
from dagster import AssetExecutionContext, AssetKey, AssetSpec, MaterializeResult, multi_asset

from orchestration.defs.resources import Warehouse
from pipelines.database.connection import connect
from pipelines.inbound.processing import process_pending, purge_quarantine

GROUP = "inbound"
RAW_TABLES = ("chat_events", "chat_conversations", "db_events", "db_rows")
INBOUND_SPECS = [AssetSpec(AssetKey(["inbound", table]), group_name=GROUP,
                           description=f"raw.{table}, filled from verified webhook deliveries and the stream follower")
                 for table in RAW_TABLES]


def process_inbox(warehouse: Warehouse) -> dict:
    """Process every waiting delivery and purge old quarantined payloads; returns the figures."""
    with connect(warehouse.url()) as conn:
        report = process_pending(conn)
        with conn.transaction():
            purged = purge_quarantine(conn)
    return {"deliveries": report.deliveries, "events": report.events, "new_events": report.inserted,
            "duplicates": report.duplicates, "failed_deliveries": report.failed, "quarantine_purged": purged}


@multi_asset(specs=INBOUND_SPECS, name="inbound_inbox_processing", can_subset=False)
def inbound_inbox_processing(context: AssetExecutionContext, warehouse: Warehouse):
    figures = process_inbox(warehouse)
    context.log.info(f"inbound inbox: {figures}")
    for spec in INBOUND_SPECS:
        yield MaterializeResult(asset_key=spec.key, metadata=figures)
