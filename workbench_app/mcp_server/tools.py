"""The agent tool server: the workbench's reading tools, each run under the API token owner's rights.

The tools themselves are `workbench_app.agent_tools.reading_tools` (shared with the AI assistant). Here each is
published under its own name, description and argument schema, acting as the person whose token
authenticated the HTTP request (put in the request state by `authentication.BearerTokenMiddleware`).
Refusals come back as tool errors with the same messages as the API.
"""
from __future__ import annotations

import functools
import inspect
import typing
from typing import Any, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from workbench_app.accounts.identity import Identity
from workbench_app.agent_tools import reading_tools
from workbench_app.agent_tools.reading_tools import ToolCaller
from workbench_app.errors import WorkbenchError
from workbench_app.services import WorkbenchServices
from workbench_app.subscriptions import agent_tools as subscription_tools

ORIGIN = "tool_server"


def caller(ctx: Context) -> Identity:
    identity = getattr(ctx.request_context.request.state, "workbench_identity", None)
    if identity is None:  # the middleware refuses unauthenticated requests before this point
        raise ToolError("Not authenticated.")
    return identity


def _published(services: WorkbenchServices, tool: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """`tool` with its `caller` parameter replaced by the MCP request context, signature kept.

    The SDK reads the argument schema from the signature and type hints, so both are rewritten
    explicitly: the published arguments are exactly the shared tool's.
    """
    @functools.wraps(tool)
    def published(ctx: Context, **arguments):
        try:
            return tool(ToolCaller(services, caller(ctx), ORIGIN), **arguments)
        except WorkbenchError as error:
            raise ToolError(f"{error.code}: {error.message}") from None

    signature = inspect.signature(tool)
    hints = typing.get_type_hints(tool)
    parameters = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)]
    parameters += [parameter.replace(annotation=hints[name], kind=inspect.Parameter.KEYWORD_ONLY)
                   for name, parameter in signature.parameters.items() if name != "caller"]
    published.__signature__ = signature.replace(parameters=parameters, return_annotation=hints["return"])
    published.__annotations__ = {**{name: hints[name] for name in signature.parameters if name != "caller"},
                                 "ctx": Context, "return": hints["return"]}
    del published.__wrapped__  # inspection must stop at the rewritten signature
    return published


def build_tool_server(services: WorkbenchServices) -> MCPServer:
    """The MCP server with the workbench's tools bound to one worker's services."""
    server = MCPServer("audience-analytics-workbench", version="1.0.0",
                       instructions="The audience analytics workbench under your own permissions: explore the "
                                    "schema, run SQL (DuckDB dialect), metrics, saved questions and dashboards, "
                                    "draw charts; list and create subscriptions and alerts (the only tools that "
                                    "change anything).")
    for name, tool in {**reading_tools.TOOLS, **subscription_tools.TOOLS}.items():
        server.add_tool(_published(services, tool), name=name, description=tool.__doc__)
    return server
