"""One KB session per MCP connection over HTTP, with the grant of the token that opened it.

The SDK's streamable-HTTP manager runs one ``Server`` for every connection; this KB keeps a
client's grants, subscriptions, open approval prompts and resources/list cursors in a
session of its own (``build_server`` in ``mcp_server.py``, as on stdio). ``SessionRouter``
is that one server: each request is handed to the handler of its connection's own server,
built at the connection's first request and forgotten, with its subscriptions, when the
connection ends (DELETE, idle reaping, shutdown). A 2025-era connection is an
``Mcp-Session-Id``; a 2026-07-28 request is a connection of its own, so its state is kept
per grant instead (an approval is the grant's, found again by its ``requestState``).

The grant of the request being served is ``GRANT``, set by the HTTP front before the SDK
sees the request; the SDK carries it to the handler with the request's context variables,
and refuses a session's requests made with any other token (as if the session did not
exist).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from starlette.types import Message, Send

from sim.server.grants import Grant
from sim.server.listing import instructions
from sim.server.mcp_server import (
    ELICITATION_GATE,
    SERVER_NAME,
    KBMcpServer,
    build_server,
    package_version,
)
from sim.server.tools import KBServer, Session

GRANT: ContextVar[Grant] = ContextVar("grant")
COLLECT_EVERY = 64
COLLECT_GAP_S = 1.0

_METHODS = {
    "on_list_tools": "tools/list",
    "on_call_tool": "tools/call",
    "on_list_resources": "resources/list",
    "on_list_resource_templates": "resources/templates/list",
    "on_read_resource": "resources/read",
    "on_subscribe_resource": "resources/subscribe",
    "on_unsubscribe_resource": "resources/unsubscribe",
    "on_subscriptions_listen": "subscriptions/listen",
}


def connection_of(ctx: Any) -> Connection:
    """The SDK's per-connection state of a request: its session id, ``state`` and
    ``exit_stack`` (run when the connection ends), all public on ``Connection``. The way to
    it is not: the handler's context (``ServerRequestContext``) has only the per-request
    ``ServerSession``, which keeps the connection as ``_connection`` (mcp 2.3.0; the SDK's
    ``Context.connection`` is public but, its docstring says, not yet built for handlers).
    So it is read there, and an SDK that moved it stops this server's first call with this
    message rather than a bare AttributeError; tests/test_http_sessions.py checks it on
    the installed SDK."""
    connection = getattr(ctx.session, "_connection", None)
    if not isinstance(connection, Connection):
        raise RuntimeError(
            f"mcp {sdk_version()}: ServerSession keeps no _connection (a Connection), which "
            "serve --http reads each request's connection from; use an mcp version whose "
            "handler context has it, or read it where this one keeps it "
            "(sim/server/http_sessions.py connection_of)"
        )
    return connection


def session_owners(manager: Any) -> dict[str, Any]:
    """Session id -> who opened it (the ``client_id`` of the request's ``AuthenticatedUser``,
    here a token's label), as the SDK's session manager records it to refuse a session's
    requests made with another token. The SDK keeps it as ``_session_owners`` (mcp 2.3.0)
    and offers no public count per owner, so it is read there; an SDK that moved it stops
    the first initialize with this message, not a bare AttributeError
    (tests/test_http_sessions.py checks it on the installed SDK)."""
    owners = getattr(manager, "_session_owners", None)
    if not isinstance(owners, dict):
        raise RuntimeError(
            "the MCP SDK's StreamableHTTPSessionManager keeps no _session_owners dict, which "
            "serve --http counts each token's sessions from (--max-sessions-per-token); use an "
            "mcp version that has it, or count them where this one keeps them "
            "(sim/server/http_front.py session_owners)"
        )
    return owners


class TokenSessions:
    """The sessions each token holds or is opening, counted exactly: an opening request is
    counted in flight until its answer begins; then, if the answer opened a session (its
    ``Mcp-Session-Id``), that session is counted until the SDK no longer has it. Each step
    happens between two awaits, so no session is counted twice or not at all."""

    def __init__(self, manager: Any) -> None:
        self._manager = manager
        self._opening: dict[str, int] = {}
        self._held: dict[str, set[str]] = {}

    def count(self, label: str) -> int:
        live = session_owners(self._manager)
        held = self._held.get(label, set())
        held.intersection_update(live)  # ended ones (DELETE, reaped) drop out
        return len(held) + self._opening.get(label, 0)

    def opening(self, label: str, send: Send) -> tuple[Send, Callable[[str | None], None]]:
        """`send` for an opening request of this token, and what to call when it is over."""
        self._opening[label] = self._opening.get(label, 0) + 1
        pending = [True]

        def over(session_id: str | None = None) -> None:
            if pending[0]:
                pending[0] = False
                self._opening[label] -= 1
                if session_id:
                    self._held.setdefault(label, set()).add(session_id)

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                opened = message["status"] < 400
                sid = dict(message.get("headers", [])).get(MCP_SESSION_ID_HEADER.encode())
                over(sid.decode() if opened and sid else None)
            await send(message)

        return sending, over


def sdk_version() -> str:
    import importlib.metadata

    return importlib.metadata.version("mcp")


class SessionRouter(KBMcpServer):
    """The server the SDK runs: it hands each request on to its connection's own server."""

    def __init__(self, kb: KBServer) -> None:
        self.kb = kb
        self.open_sessions: dict[int, Session] = {}
        """The KB sessions of open 2025-era connections (the soak test counts them)."""
        self._per_grant: dict[str, Server[Any]] = {}
        self._ended_since, self._collected_at = 0, 0.0
        handlers = {name: self._delegate(method) for name, method in _METHODS.items()}
        super().__init__(SERVER_NAME, version=package_version(), **handlers)

    @property
    def instructions(self) -> str | None:
        """The initialize result's instructions name the KBs of the token that asks."""
        grant = GRANT.get(None)
        return None if grant is None else instructions(grant.read)

    @instructions.setter
    def instructions(self, _value: str | None) -> None:
        pass  # set by the SDK's constructor; this server's instructions depend on the grant

    def _delegate(self, method: str) -> Any:
        async def handler(ctx: Any, params: Any) -> Any:
            entry = self._server_for(ctx).get_request_handler(method)
            assert entry is not None  # every delegated method is registered by build_server
            return await entry.handler(ctx, params)

        return handler

    def _build(self, grant: Grant) -> tuple[Server[Any], Session]:
        session = self.kb.connect(grant.label, grant.read, ELICITATION_GATE, edit_grants=grant.edit)
        return build_server(session), session

    def _server_for(self, ctx: Any) -> Server[Any]:
        grant = GRANT.get()
        connection = connection_of(ctx)
        if connection.session_id is None:  # 2026-07-28: one connection per request
            built = self._per_grant.get(grant.label)
            if built is None:
                built = self._per_grant[grant.label] = self._build(grant)[0]
            return built
        built = connection.state.get("kb")
        if built is None:
            built, session = self._build(grant)
            connection.state["kb"] = built
            self.open_sessions[id(session)] = session
            connection.exit_stack.callback(self._ended, session)
        return built

    def _ended(self, session: Session) -> None:
        """A 2025-era connection ended: nothing of its KB session is kept or notified. What
        the SDK leaves of a session is in reference cycles (some 25 KB a session), which only
        a full collection frees, and Python runs one rarely: so one is run when the last
        session has ended or COLLECT_EVERY have since the last, at most once a second."""
        self.kb.subscriptions.drop(session)
        session.listeners.clear()
        self.open_sessions.pop(id(session), None)
        self._ended_since += 1
        due = not self.open_sessions or self._ended_since >= COLLECT_EVERY
        if due and time.monotonic() - self._collected_at >= COLLECT_GAP_S:
            gc.collect()
            self._ended_since, self._collected_at = 0, time.monotonic()
