"""Gunicorn settings of the collector: the shared ones, with gevent workers.

A collection request is a little CPU and a long wait on the shared commit (group commit in
`pipelines/ingest/writer.py`). With gthread workers, dozens of threads per process fought over
the GIL at every hand-off: at 32 threads a beacon cost about 0.8 ms of CPU. Under gevent the
waits are greenlet switches in one thread (psycopg 3 cooperates with gevent's monkey-patching on
its own) and the same beacon costs about half. The writer "thread", the connection pool and the
inbound sweep become greenlets of the same loop; nothing in the collector holds the CPU for long.
"""
import os

from analytics_cli.gunicorn_config import *  # noqa: F401,F403  (logging, timeouts, proxies)

worker_class = "gevent"
# Connections served at once by one worker (keep-alive beacons and server batches).
worker_connections = int(os.environ.get("ANALYTICS_COLLECTOR_CONNECTIONS", "1000"))
