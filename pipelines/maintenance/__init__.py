"""Maintenance of the warehouse, run by the Dagster maintenance jobs (no Dagster here).

- partitions ahead and stray rows out of the default partition: `pipelines.partitions`;
- retention per site: `retention.apply_retention`;
- the previous day's salt: `pipelines.ingest.destroy_salts_before` (audited);
- event views when declared events change: `pipelines.event_views`;
- export and erasure requests: `privacy.process_privacy_requests`;
- the spool: `pipelines.ingest.replay_spool`;
- what the sensors watch (channel rules versions, pending requests): `changes`.
"""
