"""Bearer API tokens on the tool server: the same tokens, and the same checks, as `/api/v1`."""
from __future__ import annotations

import json

import anyio.to_thread

from workbench_app.api.authentication import authenticate_bearer
from workbench_app.errors import WorkbenchError
from workbench_app.services import WorkbenchServices


class BearerTokenMiddleware:
    """ASGI middleware: authenticate every HTTP request, put the identity in the request state.

    The token is checked on every request (not once per MCP session), so a revoked token stops
    working at its next call.
    """

    def __init__(self, app, services: WorkbenchServices):
        self.app = app
        self.services = services

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = next((value.decode("latin-1") for name, value in scope.get("headers", [])
                       if name.lower() == b"authorization"), None)
        try:
            identity = await anyio.to_thread.run_sync(authenticate_bearer, self.services, header)
        except WorkbenchError as error:
            body = json.dumps({"error": error.as_dict()}).encode()
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            if error.status == 401:
                headers.append((b"www-authenticate", b'Bearer realm="workbench"'))
            await send({"type": "http.response.start", "status": error.status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})["workbench_identity"] = identity
        await self.app(scope, receive, send)
