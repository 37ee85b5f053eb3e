"""`serve --http [HOST:]PORT`: the KB's MCP server over streamable HTTP (the SDK's).

The endpoint is ``/mcp`` on one uvicorn worker (one process, one core), served by the SDK's
``StreamableHTTPSessionManager``: 2025-era sessions (``Mcp-Session-Id``; DELETE ends one,
its id then answers 404; one idle for ``--session-idle-s`` is reaped; ``--max-sessions``
caps them) and 2026-07-28 requests (no session; listen streams, approvals by retry). Before
the SDK sees a request, ``http_front.Front`` checks its token and shape, and, on every path
(the metadata and unknown paths too), ``http_guard.Guard`` its Host and Origin; each
connection gets a KB session of its own with its token's grants (``http_sessions.py``), and
one token holds at most ``--max-sessions-per-token`` sessions (by default an even share of
``--max-sessions``), so it cannot lock the other tokens out.
Without ``--tokens`` only a loopback address is served. With ``--db`` the file's event log
is followed (``follow.py``), so a save by another process on the file notifies this
process's subscribers. RFC 9728 protected-resource metadata is served at
``/.well-known/oauth-protected-resource/mcp``.

A 2025-era POST is answered as an SSE stream, or with ``--http-json`` as one JSON body (the
SDK's ``json_response``): that era's spec leaves the choice to the server and has the client
take either. Either way what the server sends a session unasked (resource updates, approval
prompts) goes on the session's GET stream, never on a POST's answer. A 2026-07-28 request
is answered in JSON unless it streams (``subscriptions/listen``, or a call that sends
notifications before its result).
"""

from __future__ import annotations

import contextlib
import gc
import ipaddress
import os
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TextIO

import anyio

from sim.corpus import KB_ID
from sim.gcpause import collector_paused
from sim.kb.store import KBStore
from sim.server.follow import DEFAULT_FOLLOW_S
from sim.server.grants import Grant, Verifier, loopback_grant

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
ENDPOINT = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource" + ENDPOINT
DEFAULT_IDLE_S = 600.0
DEFAULT_MAX_SESSIONS = 1000
MAX_BODY_BYTES = 4 * 2**20
KEEP_ALIVE_S = 30


class AddressError(ValueError):
    """An --http address this server refuses; the message says why and what to do."""


def parse_address(value: str) -> tuple[str, int]:
    """(host, port) of `[HOST:]PORT`; an IPv6 host in brackets. Raises AddressError."""
    host, sep, port = value.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", value
    host = host.strip("[]") if host.startswith("[") and host.endswith("]") else host
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise AddressError(
            f"expected [HOST:]PORT with PORT 0 to 65535 (0: any free port); received {value!r}"
        )
    if not host or (":" in host and not _is_ip(host)):
        raise AddressError(f"expected [HOST:]PORT, an IPv6 host in brackets; received {value!r}")
    return host, int(port)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HttpOptions:
    host: str
    port: int
    grants: list[Grant] | None
    """None: no --tokens (loopback only; every client has the one stdio-like grant)."""
    allow_origins: tuple[str, ...] = ()
    allow_hosts: tuple[str, ...] = ()
    session_idle_s: float = DEFAULT_IDLE_S
    max_sessions: int = DEFAULT_MAX_SESSIONS
    max_sessions_per_token: int | None = None
    """None: a fair share, --max-sessions over the number of tokens (at least 1)."""
    follow_s: float = DEFAULT_FOLLOW_S
    json_response: bool = False
    """--http-json: one JSON body per POST (the SDK's json_response), else an SSE stream."""
    sock: socket.socket | None = None
    """Bound by `listen` before serving starts (None: bound by serve_http)."""


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound now so that a taken port or a foreign address is one line
    at the start, not uvicorn's traceback. Raises AddressError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY only on sockets that say TCP, and
    # without it each answer waited some 40 ms for the client's delayed ACK
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as e:
        sock.close()
        raise AddressError(f"cannot listen on {host} port {port} ({e.strerror or e})") from None
    sock.set_inheritable(True)
    return sock


def check_options(options: HttpOptions) -> None:
    """Raise AddressError for a non-loopback address served without tokens."""
    if options.grants is None and not is_loopback(options.host):
        raise AddressError(
            f"{options.host} is not a loopback address, and without --tokens anyone who can "
            "reach it could read and edit the KB; add --tokens FILE, or serve 127.0.0.1"
        )


def per_token_cap(options: HttpOptions) -> int:
    """Sessions one token may hold: the flag, else an even share of the cap, so every token
    of the file can always open one however many another holds."""
    if options.max_sessions_per_token is not None:
        return options.max_sessions_per_token
    tokens = 1 if options.grants is None else len(options.grants)
    return max(1, options.max_sessions // tokens)


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def build_app(kb: Any, options: HttpOptions) -> Any:
    """The Starlette app: the Front at /mcp, then the SDK's session manager."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from sim.server.http_front import Front
    from sim.server.http_guard import FrontRules, Guard
    from sim.server.http_sessions import SessionRouter

    router = SessionRouter(kb)
    manager = StreamableHTTPSessionManager(
        router,
        # Host and Origin are checked by the Front, with this server's own messages
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        session_idle_timeout=options.session_idle_s,
        max_sessions=options.max_sessions,
        max_request_body_size=MAX_BODY_BYTES,
        json_response=options.json_response,
    )
    host = _bracketed(options.host)
    loopback = is_loopback(options.host)
    hosts = frozenset({host, *options.allow_hosts} | (LOOPBACK_NAMES if loopback else set()))
    rules = FrontRules(
        allowed_hosts=hosts,
        allowed_origins=frozenset(options.allow_origins),
        origin_hosts=LOOPBACK_NAMES if loopback else frozenset(),
        verifier=None if options.grants is None else Verifier(options.grants),
        open_grant=loopback_grant([KB_ID]) if options.grants is None else None,
        metadata_path=METADATA_PATH,
        max_body_bytes=MAX_BODY_BYTES,
        max_sessions=options.max_sessions,
        max_sessions_per_token=per_token_cap(options),
    )
    front = Front(manager, rules)

    async def metadata(request: Any) -> Any:
        base = f"http://{request.headers.get('host', host)}"  # checked by the Guard
        return JSONResponse(
            {
                "resource": base + ENDPOINT,
                "bearer_methods_supported": ["header"],
                "resource_name": "stale-citations KB (MCP)",
                "authorization_servers": [],
            }
        )

    @contextlib.asynccontextmanager
    async def lifespan(_app: Any) -> AsyncIterator[None]:
        async with manager.run():
            yield

    routes = [Route(ENDPOINT, endpoint=front), Route(METADATA_PATH, endpoint=metadata)]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.router.redirect_slashes = False  # `/mcp/` is not the endpoint: 404, never a redirect
    return Guard(app, rules)


async def serve_http(
    store: KBStore,
    options: HttpOptions,
    edits_per_minute: float,
    seed: int,
    call_log: TextIO | None = None,
    write_gate: bool = False,
    follow: bool = False,
) -> None:
    """Serve until SIGINT/SIGTERM (uvicorn's own handling: open requests end first)."""
    with collector_paused():  # as serve() on stdio: the SDK's classes load once, then freeze
        import uvicorn

        from sim.server.calllog import CallLog
        from sim.server.editor import human_editor, wall_clock_us
        from sim.server.follow import follow_log
        from sim.server.tools import KBServer
    gc.freeze()

    log = CallLog(sink=call_log, keep=False)
    kb = KBServer(store, wall_clock_us, log, write_gate=write_gate)
    app = build_app(kb, options)
    sock = options.sock or listen(options.host, options.port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,  # a line per request would be most of stderr; tokens are never in it
        lifespan="on",
        timeout_graceful_shutdown=5,
        # a client's pooled connection idle longer than this is closed, and its next POST
        # fails (uvicorn's 5 s default failed calls of 200 clients that had all just opened)
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:

        async def run() -> None:
            await server.serve([sock])  # returns once a signal asked it to
            tg.cancel_scope.cancel()

        tg.start_soon(run)
        while not server.started:
            await anyio.sleep(0.01)
        bound = sock.getsockname()
        url = f"http://{_bracketed(bound[0])}:{bound[1]}{ENDPOINT}"
        who = "loopback only, no tokens" if options.grants is None else "bearer tokens required"
        print(f"serving MCP over streamable HTTP at {url} ({who}; pid {os.getpid()})", flush=True)
        if edits_per_minute > 0:
            tg.start_soon(human_editor, store, edits_per_minute, seed)
        if follow:
            tg.start_soon(follow_log, store, kb, [KB_ID], options.follow_s)
