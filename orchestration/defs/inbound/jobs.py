"""A job that processes the inbound inbox (the safety net behind the collectors' own processing).

Collector processes process each delivery right after answering it, and again every few seconds
while they run; this job is for an operator (Dagster UI) or a schedule to run when needed.
"""
from dagster import AssetSelection, define_asset_job

from orchestration.defs.inbound.assets import inbound_inbox_processing

inbound_job = define_asset_job("inbound_job", selection=AssetSelection.assets(inbound_inbox_processing),
                               description="Process deliveries waiting in the inbound inbox.")
