"""`POST /collect/server` answered in the event loop of the collector's ASGI server.

The steps are `ServerBatches`' (server_batch.py). The two that read the database (authenticate,
count against the rate limit, look up an idempotency key) run in a thread, so that a slow or
absent database never stalls the loop, except for a key this process has authenticated before
and a request without an Idempotency-Key: its key is checked and counted in the writer's group
query (`begin_cached`). Validation and derivation run in the loop, and the coroutine awaits the
writer's group commit (`BatchWriter.submit_async`) like a beacon does.
"""
from __future__ import annotations

import asyncio
import json
import logging

from collector_app.collect_api.beacon_asgi import read_body, send_answer
from collector_app.collect_api.context import database_unavailable
from collector_app.collect_api.server_batch import (SERVER_BODY_LIMIT, Answer, Batch, ServerBatches,
                                                    payload_too_large)
from collector_app.errors import ApiError, error_document, internal_error
from pipelines.ingest.service import utc_now
from pipelines.ingest.writer import WriterUnavailable

_log = logging.getLogger(__name__)


def json_bytes(document: dict) -> bytes:
    """JSON as the Flask app writes it (sorted keys, compact, ASCII, a final newline): the same
    bytes whichever server answered. ASCII because a refused field's name, quoted in a message, may
    hold a lone surrogate that UTF-8 cannot encode."""
    return (json.dumps(document, separators=(",", ":"), sort_keys=True) + "\n").encode()


class AsgiServerBatch:
    """The ASGI endpoint; `__call__` returns the status it answered (for the access log)."""

    def __init__(self, batches: ServerBatches):
        self.batches = batches

    async def __call__(self, scope, receive, send) -> int:
        authorization = idempotency_key = length = None
        for name, value in scope["headers"]:
            # Names arrive in lower case (ASGI); the first of a repeated header counts, as in Flask.
            if name == b"authorization" and authorization is None:
                authorization = value.decode("latin-1")
            elif name == b"idempotency-key" and idempotency_key is None:
                idempotency_key = value.decode("latin-1")
            elif name == b"content-length" and length is None:
                length = value
        try:
            answer = await self._answer(receive, authorization, idempotency_key, length)
            status, headers, body = answer.status, answer.headers, json_bytes(answer.document)
        except ApiError as error:
            status, headers = error.status, tuple(error.headers.items())
            body = json_bytes(error_document(error.code, error.message, error.details))
        except Exception:
            # Logged without the request: its body or headers hold addresses and a secret.
            _log.exception("unexpected error on a server batch")
            error = internal_error()
            status, headers = error.status, ()
            body = json_bytes(error_document(error.code, error.message))
        await send_answer(send, status, (("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                                         *headers), body)
        return status

    async def _answer(self, receive, authorization: str | None, idempotency_key: str | None,
                      length: bytes | None) -> Answer:
        batches = self.batches
        secret, key_hash = batches.credentials(authorization, idempotency_key)
        body = await read_body(receive, SERVER_BODY_LIMIT, length)
        if body is None:
            raise payload_too_large()
        loop = asyncio.get_running_loop()
        batch = batches.begin_cached(secret, key_hash, body, utc_now())
        if batch is not None:
            answer = await self._stored(batch)
            if answer is not None:
                return answer
            # The writer did not confirm the cached key: the request's own check answers, as before.
        batch = await loop.run_in_executor(None, batches.begin, secret, key_hash, body, utc_now())
        if isinstance(batch, Answer):
            return batch
        return await self._stored(batch)

    async def _stored(self, batch: Batch) -> Answer | None:
        """Validate, derive and write the batch; its answer, or None when the writer did not confirm
        the key of a `begin_cached` batch (nothing written)."""
        batches = self.batches
        rows, response, record = batches.rows(batch)
        outcome = "stored"
        if rows or record or batch.key_check:
            try:
                outcome = await batches.service.store_async(rows, record, key_check=batch.key_check)
            except WriterUnavailable:
                raise database_unavailable() from None
        if outcome == "unchecked":
            return None
        if outcome == "duplicate":
            return await asyncio.get_running_loop().run_in_executor(None, batches.finish, batch, response, outcome)
        return batches.finish(batch, response, outcome)
