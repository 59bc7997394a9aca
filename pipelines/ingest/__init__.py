"""Ingestion of events: validation, visitor derivation, group-committed writes and the spool.

Public entry points for other components:

- `store_events(conn_or_url, rows)`: write derived rows through the collector's COPY path;
- `replay_spool(settings)`: write spooled events back once the database answers (scheduled);
- `destroy_salts_before(conn, day)`: destroy the daily salts of earlier days, audited (scheduled).
"""
from pipelines.ingest.rows import COLUMNS, derive_row, row_from_mapping
from pipelines.ingest.visitors import destroy_salts_before
from pipelines.ingest.writer import replay_spool, store_events

__all__ = ["COLUMNS", "derive_row", "row_from_mapping", "destroy_salts_before", "replay_spool", "store_events"]
