"""Dagster wiring of inbound sources: processing of the webhook inbox (logic in pipelines.inbound)."""
