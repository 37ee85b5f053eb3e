"""The KB's four tools over real MCP (the official `mcp` SDK, 2.x).

One MCP server per client session: the session holds the grants, the server only
carries the protocol. Tool results go out as the in-process text (sentence first)
plus the structured content its ``outputSchema`` describes (success or refusal); refusals
as ``isError`` results with the in-process messages; the instructions name the granted KBs.
With the write gate on, an edit's approval is asked for first (``elicit.py``); the
articles as resources, and their subscriptions, are ``mcp_resources.py``'s.

``McpBridge`` lets synchronous code (the SimPy model) call the tools through an
MCP client: an event loop in a background thread keeps one connected client per
session and answers each call over the protocol.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import importlib.metadata
import sqlite3
import threading
import warnings
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from sim.server import resources
from sim.server.edit import EDIT_TOOL, Gate
from sim.server.elicit import Asking, approve_edit
from sim.server.listing import instructions
from sim.server.mcp_resources import DELIVERY_TIMEOUT_S, resource_handlers
from sim.server.methods import name_the_methods
from sim.server.results import Reply
from sim.server.tools import KBServer, Session, ToolResult, shape_refusal

SERVER_NAME = "stale-citations-kb"
PACKAGE = "stale-citations-sim"


@functools.cache  # the same four tools for every session: built once (a few ms each time)
def mcp_tools() -> tuple[types.Tool, ...]:
    return tuple(
        types.Tool(
            name=t["name"],
            description=t["description"],
            input_schema=t["inputSchema"],
            output_schema=t["outputSchema"],
            annotations=types.ToolAnnotations.model_validate(t["annotations"]),
        )
        for t in KBServer.list_tools()
    )


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
        structured_content=result.structured,
        is_error=result.is_error,
    )


ELICITATION_GATE = Gate(
    "This server asks your user to approve each write with elicitation/create; a client "
    "without the elicitation capability cannot be asked. Send the call again to be asked "
    "again: an approval covers one call, never a session."
)


@functools.cache  # read from the installed metadata once, not for every session's server
def package_version() -> str:
    """serverInfo.version: this package's installed version."""
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:  # run from a checkout never installed
        return "0+unknown"


class KBMcpServer(Server[Any]):
    """The SDK's server, advertising the same capabilities in both protocol eras: the tool
    list never changes and no resources/list_changed is sent, so listChanged is false in
    both (the SDK derives it from the listen handler in the 2026-07-28 era). A method it
    does not answer is refused naming those it does (``methods.py``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.middleware.append(name_the_methods(self))

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        caps = super().get_capabilities(*args, **kwargs)
        if caps.tools is not None:
            caps.tools.list_changed = False
        if caps.resources is not None:
            caps.resources.list_changed = False
        return caps


def build_server(session: Session) -> Server[Any]:
    tools = mcp_tools()

    async def on_list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(tools))

    asking = Asking()

    async def on_call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        arguments = {} if params.arguments is None else params.arguments
        why = ""
        if params.name == EDIT_TOOL and session.gate is not None:
            try:
                outcome = await approve_edit(ctx, session, asking, params, arguments)
            except sqlite3.Error as e:  # the KB file failed while asking: nothing was written
                refusal = session.store_refusal(e)
                return to_call_result(session.refuse(params.name, arguments, refusal))
            if isinstance(outcome, types.InputRequiredResult):
                return outcome
            if isinstance(outcome, Reply):
                return to_call_result(session.refuse(params.name, arguments, outcome))
            why = outcome
        return to_call_result(session.call(params.name, arguments, why))

    return KBMcpServer(
        SERVER_NAME,
        version=package_version(),
        instructions=instructions(session.grants),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        **resource_handlers(session),
    )


def from_call_result(result: types.CallToolResult) -> ToolResult:
    first = result.content[0]
    if not isinstance(first, types.TextContent):  # this server's results lead with their text
        raise TypeError(f"tool result: expected text content first; received {first.type}")
    return ToolResult(result.structured_content or {}, first.text, bool(result.is_error))


class McpSession:
    """A session whose every call crosses the MCP protocol (JSON-RPC handshake era)."""

    def __init__(self, bridge: McpBridge, session: Session) -> None:
        self.client_id = session.client_id
        self._server_session = session
        self._listeners: list[resources.Listener] = []
        self._delivered = threading.Semaphore(0)
        self._bridge = bridge
        self._queue: asyncio.Queue[tuple[str, Any, concurrent.futures.Future] | None] = (
            asyncio.Queue()
        )
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        bridge.start(self._serve(session, ready))
        ready.result()

    async def _serve(self, session: Session, ready: concurrent.futures.Future[None]) -> None:
        try:
            async with Client(
                build_server(session), mode="legacy", message_handler=self._received
            ) as client:
                ready.set_result(None)
                while (item := await self._queue.get()) is not None:
                    name, arguments, done = item
                    try:
                        done.set_result(await self._request(client, name, arguments))
                    except Exception as e:
                        done.set_exception(e)
        except Exception as e:
            if not ready.done():
                ready.set_exception(e)
            raise

    @staticmethod
    async def _request(client: Client, name: str, arguments: Any) -> Any:
        if name in (resources.SUBSCRIBE, resources.UNSUBSCRIBE):
            with warnings.catch_warnings():  # deprecated for 2026-07-28; this is the handshake era
                warnings.simplefilter("ignore")
                method = (
                    client.subscribe_resource
                    if name == resources.SUBSCRIBE
                    else client.unsubscribe_resource
                )
                try:
                    await method(arguments)
                except MCPError as e:
                    return ToolResult(e.error.data or {}, e.message, True)
            return ToolResult({}, "", False)
        return from_call_result(await client.call_tool(name, arguments))

    async def _received(self, message: Any) -> None:
        """The client's side: hand each resource notification on, then let the simulation's
        thread (waiting in _await_delivery) go on."""
        if isinstance(message, types.ResourceUpdatedNotification):
            for listener in self._listeners:
                listener(message.params.uri)
            self._delivered.release()

    def _await_delivery(self, _uri: str) -> None:
        """Server side, after the notification is sent: the change was committed on the
        simulation's thread, which waits until the client has it, so a day over MCP keeps
        the order of a direct one."""
        if threading.current_thread() is self._bridge.thread:
            return
        if not self._delivered.acquire(timeout=DELIVERY_TIMEOUT_S):
            raise RuntimeError(f"{self.client_id}: a resource notification was not delivered")

    def _send(self, name: str, arguments: Any) -> ToolResult:
        done: concurrent.futures.Future[ToolResult] = concurrent.futures.Future()
        self._bridge.loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, done))
        return done.result()

    def call(self, name: str, arguments: Any) -> ToolResult:
        return self._send(name, arguments)

    def subscribe(self, uri: Any) -> ToolResult:
        return self._send(resources.SUBSCRIBE, uri)

    def unsubscribe(self, uri: Any) -> ToolResult:
        return self._send(resources.UNSUBSCRIBE, uri)

    def on_notification(self, listener: resources.Listener) -> None:
        if not self._listeners:
            self._server_session.on_notification(self._await_delivery)
        self._listeners.append(listener)

    def close(self) -> None:
        self._bridge.loop.call_soon_threadsafe(self._queue.put_nowait, None)


class McpBridge:
    """An event loop in a daemon thread, holding the MCP clients of one simulated day."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.tasks: list[asyncio.Task] = []
        self.sessions: list[McpSession] = []
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

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
        self.thread.join()
        self.loop.close()
