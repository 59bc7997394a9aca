"""Gunicorn settings of the collector: the shared ones, with gevent workers.

A collection request is a little CPU and a long wait on the shared commit (group commit in
`pipelines/ingest/writer.py`). With gthread workers, dozens of threads per process fought over
the GIL at every hand-off: at 32 threads a beacon cost about 0.8 ms of CPU. Under gevent the
waits are greenlet switches in one thread (psycopg 3 cooperates with gevent's monkey-patching on
its own) and the same beacon costs about half. The writer "thread", the connection pool and the
inbound sweep become greenlets of the same loop; nothing in the collector holds the CPU for long.
"""
from gunicorn.glogging import Logger

from analytics_cli.gunicorn_config import *  # noqa: F401,F403  (logging, timeouts, proxies)
from pipelines.settings import Settings

_settings = Settings.from_env()
worker_class = "gevent"
# Connections served at once by one worker (keep-alive beacons and server batches).
worker_connections = _settings.collector_connections


class CollectorLogger(Logger):
    """The access log without the beacons that succeeded: thousands of identical lines a second
    that tell nothing (the site's check figures count events; refused beacons are still logged),
    and formatting them cost a tenth of the collector's CPU."""

    def access(self, resp, req, environ, request_time):
        if environ.get("PATH_INFO") == _settings.collect_path and resp.status_code == 204 \
                and environ.get("REQUEST_METHOD") == "POST":
            return
        super().access(resp, req, environ, request_time)


logger_class = CollectorLogger
