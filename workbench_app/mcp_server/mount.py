"""Mounting the tool server at `/mcp` of the workbench's WSGI app."""
from __future__ import annotations

import threading

from mcp.server.transport_security import TransportSecuritySettings

from workbench_app.mcp_server.authentication import BearerTokenMiddleware
from workbench_app.mcp_server.tools import build_tool_server
from workbench_app.mcp_server.wsgi_bridge import AsgiBridge
from workbench_app.services import WorkbenchServices

PATH = "/mcp"


def tool_server_app(services: WorkbenchServices) -> AsgiBridge:
    server = build_tool_server(services)
    asgi = server.streamable_http_app(
        streamable_http_path=PATH,
        # Stateless, one JSON answer per call: no session to keep in a worker, any worker answers.
        stateless_http=True,
        json_response=True,
        # Every request carries a bearer token, which a page rebinding DNS cannot send, and the
        # workbench may be served under any host name.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return AsgiBridge(BearerTokenMiddleware(asgi, services))


class ToolServerDispatch:
    """WSGI middleware: `/mcp` goes to the tool server, everything else to the Flask app."""

    def __init__(self, flask_wsgi_app, services: WorkbenchServices):
        self.flask_wsgi_app = flask_wsgi_app
        self.services = services
        self._tool_server: AsgiBridge | None = None
        self._lock = threading.Lock()

    def tool_server(self) -> AsgiBridge:
        if self._tool_server is None:
            with self._lock:
                if self._tool_server is None:
                    self._tool_server = tool_server_app(self.services)
        return self._tool_server

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "") in (PATH, PATH + "/"):
            if environ.get("REQUEST_METHOD") == "GET":
                # No standalone event stream: the server is stateless and never calls the client,
                # and an idle stream would hold a worker thread (the MCP spec allows 405 here).
                start_response("405 Method Not Allowed", [("Content-Type", "application/json"), ("Allow", "POST")])
                return [b'{"error": {"code": "method_not_allowed", "message": "Use POST.", "details": {}}}']
            environ = {**environ, "PATH_INFO": PATH}
            return self.tool_server()(environ, start_response)
        return self.flask_wsgi_app(environ, start_response)

    def close(self) -> None:
        if self._tool_server is not None:
            self._tool_server.close()
