"""Each JSON-RPC message screened before the SDK sees it: forward it, answer it, or drop it.

The SDK hands a message it cannot parse to the server as an exception, and the server drops
it: a client that sent broken JSON, a wrong ``jsonrpc`` version or a numeric method waits for
ever. ``Screen`` reads one message (a stdio line, an HTTP body) as JSON-RPC 2.0 §4–5 has it:
a parse error is answered -32700, an invalid request -32600, invalid params -32602 with this
server's own message in ``data``, a request before ``initialize`` -32002; only well-formed
messages reach the SDK. Notifications and responses are never answered (§4.1), so a malformed
one is dropped with the reason. This server's own requests carry integer ids, so a response
whose id is a string answers none of them and is dropped, where the SDK would match ``"22"``
to request 22.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import methods as spec_methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from sim.server.describe import describe_name, describe_value
from sim.server.jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_DEPTH,
    NOT_INITIALIZED,
    PARSE_ERROR,
    error_reply,
    lone_surrogate_at,
    nesting_depth,
    top_level_id,
    valid_id,
)

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
                    top_level_id(text),
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
        id_ok = valid_id(rid)
        reply_id = rid if id_ok else None

        def invalid(
            why: str, code: int = INVALID_REQUEST, data: Any = None
        ) -> Forward | Answer | Drop:
            if "method" in msg and not has_id:
                return Drop(f"notification dropped: {why}")
            if "method" not in msg and ("result" in msg or "error" in msg):
                if has_id and id_ok:  # the request it answers fails, instead of waiting on
                    return Forward(malformed_answer(reply_id, why))
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
        if deep and nesting_depth(msg) > MAX_DEPTH:
            return invalid(f"nested over {MAX_DEPTH} deep.")
        params = msg.get("params")
        if "params" in msg and not isinstance(params, dict):
            return invalid(
                f"params must be a JSON object; received {describe_value(params)}.", INVALID_PARAMS
            )
        where = (
            None
            if not escaped
            else lone_surrogate_at(
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


def malformed_answer(request_id: Any, why: str) -> SessionMessage:
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
