"""What every HTTP request to the KB's MCP endpoint passes before the SDK sees it.

In order: the Host header (421) and Origin header (403) against the allowlist, against DNS
rebinding (``http_guard.Guard`` asks it of every path, before routing: the metadata and
unknown paths too); the bearer token (401, with ``WWW-Authenticate`` naming the RFC 9728 metadata);
the method (405); a GET or DELETE without ``Mcp-Session-Id`` (400: no session is allocated
for it); a POST's content type (415), ``Accept`` (406) and size (413); then its body, one
JSON-RPC message screened as stdio screens a line (``screen.Screen``: parse errors, batches,
bad ids, depth, a tools/call's shape), and, without a session, anything but ``initialize``
in the 2025 era (400). An ``initialize`` of a token that holds its share of sessions is
refused here (429, ``--max-sessions-per-token``); one past the server's cap by the SDK (its
``max_sessions``), with this server's message in place of the SDK's bare 503; a session id
the SDK does not hold gets its 404 with this server's what-to-do in place of the SDK's bare
"Session not found". Each refusal is a JSON-RPC error body with a status, and nothing
reaches the KB.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, check_accept_headers
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    MODERN_PROTOCOL_VERSIONS,
)
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from sim.server.grants import Grant
from sim.server.http_guard import FrontRules, host_origin_refusal, http_refusal, respond
from sim.server.http_sessions import GRANT, TokenSessions
from sim.server.jsonrpc import INVALID_REQUEST
from sim.server.mcp_server import tools_call_refusal
from sim.server.screen import Answer, Drop, Forward, Screen

SERVER_ERROR = -32000
KNOWN_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)


class _Response:
    """`send`, minding whether the response it began has ended. A GET stream open when the
    server stops is cancelled mid-response, and uvicorn reports an app that returns so as an
    error on stderr; ``end`` closes the body instead, as any finished stream is."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._started = self._ended = False

    async def __call__(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self._started = True
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            self._ended = True
        await self._send(message)

    async def end(self) -> None:
        if self._started and not self._ended:
            with anyio.CancelScope(shield=True):  # the stop's cancellation is what ended it
                await self._send({"type": "http.response.body", "body": b"", "more_body": False})


class Front:
    """The ASGI app in front of the SDK's session manager."""

    def __init__(self, manager: Any, rules: FrontRules) -> None:
        self._manager = manager
        self._rules = rules
        self._sessions = TokenSessions(manager)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        refusal, grant = self._check_headers(request)
        if refusal is not None:
            await respond(send, *refusal)
            return
        assert grant is not None
        body = b""
        if scope["method"] == "POST":
            body_or_refusal = await self._read_body(receive)
            if isinstance(body_or_refusal, tuple):
                await respond(send, *body_or_refusal)
                return
            screened = self._screen(request, body_or_refusal)
            if isinstance(screened, tuple):
                await respond(send, *screened)
                return
            body = screened
        scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=grant.label, scopes=[]))
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # the client going away, seen by a streaming response

        opening = scope["method"] == "POST" and MCP_SESSION_ID_HEADER not in request.headers
        over = None
        if opening and request.headers.get(MCP_PROTOCOL_VERSION_HEADER) in (
            None,
            *HANDSHAKE_PROTOCOL_VERSIONS,
        ):  # a 2025-era initialize: the SDK opens a session for it
            cap = self._rules.max_sessions_per_token
            held = self._sessions.count(grant.label)
            # a cap as large as the server's is the server's: its own 503 says so
            if cap < self._rules.max_sessions and held >= cap:
                await respond(send, *self._token_cap_refusal(held))
                return
            send, over = self._sessions.opening(grant.label, send)
        if opening:
            send = self._cap_said(send)
        elif sid := request.headers.get(MCP_SESSION_ID_HEADER):
            send = _replaced(send, 404, lambda: _unknown_session(sid))
        response = _Response(send)
        reset = GRANT.set(grant)
        try:
            await self._manager.handle_request(scope, replay, response)
        finally:
            GRANT.reset(reset)
            await response.end()
            if over is not None:
                over(None)

    def _token_cap_refusal(self, held: int) -> tuple[Any, ...]:
        cap = self._rules.max_sessions_per_token
        return http_refusal(
            429,
            f"This token holds {held} open sessions, its cap of {cap} (serve "
            "--max-sessions-per-token; by default --max-sessions shared evenly among the "
            "tokens, so no token can lock out the others); end one with DELETE, or retry once "
            "idle ones are reaped (--session-idle-s).",
            {"Retry-After": "5"},
            code=SERVER_ERROR,
        )

    def _cap_said(self, send: Send) -> Send:
        """`send` with the SDK's bare 503 for a session past its cap (``max_sessions``, the
        only 503 the SDK answers an opening request with) replaced by this server's
        refusal, which says what the cap is and what to do."""
        return _replaced(
            send,
            503,
            lambda: http_refusal(
                503,
                f"This server holds its cap of {self._rules.max_sessions} open sessions "
                "(serve --max-sessions); end one with DELETE, or retry once idle ones are "
                "reaped (--session-idle-s).",
                {"Retry-After": "5"},
                code=SERVER_ERROR,
            ),
        )

    def _check_headers(self, request: Request) -> tuple[tuple[Any, ...] | None, Grant | None]:
        rules, headers = self._rules, request.headers
        refusal = host_origin_refusal(headers, rules)
        if refusal is not None:
            return refusal, None
        host = headers.get("host", "")
        grant = rules.open_grant
        metadata_url = f"http://{host}{rules.metadata_path}"
        if rules.verifier is not None:
            scheme, _, token = headers.get("authorization", "").partition(" ")
            grant = rules.verifier.grant_of(token.strip()) if scheme.lower() == "bearer" else None
            if grant is None:
                # RFC 6750 § 3.1: a request with no credentials gets no error code
                error = (
                    'error="invalid_token", error_description="a bearer token this server '
                    'issued is required", '
                    if "authorization" in headers
                    else ""
                )
                challenge = f'Bearer {error}resource_metadata="{metadata_url}"'
                return http_refusal(
                    401,
                    "Unauthorized: send Authorization: Bearer <token>, with a token this "
                    f"server's --tokens file lists; see {metadata_url}.",
                    {"WWW-Authenticate": challenge},
                ), None
        version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
        if version is not None and version not in KNOWN_VERSIONS:
            return http_refusal(
                400,
                f"MCP-Protocol-Version {version!r} is not one this server speaks; send one of "
                f"{', '.join(KNOWN_VERSIONS)} (the one initialize negotiated), or none for "
                "2025-03-26.",
            ), grant
        method = request.method
        if method not in ("POST", "GET", "DELETE"):
            return http_refusal(
                405,
                f"Method {method} is not served here; use POST, GET or DELETE.",
                {"Allow": "POST, GET, DELETE"},
            ), grant
        if method != "POST" and MCP_SESSION_ID_HEADER not in headers:
            return http_refusal(
                400,
                f"{method} needs the Mcp-Session-Id header of a session initialize opened; "
                "no session was created for this request.",
            ), grant
        if method == "POST":
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                return http_refusal(
                    415, f"Content-Type must be application/json; received {ctype or 'none'!r}."
                ), grant
            has_json, has_sse = check_accept_headers(request)
            if not (has_json and has_sse):
                return http_refusal(
                    406,
                    "Accept must take both application/json and text/event-stream (list both, "
                    "or */*); received "
                    f"{headers.get('accept', 'none')!r}.",
                ), grant
        return None, grant

    async def _read_body(self, receive: Receive) -> bytes | tuple[Any, ...]:
        limit, chunks, size = self._rules.max_body_bytes, [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return http_refusal(400, "The request ended before its body did.")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return http_refusal(
                    413, f"Request body over {limit} bytes; send one message of MCP."
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _screen(self, request: Request, body: bytes) -> bytes | tuple[Any, ...]:
        """The body to hand on (re-encoded as parsed), or the refusal of it."""
        version = request.headers.get(MCP_PROTOCOL_VERSION_HEADER)
        modern = version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS
        in_session = MCP_SESSION_ID_HEADER in request.headers
        head = body.lstrip()[:1]
        screen = Screen(
            tools_call_refusal,
            era="modern" if modern else "legacy",
            initialized=modern or in_session or not head,
            version=version if version in HANDSHAKE_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION,
            unit="request body",
        )
        verdict = screen(body)
        if verdict is None:
            return http_refusal(400, "Empty body: send one JSON-RPC 2.0 message.")
        if isinstance(verdict, Answer):
            return 400, verdict.reply
        if isinstance(verdict, Drop):
            return http_refusal(400, verdict.why, code=INVALID_REQUEST)
        assert isinstance(verdict, Forward)
        message = verdict.message.message
        if not modern and not in_session and getattr(message, "method", None) != "initialize":
            return http_refusal(
                400,
                "No Mcp-Session-Id: in the 2025 protocol era only initialize opens a "
                "session; send it first, then this message with the session's id.",
            )
        screened = verdict.parsed
        if screened is None:
            screened = message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return json.dumps(screened, ensure_ascii=False).encode()


def _replaced(send: Send, status: int, refusal: Callable[[], tuple[Any, ...]]) -> Send:
    """`send` with the SDK's own response of this status (a bare message, no what-to-do:
    the SDK's session manager owns it) replaced, once it ends, by this server's refusal."""
    refused = False

    async def sending(message: Message) -> None:
        nonlocal refused
        if message["type"] == "http.response.start" and message["status"] == status:
            refused = True
        elif not refused:
            await send(message)
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            await respond(send, *refusal())

    return sending


def _unknown_session(sid: str) -> tuple[Any, ...]:
    """The 404 of a session id the SDK does not hold (its body said only "Session not found")."""
    shown = sid if len(sid) <= 64 else f"{sid[:64]}…"
    return http_refusal(
        404,
        f"Session not found: no open session has the Mcp-Session-Id {shown!r} for this token "
        "(it was ended with DELETE, reaped after --session-idle-s idle, opened with another "
        "token, or the server restarted). Start a new session: send initialize without "
        "Mcp-Session-Id, then send the id its response carries.",
    )
