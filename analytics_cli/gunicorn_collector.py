"""Gunicorn settings of the collector: the shared ones, with uvicorn workers.

Gunicorn manages the worker processes; each serves HTTP with uvicorn over the ASGI app
(analytics_cli/collector_worker.py, collector_app/asgi.py). A beacon is a little CPU and a
wait on the shared commit (group commit in `pipelines/ingest/writer.py`), which a coroutine waits
for in the event loop; the Flask routes run in threads of the same worker.
"""
from analytics_cli.gunicorn_config import *  # noqa: F401,F403  (logging, timeouts)

worker_class = "analytics_cli.collector_worker.CollectorWorker"
