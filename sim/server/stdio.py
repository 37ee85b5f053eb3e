"""The MCP server's stdio transport: every line read gets a JSON-RPC 2.0 answer.

Each line is screened first (``screen.Screen``): only well-formed messages reach the SDK, a
malformed request is answered here, and a malformed notification or response is reported on
stderr (they are never answered). A line over ``MAX_LINE_BYTES`` is refused without being
parsed, to the id its head holds.

A client that stops reading (its end of stdout closed, EPIPE) ends the server: one line on
stderr, and the server stops as if stdin had closed (exit status 0). When stdin closes, the
requests already read are answered before the server leaves; a question the server was
asking the client (an approval by elicitation) fails, so the edit waiting on it is refused;
a request the client cancelled is not waited for (it is never answered).

While serving, file descriptor 1 points at stderr, so nothing but JSON-RPC can reach
the client's stdout.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
from mcp.shared.message import SessionMessage

from sim.server.jsonrpc import INVALID_REQUEST, error_reply, top_level_id
from sim.server.screen import Answer, Drop, Forward, Screen, ToolCallCheck, malformed_answer

MAX_LINE_BYTES = 16 * 2**20
ID_SCAN_BYTES = 2**16
"""How much of a line over MAX_LINE_BYTES is searched for the id its top level holds."""

CLOSED_BEFORE_ANSWER = "the client closed its input before answering"
DRAIN_TIMEOUT_S = 30.0
"""At the end of stdin, how long requests already read may take to be answered."""


def _request_key(request_id: Any) -> tuple[str, Any]:
    """A request id as JSON tells it apart: 1 and "1" are two requests."""
    return type(request_id).__name__, request_id


def _to_line(payload: dict[str, Any]) -> bytes:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:  # a lone surrogate slipped through: escape, never crash
        return json.dumps(payload, separators=(",", ":")).encode("ascii") + b"\n"


class _PipeSink:
    """Writes to a pipe or socket that a cancellation stops: the file is made non-blocking
    and a full pipe is waited on in the event loop. A blocking write runs in a worker thread,
    which no cancellation can stop, so a client that stopped reading (its pipe full) kept a
    Ctrl-C from ending the server for as long as it did not read."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except BlockingIOError:
                await anyio.wait_writable(self.fd)

    async def flush(self) -> None:
        """Nothing is buffered."""


def _waitable(fd: int) -> bool:
    """A pipe or a socket: the kinds a host connects, which a reader can leave full (a
    terminal or a file is written as it was, blocking)."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@asynccontextmanager
async def screened_stdio(
    check_tool_call: ToolCallCheck, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams a low-level SDK server runs on, over screened stdio."""
    wire = None
    if stdout is None:
        wire = os.dup(1)
        os.dup2(2, 1)  # stray prints go to stderr, never into the protocol
        stdout = os.fdopen(wire, "wb", buffering=0, closefd=False)

    source = stdin if stdin is not None else sys.stdin.buffer
    pipe = wire if wire is not None and _waitable(wire) else None
    if pipe is not None:
        os.set_blocking(pipe, False)  # the dup shares the flag with fd 1: restored below
    sink: Any = _PipeSink(pipe) if pipe is not None else anyio.wrap_file(stdout)
    lock = anyio.Lock()
    screen = Screen(check_tool_call)
    to_server, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_server = anyio.create_memory_object_stream[SessionMessage](0)

    stopping = anyio.CancelScope()

    async def send(line: bytes) -> None:
        async with lock:
            if stopping.cancel_called:
                return
            try:
                await sink.write(line)
                await sink.flush()
            except OSError as e:  # the client closed its end: nobody to answer, so stop
                print(
                    f"stdio: the client stopped reading answers ({e.strerror or e}); the "
                    "server stops.",
                    file=sys.stderr,
                    flush=True,
                )
                stopping.cancel()

    async def readline(limit: int) -> bytes:
        return await anyio.to_thread.run_sync(source.readline, limit, abandon_on_cancel=True)

    in_flight: set[tuple[str, Any]] = set()  # the client's requests handed to the server
    asking: set[Any] = set()  # the server's requests to the client (elicitation) unanswered
    answered = anyio.Event()

    async def drain() -> None:
        """At the end of stdin the requests already handed on are still answered (the SDK
        would cancel their handlers once the read stream closes): a question the server is
        waiting on can no longer be answered, so it fails (the gate refuses that edit, with
        an isError result); at most DRAIN_TIMEOUT_S."""
        nonlocal answered
        with anyio.move_on_after(DRAIN_TIMEOUT_S):
            while True:
                answered = anyio.Event()  # before anything else, so no answer goes unseen
                for request_id in list(asking):
                    asking.discard(request_id)
                    await to_server.send(malformed_answer(request_id, CLOSED_BEFORE_ANSWER))
                if not in_flight:
                    return
                await answered.wait()

    async def reader() -> None:
        async with to_server:
            await read_lines()
            await drain()

    def forget_cancelled(note: types.JSONRPCNotification) -> None:
        """A request the client cancelled is never answered (the SDK drops its result), so
        the end of stdin must not wait for it: it waited DRAIN_TIMEOUT_S, and a host that
        gave up on an approval and closed the pipe saw a server that would not leave. The
        SDK's own rules say which request a cancel names ("7" and 7 are one)."""
        if note.method != "notifications/cancelled":
            return
        named = cancelled_request_id_from_params(note.params)
        if named is not None:
            same = coerce_request_id(named)
            in_flight.difference_update(
                [key for key in in_flight if coerce_request_id(key[1]) == same]
            )

    async def read_lines() -> None:
        while line := await readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while (rest := await readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    pass
                head = line[:ID_SCAN_BYTES].decode("utf-8", "replace")
                verdict: Forward | Answer | Drop | None = Answer(
                    error_reply(
                        top_level_id(head),  # so the request waiting on it ends
                        INVALID_REQUEST,
                        f"Invalid Request: over {MAX_LINE_BYTES} bytes.",
                    )
                )
            else:
                verdict = screen(line)
            match verdict:
                case Forward(message=m):
                    if isinstance(m.message, types.JSONRPCRequest):
                        in_flight.add(_request_key(m.message.id))
                    elif isinstance(m.message, types.JSONRPCResponse | types.JSONRPCError):
                        asking.discard(m.message.id)
                    elif isinstance(m.message, types.JSONRPCNotification):
                        forget_cancelled(m.message)
                    await to_server.send(m)
                case Answer(reply=r):
                    await send(_to_line(r))
                case Drop(why=why):
                    print(f"stdio: {why}", file=sys.stderr)

    async def writer() -> None:
        async with from_server:
            async for m in from_server:
                payload = m.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                if isinstance(m.message, types.JSONRPCRequest):
                    asking.add(m.message.id)  # before the line: its answer may come at once
                await send(_to_line(payload))
                if isinstance(m.message, types.JSONRPCResponse | types.JSONRPCError):
                    in_flight.discard(_request_key(m.message.id))  # once it is written
                answered.set()  # drain looks again: a request answered, or a question asked

    try:
        with stopping:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                tg.start_soon(writer)
                yield read_stream, write_stream
    finally:
        if wire is not None:
            if pipe is not None:
                os.set_blocking(pipe, True)
            os.dup2(wire, 1)
            os.close(wire)
