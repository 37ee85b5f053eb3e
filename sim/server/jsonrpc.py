"""A JSON-RPC 2.0 message as text: the error codes, the error reply, and what a message
holds, read without recursion (a hostile message may nest thousands deep).

Both transports (stdio's lines, HTTP's bodies) screen with these before the SDK sees a
message: its nesting depth, the id at its top level when it is too deep to parse (so the
refusal still reaches the request it answers), and where a string holds a lone surrogate.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sim.server.describe import is_unicode_text

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NOT_INITIALIZED = -32002
"""JSON-RPC leaves -32000 to -32099 to servers; LSP's 'server not initialized' is this one."""
MAX_DEPTH = 64
"""Deepest nesting a message may have: MCP's own messages need about ten levels."""


def error_reply(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": err}


def nesting_depth(value: Any) -> int:
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


def top_level_id(text: str) -> Any:
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
            return value if valid_id(value) else None
    return None


def valid_id(value: Any) -> bool:
    """A request id JSON-RPC allows here: an integer (no boolean) or a Unicode string."""
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, str) and is_unicode_text(value)
    )


def lone_surrogate_at(value: Any, path: str = "") -> str | None:
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
