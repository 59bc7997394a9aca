"""`POST <collect_path>` answered in the event loop of the collector's ASGI server.

The request is read from the ASGI messages, the rules of `beacon.BeaconRules` decide, and the
coroutine awaits the writer's group commit (`BatchWriter.submit_async`) while the loop serves
the other connections: no thread, no lock, no Flask per beacon. The rare decision that needs the
database (a site config older than its cache, the first beacon of a day) runs in a thread
instead, so that a slow or absent database never stalls the loop.
"""
from __future__ import annotations

import asyncio

from collector_app.collect_api.beacon import (BROWSER_BODY_LIMIT, BeaconRequest, BeaconRules, Decision,
                                              declared_length)
from pipelines.ingest.service import CacheMiss, utc_now
from pipelines.ingest.writer import WriterUnavailable

_START = "http.response.start"
_BODY = "http.response.body"


async def read_body(receive, limit: int, content_length: bytes | None) -> bytes | None:
    """The request body, or None past `limit` bytes: at once when its Content-Length says so
    (nothing is read), else once the bytes read pass it (the rest is left unread)."""
    if declared_length(content_length) > limit:
        return None
    message = await receive()
    body = message.get("body", b"")
    if not message.get("more_body"):
        return body if len(body) <= limit else None
    chunks, size = [body], len(body)
    while message.get("more_body"):
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def send_answer(send, status: int, headers, body: bytes) -> None:
    """The answer as ASGI messages; `headers` are (name, value) pairs of text."""
    await send({"type": _START, "status": status,
                "headers": [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]})
    await send({"type": _BODY, "body": body})


class AsgiBeacon:
    """The ASGI endpoint of the beacon; `__call__` returns the status it answered (for the access log)."""

    def __init__(self, rules: BeaconRules):
        self.rules = rules

    async def __call__(self, scope, receive, send) -> int:
        origin = user_agent = forwarded_for = length = None
        for name, value in scope["headers"]:
            # Names arrive in lower case (ASGI); the four the rules read.
            if name == b"origin":
                origin = value.decode("latin-1")
            elif name == b"user-agent":
                user_agent = value.decode("latin-1")
            elif name == b"x-forwarded-for":
                forwarded_for = value.decode("latin-1")
            elif name == b"content-length":
                length = value
        body = await read_body(receive, BROWSER_BODY_LIMIT, length)
        client = scope.get("client")
        request = BeaconRequest(body, origin, user_agent, client[0] if client else None, forwarded_for)
        rules = self.rules
        now = utc_now()
        try:
            decision = rules.decide(request, now, may_block=False)
        except CacheMiss:
            decision = await asyncio.get_running_loop().run_in_executor(None, rules.decide, request, now)
        status, headers, body = rules.answer(decision, await self._write(decision))
        await send_answer(send, status, headers, body)
        return status

    async def _write(self, decision: Decision) -> bool:
        if not decision.writes:
            return True
        try:
            await self.rules.service.store_async(decision.rows or [], rejections=decision.rejections)
        except WriterUnavailable:
            return False
        return True
