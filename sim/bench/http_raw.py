"""A bare streamable-HTTP client (httpx2, the SDK's own HTTP library) for the tests' hostile
requests and the bench's load: one POST per JSON-RPC message, an SSE or JSON answer read
back to the response that carries the request's id."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

import httpx2

ACCEPT = "application/json, text/event-stream"
VERSION = "2025-06-18"
SESSION = "mcp-session-id"


def headers(token: str | None = None, session: str | None = None, **extra: str) -> dict[str, str]:
    out = {"Accept": ACCEPT, "Content-Type": "application/json", "MCP-Protocol-Version": VERSION}
    if token is not None:
        out["Authorization"] = f"Bearer {token}"
    if session is not None:
        out[SESSION] = session
    return {**out, **extra}


def initialize(request_id: Any = 1, version: str = VERSION) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "raw-http", "version": "1"},
        },
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Answered(Protocol):
    """What ``answer`` reads of a response: httpx2's, or the load generator's own."""

    @property
    def content(self) -> bytes: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def text(self) -> str: ...
    def json(self) -> Any: ...


def answer(response: Answered) -> dict[str, Any] | None:
    """The JSON-RPC response in a JSON body or the last response event of an SSE body."""
    if not response.content:
        return None
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        found = None
        for line in response.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if "id" in message and ("result" in message or "error" in message):
                    found = message
        return found
    return response.json()


def open_session(client: httpx2.Client, url: str, token: str | None = None) -> str:
    """Initialize a 2025-era session; its Mcp-Session-Id."""
    r = client.post(url, json=initialize(), headers=headers(token))
    r.raise_for_status()
    session = r.headers[SESSION]
    client.post(url, json=INITIALIZED, headers=headers(token, session)).raise_for_status()
    return session


def call(
    client: httpx2.Client,
    url: str,
    session: str,
    request_id: int,
    name: str,
    arguments: Any,
    token: str | None = None,
) -> dict[str, Any] | None:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return answer(client.post(url, json=message, headers=headers(token, session)))
