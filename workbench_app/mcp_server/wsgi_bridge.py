"""Serving the MCP SDK's ASGI app from the workbench's WSGI app (gunicorn sync workers).

Each worker runs one asyncio event loop in a background thread, started on the first tool
server request (after gunicorn forks), with the ASGI app's lifespan (the SDK's session manager)
running in it. A WSGI request is handed to that loop; the response is streamed back as it comes.
The tool server is stateless (one JSON answer per POST), so a request occupies a worker only for
the time of its call.
"""
from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable, Iterable

MAX_BODY_BYTES = 4_000_000
_RESPONSE_TIMEOUT_SECONDS = 300


class AsgiBridge:
    """A WSGI application that runs an ASGI application in a per-process event loop."""

    def __init__(self, asgi_app: Callable[..., Any]):
        self.asgi_app = asgi_app
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._stop: asyncio.Event | None = None

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is not None:
                return self._loop
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="mcp-event-loop", daemon=True).start()
            started = asyncio.run_coroutine_threadsafe(self._run_lifespan(), loop)
            started.result(timeout=30)
            self._loop = loop
            return loop

    async def _run_lifespan(self) -> None:
        self._stop = asyncio.Event()
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        messages = [{"type": "lifespan.startup"}]

        async def receive():
            if messages:
                return messages.pop(0)
            await self._stop.wait()
            return {"type": "lifespan.shutdown"}

        async def send(message):
            if message["type"] == "lifespan.startup.complete" and not ready.done():
                ready.set_result(None)
            elif message["type"] == "lifespan.startup.failed" and not ready.done():
                ready.set_exception(RuntimeError(message.get("message", "tool server startup failed")))

        asyncio.get_running_loop().create_task(
            self.asgi_app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send))
        await ready

    def close(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)

    def __call__(self, environ: dict, start_response) -> Iterable[bytes]:
        loop = self._start()
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > MAX_BODY_BYTES:
            start_response("413 Request Entity Too Large", [("Content-Type", "application/json")])
            return [b'{"error": {"code": "payload_too_large", "message": "The request body is too large.", "details": {}}}']
        body = environ["wsgi.input"].read(length) if length else b""
        scope = _scope(environ)
        responses: queue.Queue = queue.Queue()
        finished = threading.Event()
        done = object()

        body_sent: list[bool] = []

        async def receive():
            if not body_sent:
                body_sent.append(True)
                return {"type": "http.request", "body": body, "more_body": False}
            while not finished.is_set():
                await asyncio.sleep(0.05)
            return {"type": "http.disconnect"}

        async def send(message):
            responses.put(message)

        future = asyncio.run_coroutine_threadsafe(self.asgi_app(scope, receive, send), loop)
        future.add_done_callback(lambda _: responses.put(done))
        first = responses.get(timeout=_RESPONSE_TIMEOUT_SECONDS)
        if first is done or first["type"] != "http.response.start":
            finished.set()
            start_response("500 Internal Server Error", [("Content-Type", "application/json")])
            return [b'{"error": {"code": "internal_error", "message": "The tool server failed.", "details": {}}}']
        headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in first.get("headers", [])]
        start_response(f"{first['status']} {_REASONS.get(first['status'], 'Status')}", headers)
        return _body_chunks(responses, done, finished)


def _body_chunks(responses: queue.Queue, done: object, finished: threading.Event):
    try:
        while True:
            message = responses.get(timeout=_RESPONSE_TIMEOUT_SECONDS)
            if message is done:
                return
            if message["type"] == "http.response.body":
                if message.get("body"):
                    yield message["body"]
                if not message.get("more_body", False):
                    return
    finally:
        finished.set()


def _scope(environ: dict) -> dict:
    headers = []
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers.append((key[5:].replace("_", "-").lower().encode("latin-1"), value.encode("latin-1")))
    if environ.get("CONTENT_TYPE"):
        headers.append((b"content-type", environ["CONTENT_TYPE"].encode("latin-1")))
    if environ.get("CONTENT_LENGTH"):
        headers.append((b"content-length", environ["CONTENT_LENGTH"].encode("latin-1")))
    server = (environ.get("SERVER_NAME", "localhost"), int(environ.get("SERVER_PORT") or 80))
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
        "method": environ["REQUEST_METHOD"], "scheme": environ.get("wsgi.url_scheme", "http"),
        "path": environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""), "raw_path": None,
        "root_path": "", "query_string": environ.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers, "server": server, "client": None, "state": {},
    }


_REASONS = {200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            413: "Request Entity Too Large", 415: "Unsupported Media Type", 421: "Misdirected Request",
            500: "Internal Server Error", 503: "Service Unavailable"}
