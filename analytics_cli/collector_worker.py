"""The collector's gunicorn worker: uvicorn with httptools and uvloop, over collector_app.asgi.

Gunicorn stays the process manager (worker count, restarts, timeouts, graceful stops, `analytics
up`'s command line); each worker serves HTTP with uvicorn. On the same 2 CPUs, gunicorn's gevent
worker took 211 to 220 us of CPU to answer a request with a bare 204, uvicorn with httptools and
uvloop 28 us: the difference is most of what a beacon cost.
"""
from __future__ import annotations

from uvicorn_worker import UvicornWorker

from analytics_cli.collector_http import BoundedHttpToolsProtocol
from pipelines.settings import Settings


class CollectorWorker(UvicornWorker):
    CONFIG_KWARGS = {
        "loop": "uvloop",
        # httptools, with gunicorn's limits on header fields (analytics_cli/collector_http.py)
        "http": BoundedHttpToolsProtocol,
        # uvicorn's access lines carry the client's address: collector_app/asgi.py writes its own.
        "access_log": False,
        # Addresses come from X-Forwarded-For through pipelines.ingest.browser.client_ip, which only
        # believes the configured proxies, and only where an endpoint needs one; uvicorn would
        # rewrite the peer address of every request instead.
        "proxy_headers": False,
        "server_header": False,
        # The collector serves no WebSocket: an upgrade request is answered as plain HTTP.
        "ws": "none",
        # Connections and requests one worker serves at once; past it, uvicorn answers 503.
        "limit_concurrency": Settings.from_env().collector_connections,
    }
