"""The MCP server's stdio transport: every line read gets a JSON-RPC 2.0 answer.

The SDK's own stdio transport hands a line it cannot parse to the server as an
exception, and the server drops it: a client that sent broken JSON, a wrong
``jsonrpc`` version or a numeric method waits for ever. Here each line is screened
first (JSON-RPC 2.0 §4–5): a parse error is answered -32700, an invalid request
-32600, invalid params -32602 with this server's own message in ``data``, a request
before ``initialize`` -32002; only well-formed messages reach the SDK. Notifications
and responses are never answered (§4.1), so a malformed one is reported on stderr. This
server's own requests carry integer ids, so a response whose id is a string answers none of
them and is dropped, where the SDK would match ``"22"`` to request 22.

A client that stops reading (its end of stdout closed, EPIPE) ends the server: one line on
stderr, and the server stops as if stdin had closed (exit status 0). When stdin closes, the
requests already read are answered before the server leaves; a question the server was
asking the client (an approval by elicitation) fails, so the edit waiting on it is refused.

While serving, file descriptor 1 points at stderr, so nothing but JSON-RPC can reach
the client's stdout.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import methods as spec_methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from sim.server.validation import describe_name, describe_value, is_unicode_text

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NOT_INITIALIZED = -32002
"""JSON-RPC leaves -32000 to -32099 to servers; LSP's 'server not initialized' is this one."""
MAX_LINE_BYTES = 16 * 2**20
ID_SCAN_BYTES = 2**16
"""How much of a line over MAX_LINE_BYTES is searched for the id its top level holds."""
MAX_DEPTH = 64
"""Deepest nesting a message may have: MCP's own messages need about ten levels."""
MODERN_ENVELOPE_KEY = types.PROTOCOL_VERSION_META_KEY
_NO_INIT_NEEDED = frozenset({"initialize", "ping"})
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""The JSON escape of a UTF-16 surrogate (\\uD800 to \\uDFFF), in any case."""

ToolCallCheck = Callable[[Any, Any], dict[str, Any] | None]
"""(name, arguments) -> this server's refusal of a tools/call whose params are not a name
and an argument object, or None when they are."""


@dataclass(frozen=True, slots=True)
class Forward:
    message: SessionMessage
    parsed: dict[str, Any] | None = None
    """The JSON object the message was validated from (None: one made here), which HTTP
    encodes again for the SDK at a fraction of a model dump's cost."""


@dataclass(frozen=True, slots=True)
class Answer:
    reply: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Drop:
    why: str


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": err}


def _depth(value: Any) -> int:
    """Nesting depth, without recursion (a hostile message may nest thousands deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


_SCALAR = json.JSONDecoder()
_STRUCTURE = re.compile(r'"|[\[\]{}]+')
"""A string's opening quote, or a run of brackets (a hostile line is mostly brackets)."""
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_COLON = re.compile(r"[ \t\r\n]*:[ \t\r\n]*")


def _top_level_id(text: str) -> Any:
    """The id of an object nested too deep for the parser, read where it stands: a scan of
    its strings and brackets (no recursion), so the refusal reaches the request it answers.
    None if the top level holds no id that is a string or an integer."""
    depth, at = 0, 0
    while found := _STRUCTURE.search(text, at):
        at, run = found.start(), found.group()
        if run != '"':
            depth += run.count("[") + run.count("{") - run.count("]") - run.count("}")
            at = found.end()
            continue
        if depth != 1:  # a string below the top level: skipped, never decoded
            string = _STRING.match(text, at)
            if string is None:
                return None
            at = string.end()
            continue
        try:
            key, at = _SCALAR.raw_decode(text, at)  # a string: no recursion
        except json.JSONDecodeError:
            return None
        colon = _COLON.match(text, at) if key == "id" else None
        if colon is not None:
            if text[colon.end() : colon.end() + 1] in ("[", "{", ""):
                return None
            try:
                value, _ = _SCALAR.raw_decode(text, colon.end())  # a scalar: no recursion
            except json.JSONDecodeError:
                return None
            return value if _valid_id(value) else None
    return None


def _valid_id(value: Any) -> bool:
    """A request id JSON-RPC allows here: an integer (no boolean) or a Unicode string."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and is_unicode_text(value)
    )


def _lone_surrogate_at(value: Any, path: str = "") -> str | None:
    """Where a string (key or value) holds a lone surrogate, or None."""
    stack = [(value, path)]
    while stack:
        v, p = stack.pop()
        if isinstance(v, str) and not is_unicode_text(v):
            return p or "the message"
        if isinstance(v, dict):
            for k, x in v.items():
                if not is_unicode_text(k):
                    return f"a key of {p or 'the message'}"
                stack.append((x, f"{p}.{k}" if p else k))
        elif isinstance(v, list):
            stack.extend((x, f"{p}[{i}]") for i, x in enumerate(v))
    return None


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


class Screen:
    """Classifies each line: forward it to the SDK, answer it here, or drop it (with why)."""

    def __init__(
        self,
        check_tool_call: ToolCallCheck,
        era: str | None = None,
        initialized: bool = False,
        version: str = LATEST_HANDSHAKE_VERSION,
        unit: str = "line",
    ) -> None:
        """`era`, `initialized` and `version` are known beforehand to a transport that
        screens one message of a session at a time (HTTP); stdio learns them as it reads.
        `unit` is what carries one message on the transport, for the refusals to name."""
        self._check_tool_call = check_tool_call
        self._unit = unit
        self._era = era  # None: decided by the first request, as the SDK does
        self._version = version
        self._initialized = initialized

    def __call__(self, line: bytes) -> Forward | Answer | Drop | None:
        if not line.strip():
            return None  # blank lines frame nothing
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return Answer(
                error_reply(None, PARSE_ERROR, f"Parse error: byte {e.start} is not UTF-8.")
            )
        try:
            msg = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            return Answer(
                error_reply(
                    _top_level_id(text),
                    INVALID_REQUEST,
                    f"Invalid Request: nested over {MAX_DEPTH} deep.",
                )
            )
        except json.JSONDecodeError as e:
            return Answer(
                error_reply(
                    None,
                    PARSE_ERROR,
                    f"Parse error: {e.msg} (character {e.pos}); send one JSON-RPC 2.0 object "
                    f"per {self._unit}.",
                )
            )
        except ValueError as e:  # NaN and Infinity, which Python reads but JSON has not
            return Answer(error_reply(None, PARSE_ERROR, f"Parse error: {e}."))
        if isinstance(msg, list):
            return Answer(
                error_reply(
                    None,
                    INVALID_REQUEST,
                    "Invalid Request: batches are not part of MCP; send one message per "
                    f"{self._unit}.",
                )
            )
        if not isinstance(msg, dict):
            return Answer(
                error_reply(
                    None,
                    INVALID_REQUEST,
                    f"Invalid Request: a message is a JSON object; received {describe_value(msg)}.",
                )
            )
        # Two walks of the whole message skipped when its text shows they cannot find
        # anything: each level of nesting opens with a bracket, and a lone surrogate can
        # only be written as a \\uD800-\\uDFFF escape (UTF-8 cannot encode one).
        return self._screen_object(
            msg,
            deep=text.count("{") + text.count("[") > MAX_DEPTH,
            escaped=_SURROGATE_ESCAPE.search(text) is not None,
        )

    def _screen_object(
        self, msg: dict[str, Any], deep: bool = True, escaped: bool = True
    ) -> Forward | Answer | Drop:
        has_id = "id" in msg
        rid = msg.get("id")
        id_ok = _valid_id(rid)
        reply_id = rid if id_ok else None

        def invalid(
            why: str, code: int = INVALID_REQUEST, data: Any = None
        ) -> Forward | Answer | Drop:
            if "method" in msg and not has_id:
                return Drop(f"notification dropped: {why}")
            if "method" not in msg and ("result" in msg or "error" in msg):
                if has_id and id_ok:  # the request it answers fails, instead of waiting on
                    return Forward(_malformed_answer(reply_id, why))
                return Drop(f"response dropped: {why}")
            prefix = "Invalid params" if code == INVALID_PARAMS else "Invalid Request"
            return Answer(error_reply(reply_id, code, f"{prefix}: {why}", data))

        if has_id and not id_ok:
            return Answer(
                error_reply(
                    None,
                    INVALID_REQUEST,
                    "Invalid Request: id must be a string or an integer; received "
                    f"{describe_value(rid)}.",
                )
            )
        if "method" not in msg and isinstance(rid, str):
            return Drop(
                f"response dropped: id {describe_value(rid)} is a string, and this server's "
                "requests carry integer ids, so it answers none of them (the SDK would match "
                '"22" to request 22).'
            )
        if msg.get("jsonrpc") != "2.0":
            return invalid(
                f'"jsonrpc" must be "2.0"; received {describe_value(msg.get("jsonrpc"))}.'
            )
        method = msg.get("method")
        if "method" in msg and not isinstance(method, str):
            return invalid(f"method must be a string; received {describe_value(method)}.")
        if deep and _depth(msg) > MAX_DEPTH:
            return invalid(f"nested over {MAX_DEPTH} deep.")
        params = msg.get("params")
        if "params" in msg and not isinstance(params, dict):
            return invalid(
                f"params must be a JSON object; received {describe_value(params)}.", INVALID_PARAMS
            )
        where = (
            None
            if not escaped
            else _lone_surrogate_at(
                {**msg, "params": {k: v for k, v in params.items() if k != "arguments"}}
                if method == "tools/call" and isinstance(params, dict)
                else msg
            )
        )
        if where is not None:
            return invalid(f"{describe_name(where)} holds a lone surrogate, which is not text.")
        if isinstance(method, str) and has_id:
            refusal = self._screen_request(method, params)
            if refusal is not None:
                return invalid(*refusal)
        try:
            parsed = types.jsonrpc_message_adapter.validate_python(msg, by_name=False)
        except (ValidationError, RecursionError) as e:
            return invalid(_first_problem(e))
        return Forward(SessionMessage(parsed), msg)

    def _screen_request(
        self, method: str, params: Mapping[str, Any] | None
    ) -> tuple[str, int, Any] | None:
        if self._era is None:
            meta = params.get("_meta") if params is not None else None
            modern = isinstance(meta, dict) and MODERN_ENVELOPE_KEY in meta
            self._era = "modern" if modern and method != "initialize" else "legacy"
        if method == "tools/call" and params is not None:
            arguments = params.get("arguments")
            refusal = self._check_tool_call(
                params.get("name"), {} if arguments is None else arguments
            )
            if refusal is not None:
                return refusal["message"], INVALID_PARAMS, refusal
            if (problem := _screen_retry(params)) is not None:
                return problem, INVALID_PARAMS, None
        if self._era == "legacy" and method in spec_methods.SPEC_CLIENT_METHODS:
            try:
                spec_methods.validate_client_request(method, self._version, params)
            except ValidationError as e:
                return _first_problem(e), INVALID_PARAMS, None
            except (KeyError, ValueError):
                pass  # not at this version: the SDK answers for its own surface
        if method == "initialize" and isinstance(params, dict):
            self._initialized = True
            asked = params.get("protocolVersion")
            if asked in HANDSHAKE_PROTOCOL_VERSIONS:
                self._version = asked
        elif self._era == "legacy" and not self._initialized and method not in _NO_INIT_NEEDED:
            return (
                f"{method} came before initialize; send initialize first, then "
                "notifications/initialized.",
                NOT_INITIALIZED,
                None,
            )
        return None


MALFORMED_ANSWER = "Malformed answer"


def _malformed_answer(request_id: Any, why: str) -> SessionMessage:
    """A malformed response to one of this server's requests, handed on as an error
    response to it, so the waiting request ends (the gate refuses the edit) instead of
    waiting for ever."""
    error = types.ErrorData(code=INVALID_REQUEST, message=f"{MALFORMED_ANSWER}: {why}")
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


def _screen_retry(params: Mapping[str, Any]) -> str | None:
    """A tools/call retry (2026-07-28 era) whose requestState is no string or whose
    inputResponses is no object is refused in this server's words; an input response that
    is no valid elicitation result is left out, so the tool's gate refuses the call for
    want of an answer (an isError result saying why) instead of the SDK's bare -32602."""
    state = params.get("requestState")
    if state is not None and not isinstance(state, str):
        return (
            "requestState: expected the string this server returned with an input-required "
            f"result; received {describe_value(state)}. Send the call without requestState "
            "to be asked again."
        )
    responses = params.get("inputResponses")
    if responses is None:
        return None
    if not isinstance(responses, dict):
        return (
            "inputResponses: expected an object of answers by input request key; received "
            f"{describe_value(responses)}."
        )
    for key, value in list(responses.items()):
        try:
            types.ElicitResult.model_validate(value, by_name=False)
        except ValidationError:
            del responses[key]
    return None


def _first_problem(e: Exception) -> str:
    if isinstance(e, ValidationError) and e.errors():
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "the message"
        return f"{describe_name(where)}: {describe_name(first['msg'])}."
    return "the message does not have JSON-RPC 2.0's shape."


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
                    await to_server.send(_malformed_answer(request_id, CLOSED_BEFORE_ANSWER))
                if not in_flight:
                    return
                await answered.wait()

    async def reader() -> None:
        async with to_server:
            await read_lines()
            await drain()

    async def read_lines() -> None:
        while line := await readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                while (rest := await readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
                    pass
                head = line[:ID_SCAN_BYTES].decode("utf-8", "replace")
                verdict: Forward | Answer | Drop | None = Answer(
                    error_reply(
                        _top_level_id(head),  # so the request waiting on it ends
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
