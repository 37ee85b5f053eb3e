"""The HTTP endpoint's rules, the Host and Origin guard of every path, and the shape of a
refusal: a JSON-RPC error body with a status.

Host (421) and Origin (403) are checked against the allowlist before routing, on every
path (the MCP endpoint, the metadata, a path that is none), against DNS rebinding; the
rest of what a request to the endpoint passes is ``http_front.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from sim.server.grants import Grant, Verifier
from sim.server.jsonrpc import INVALID_REQUEST, PARSE_ERROR, error_reply

Asgi = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class FrontRules:
    allowed_hosts: frozenset[str]
    """host:port values, or a host alone for any port."""
    allowed_origins: frozenset[str]
    """Exact origins (--allow-origin)."""
    origin_hosts: frozenset[str]
    """Hosts whose http(s) origins are allowed on any port (the loopback names on loopback)."""
    verifier: Verifier | None
    """None: no --tokens, every request gets `open_grant` (a loopback-only server)."""
    open_grant: Grant | None
    metadata_path: str
    max_body_bytes: int
    max_sessions: int
    max_sessions_per_token: int
    """Sessions one token may hold open at once (``--max-sessions-per-token``, by default a
    fair share of --max-sessions): one token cannot take every session and lock out the rest."""


def _host_allowed(value: str, allowed: frozenset[str]) -> bool:
    if value in allowed:
        return True
    host, sep, port = value.rpartition(":")
    return bool(sep) and port.isdigit() and not host.endswith(":") and host in allowed


def _origin_allowed(origin: str, rules: FrontRules) -> bool:
    scheme, sep, hostport = origin.partition("://")
    if origin in rules.allowed_origins:
        return True
    return bool(sep) and scheme in ("http", "https") and _host_allowed(hostport, rules.origin_hosts)


async def respond(
    send: Send, status: int, payload: dict[str, Any] | None, headers: dict[str, str] | None = None
) -> None:
    body = b"" if payload is None else json.dumps(payload, ensure_ascii=False).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    head += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def host_origin_refusal(headers: Any, rules: FrontRules) -> tuple[Any, ...] | None:
    """421 for a Host not served, 403 for an Origin not allowed (DNS rebinding), else None:
    asked of every request on every path (``Guard``), not of the MCP endpoint alone."""
    host = headers.get("host", "")
    if not _host_allowed(host, rules.allowed_hosts):
        return http_refusal(
            421,
            f"Host {host!r} is not one this server answers to (a guard against DNS "
            f"rebinding); allowed: {', '.join(sorted(rules.allowed_hosts))}.",
        )
    origin = headers.get("origin")
    if origin is not None and not _origin_allowed(origin, rules):
        return http_refusal(
            403,
            f"Origin {origin!r} is not allowed; allowed: "
            + (
                ", ".join(
                    [f"http(s)://{h} on any port" for h in sorted(rules.origin_hosts)]
                    + sorted(rules.allowed_origins)
                )
                or "none"
            )
            + " (add one with serve --allow-origin).",
        )
    return None


class Guard:
    """The ASGI app around every route (the endpoint, the metadata, a path that is none):
    Host and Origin are checked before routing, so no answer (a redirect, the metadata's
    resource URL) is ever built from a Host this server does not serve."""

    def __init__(self, app: Asgi, rules: FrontRules) -> None:
        self._app = app
        self._rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = host_origin_refusal(Request(scope).headers, self._rules)
            if refusal is not None:
                await respond(send, *refusal)
                return
        await self._app(scope, receive, send)


def http_refusal(
    status: int, message: str, headers: dict[str, str] | None = None, code: int = INVALID_REQUEST
) -> tuple[int, dict[str, Any], dict[str, str] | None]:
    if status == 400 and message.startswith("Parse"):
        code = PARSE_ERROR
    return status, error_reply(None, code, message), headers
