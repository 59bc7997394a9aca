"""uvicorn's httptools protocol with gunicorn's limits on request headers, keep-alive
connections that end after MAX_REQUESTS_PER_CONNECTION requests so that they spread over workers,
and a structured 503 past `ANALYTICS_COLLECTOR_CONNECTIONS` (uvicorn's own is plain text).

httptools (llhttp) accepts headers of any size and number, and uvicorn keeps them all in memory:
one client could send an endless header and grow a worker without bound. Gunicorn, which served
the collector before, refused a field over 8,190 bytes and more than 100 fields; the collector
keeps those limits, answered as a structured 431 (the OpenAPI document lists it on every
operation), and bounds what a head may buffer before it is refused.
"""
from __future__ import annotations

import json

import httptools
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from collector_app.errors import error_document

MAX_FIELD_BYTES = 8190  # gunicorn's limit_request_field_size: name, ": " and value
MAX_FIELDS = 100  # gunicorn's limit_request_fields
# Requests one keep-alive connection serves before the answer says `Connection: close` (nginx's
# keepalive_requests). The workers share one listening socket, and whichever loop wakes first
# accepts a burst of new connections: 32 opened at once split 27 to 5 between two workers, and
# stayed so for as long as they lived. A client that reconnects lands on the worker that is
# free to accept, so connections even out across workers.
MAX_REQUESTS_PER_CONNECTION = 1000
# The request line (4,094 bytes, refused with a 414 by collector_app/asgi.py) and every field at
# its limit, with their line ends: what a head may hold, and so what is read before refusing one.
MAX_HEAD_BYTES = 4094 + MAX_FIELDS * (MAX_FIELD_BYTES + 2) + 4
LINGER_SECONDS = 2.0
_OVERLOADED = json.dumps(error_document(
    "overloaded", "The collector is serving as many requests as it can at once; retry in a moment.")).encode()
_TOO_LARGE = json.dumps(error_document(
    "headers_too_large",
    f"The request headers are too large: at most {MAX_FIELDS} fields of {MAX_FIELD_BYTES} bytes each.")).encode()


class HeadersTooLarge(Exception):
    """Raised from a parser callback: httptools stops parsing and hands it back."""


class _Parser:
    """The request parser, but a HeadersTooLarge raised in a callback comes out as itself: httptools
    wraps it in an HttpParserCallbackError, which uvicorn would answer with a plain 400."""

    def __init__(self, parser: httptools.HttpRequestParser):
        self._parser = parser

    def feed_data(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            if isinstance(error.__context__, HeadersTooLarge):
                raise error.__context__ from None
            raise

    def __getattr__(self, name: str):
        return getattr(self._parser, name)


async def _overloaded(scope, receive, send) -> None:
    """uvicorn's answer past `limit_concurrency`, as the structured error every other refusal is."""
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(_OVERLOADED)).encode()),
        (b"retry-after", b"1"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": _OVERLOADED})


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.parser = _Parser(self.parser)
        self._requests = 0
        self._refused = False
        self._head_bytes = 0  # bytes read since the last head ended (the next head's, so far)
        self._in_body = False

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # what the client still sends after the 431 is read and dropped (see _refuse)
        if not self._in_body:
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse()
                return
        try:
            super().data_received(data)
        except HeadersTooLarge:
            self._refuse()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._fields = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > MAX_FIELDS or len(name) + len(value) + 2 > MAX_FIELD_BYTES:
            raise HeadersTooLarge
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_body, self._head_bytes = True, 0
        super().on_headers_complete()
        self._requests += 1
        if self._requests >= MAX_REQUESTS_PER_CONNECTION:
            self.cycle.keep_alive = False

    def on_message_complete(self) -> None:
        self._in_body = False
        super().on_message_complete()

    def _start_asgi_task(self, cycle, app) -> None:
        super()._start_asgi_task(cycle, _overloaded if app is service_unavailable else app)

    def _refuse(self) -> None:
        """Answer 431, then close gently. Closing a socket while the client's bytes are still
        arriving makes the kernel reset the connection, and a reset can destroy the answer before
        the client reads it; so the answer is followed by the end of our side, what the client
        still sends is dropped, and the connection ends when the client closes it (at the latest
        after LINGER_SECONDS)."""
        self._refused = True
        self.transport.write(b"".join([
            b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(_TOO_LARGE)).encode() + b"\r\n",
            b"connection: close\r\n\r\n", _TOO_LARGE]))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

