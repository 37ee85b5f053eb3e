"""The KB's four tools over real MCP (the official `mcp` SDK, 2.x).

One MCP server per client session: the session holds the grants, the server only
carries the protocol. Tool results go out as the in-process text (sentence first)
plus the structured content its ``outputSchema`` describes; refusals as ``isError``
results with the in-process messages; the instructions name the granted KBs.

``McpBridge`` lets synchronous code (the SimPy model) call the tools through an
MCP client: an event loop in a background thread keeps one connected client per
session and answers each call over the protocol.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server import Server

from sim.kb.listing import instructions
from sim.kb.tools import KBServer, Session, ToolResult, shape_refusal

SERVER_NAME = "stale-citations-kb"


def mcp_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name=t["name"],
            description=t["description"],
            inputSchema=t["inputSchema"],
            outputSchema=t["outputSchema"],
            annotations=types.ToolAnnotations(**t["annotations"]),
        )
        for t in KBServer.list_tools()
    ]


def tools_call_refusal(name: Any, arguments: Any) -> dict[str, Any] | None:
    """A tools/call whose name is no string or whose arguments are no object: the stdio
    transport answers it as JSON-RPC invalid params, with this refusal as the data."""
    if isinstance(name, str) and isinstance(arguments, dict):
        return None
    refusal = shape_refusal(name, arguments)
    return None if refusal is None else refusal.structured


def to_call_result(result: ToolResult) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=result.text)],
        structuredContent=result.structured,
        isError=result.is_error,
    )


def build_server(session: Session) -> Server[Any]:
    tools = mcp_tools()

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = {} if params.arguments is None else params.arguments
        return to_call_result(session.call(params.name, arguments))

    return Server(
        SERVER_NAME,
        instructions=instructions(session.grants),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def from_call_result(result: types.CallToolResult) -> ToolResult:
    text = result.content[0].text  # type: ignore[union-attr]
    return ToolResult(result.structured_content or {}, text, bool(result.is_error))


class McpSession:
    """A session whose every call crosses the MCP protocol (JSON-RPC handshake era)."""

    def __init__(self, bridge: McpBridge, session: Session) -> None:
        self.client_id = session.client_id
        self._bridge = bridge
        self._queue: asyncio.Queue[tuple[str, Any, concurrent.futures.Future] | None] = (
            asyncio.Queue()
        )
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        bridge.start(self._serve(session, ready))
        ready.result()

    async def _serve(self, session: Session, ready: concurrent.futures.Future[None]) -> None:
        try:
            async with Client(build_server(session), mode="legacy") as client:
                ready.set_result(None)
                while (item := await self._queue.get()) is not None:
                    name, arguments, done = item
                    try:
                        done.set_result(await client.call_tool(name, arguments))
                    except Exception as e:
                        done.set_exception(e)
        except Exception as e:
            if not ready.done():
                ready.set_exception(e)
            raise

    def call(self, name: str, arguments: Any) -> ToolResult:
        done: concurrent.futures.Future[types.CallToolResult] = concurrent.futures.Future()
        self._bridge.loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, done))
        return from_call_result(done.result())

    def close(self) -> None:
        self._bridge.loop.call_soon_threadsafe(self._queue.put_nowait, None)


class McpBridge:
    """An event loop in a daemon thread, holding the MCP clients of one simulated day."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.tasks: list[asyncio.Task] = []
        self.sessions: list[McpSession] = []
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def start(self, coro: Any) -> None:
        """Start a long-lived task on the loop (a client must be entered and left in one task)."""
        self.loop.call_soon_threadsafe(lambda: self.tasks.append(self.loop.create_task(coro)))

    def wrap(self, session: Session) -> McpSession:
        s = McpSession(self, session)
        self.sessions.append(s)
        return s

    def close(self) -> None:
        for s in self.sessions:
            s.close()

        async def drain() -> None:
            await asyncio.gather(*self.tasks, return_exceptions=True)

        self.run(drain())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
