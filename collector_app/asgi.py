"""ASGI entry point of the collector, as `analytics up` serves it: gunicorn manages the processes,
each worker runs uvicorn (httptools, uvloop) over this app (analytics_cli/collector_worker.py).

`POST <collect_path>`, one small request per page view and thousands a second, is answered in
the event loop (collect_api/beacon_asgi.py), and so is `POST /collect/server`, the bulk path of
backends (collect_api/server_asgi.py): the hops of a request through a2wsgi's threads and Flask
cost as much CPU as validating its hundred events. Every other route is the Flask app's, run in
a pool of threads through a2wsgi: those requests are few.

The access log is written here, not by uvicorn, whose lines carry the client's address (an
address never reaches a log line: DESIGN.md). Successful beacons are left out: thousands of
identical lines a second that tell nothing (the site's check figures count events); refused
beacons and every other request are logged, in the format of gunicorn's (gunicorn_config.py).
"""
from __future__ import annotations

import asyncio
import json
import logging
import time

from a2wsgi import WSGIMiddleware

from collector_app.collect_api.beacon import BeaconRules
from collector_app.collect_api.beacon_asgi import AsgiBeacon
from collector_app.collect_api.context import ingestion
from collector_app.collect_api.server_asgi import AsgiServerBatch
from collector_app.collect_api.server_batch import ServerBatches
from collector_app.errors import error_document
from collector_app.wsgi import app as flask_app
from pipelines.ingest.browser import is_trusted_proxy
from pipelines.ingest.writer import stop_writer

# Threads serving the Flask routes of one worker: server batches wait on the group commit there,
# so a few dozen keep the writer's groups full without making the GIL a contest.
FLASK_THREADS = 32
# gunicorn's limit on a request line, which the OpenAPI document states (414 on every operation);
# uvicorn has none of its own.
MAX_REQUEST_LINE = 4094
_URI_TOO_LONG = json.dumps(error_document(
    "uri_too_long", f"The request line is longer than {MAX_REQUEST_LINE} bytes.")).encode()

SERVER_BATCH_PATH = "/collect/server"

_access = logging.getLogger("gunicorn.access")


def _access_line(scope, status: int, length: int | None, started: float) -> str:
    """A line as gunicorn_config.access_log_format writes it: time, request line, status, bytes, ms."""
    when = time.strftime("[%d/%b/%Y:%H:%M:%S %z]")
    return (f'{when} "{scope["method"]} {scope["path"]} HTTP/{scope["http_version"]}" {status} '
            f'{"-" if length is None else length} {int((time.perf_counter() - started) * 1000)}ms')


class CollectorFront:
    """The ASGI app: the beacon natively, the rest through the Flask app."""

    def __init__(self, app, threads: int = FLASK_THREADS):
        settings = app.config["ANALYTICS_SETTINGS"]
        self.settings = settings
        self.collect_path = settings.collect_path
        self.beacon = AsgiBeacon(BeaconRules(ingestion(app), settings.trusted_proxies))
        self.server_batch = AsgiServerBatch(ServerBatches(ingestion(app)))
        self.flask = WSGIMiddleware(app, workers=threads)

    async def __call__(self, scope, receive, send):
        kind = scope["type"]
        if kind == "http":
            started = time.perf_counter()
            # Method, target and version with their spaces and the "?" (an upper bound).
            if len(scope["raw_path"]) + len(scope["query_string"]) + len(scope["method"]) + 11 > MAX_REQUEST_LINE:
                await self._uri_too_long(scope, send, started)
                return
            if scope["path"] == self.collect_path and scope["method"] == "POST":
                status = await self.beacon(scope, receive, send)
                if status != 204 and _access.isEnabledFor(logging.INFO):
                    _access.info(_access_line(scope, status, None, started))
                return
            if scope["path"] == SERVER_BATCH_PATH and scope["method"] == "POST":
                status = await self.server_batch(scope, receive, send)
                if _access.isEnabledFor(logging.INFO):
                    _access.info(_access_line(scope, status, None, started))
                return
            await self._flask(scope, receive, send, started)
        elif kind == "lifespan":
            await self._lifespan(receive, send)

    async def _uri_too_long(self, scope, send, started: float) -> None:
        await send({"type": "http.response.start", "status": 414,
                    "headers": [(b"content-type", b"application/json"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": _URI_TOO_LONG})
        if _access.isEnabledFor(logging.INFO):
            _access.info(_access_line(scope, 414, len(_URI_TOO_LONG), started))

    async def _flask(self, scope, receive, send, started: float) -> None:
        answered = {"status": 500, "length": 0}

        async def send_noted(message):
            if message["type"] == "http.response.start":
                answered["status"] = message["status"]
            elif message["type"] == "http.response.body":
                answered["length"] += len(message.get("body", b""))
            await send(message)

        try:
            await self.flask(self._with_scheme(scope), receive, send_noted)
        finally:
            if _access.isEnabledFor(logging.INFO):
                _access.info(_access_line(scope, answered["status"], answered["length"], started))

    def _with_scheme(self, scope):
        """`https` when a trusted proxy says so (X-Forwarded-Proto), as gunicorn did: the admin
        pages mark their cookie Secure by it. The client address is never rewritten: the
        endpoints that need it read X-Forwarded-For through `client_ip`, against the same list."""
        client = scope.get("client")
        if client and is_trusted_proxy(client[0], self.settings.trusted_proxies):
            for name, value in scope["headers"]:
                if name == b"x-forwarded-proto":
                    if value.strip().lower() == b"https":
                        return {**scope, "scheme": "https"}
                    break
        return scope

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                # The requests are answered by now: the writer finishes what it holds and releases
                # its spool segment, which any other process may then replay.
                await asyncio.get_running_loop().run_in_executor(None, stop_writer, self.settings)
                await send({"type": "lifespan.shutdown.complete"})
                return


app = CollectorFront(flask_app)
