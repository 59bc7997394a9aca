"""Demo data: a shop with its metadata and 90 days of realistic traffic.

`create_demo(url, send_recent)` creates the site (`site.py`), writes the older days through
the ingestion code (`pipelines.ingest.derive_row` and `store_events`, as an import would) and
hands the last 72 hours to `send_recent`, which posts them to the real `POST /collect/server`
endpoint (the server API refuses events older than 72 hours). Building the views is the
caller's job (`analytics demo` runs the Dagster build in process).
"""
from pipelines.demo.load import DEMO_SITE_NAME, create_demo, demo_exists

__all__ = ["DEMO_SITE_NAME", "create_demo", "demo_exists"]
