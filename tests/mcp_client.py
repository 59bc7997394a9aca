"""The MCP SDK's own client over real HTTP, for tests that call the agent tool server with a token."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def _session_calls(url: str, token: str, calls: list[tuple[str, dict]]):
    """Open an MCP session with the token and make the calls; returns (tool names, results)."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}
                results = []
                for name, arguments in calls:
                    results.append(await session.call_tool(name, arguments))
                return tools, results


def run_async(function, *args):
    """Run an async client in a thread of its own: another suite's session fixture (Playwright's
    sync API) may keep an event loop running in the main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()


def call_tools(url: str, token: str, calls: list[tuple[str, dict]]):
    return run_async(_session_calls, url, token, calls)


def payload(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def error_text(result) -> str:
    assert result.is_error
    return result.content[0].text
