"""A request for a method this server does not answer (-32601), said with the methods it
does answer.

The SDK's runner answers such a request ``Method not found`` with the method as data, and no
what-to-do. A context-tier middleware (``Server.middleware``, which wraps the SDK's lookup)
words it again: what was asked, and the request methods of the request's protocol version
that this server has a handler for (so the list is the one the SDK would dispatch, in
either era)."""

from __future__ import annotations

from typing import Any

from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import METHOD_NOT_FOUND
from mcp_types import methods as spec_methods
from pydantic import ValidationError

from sim.server.describe import describe_name


def answered(server: Server[Any], version: str) -> list[str]:
    """The request methods of protocol `version` that `server` answers, sorted: those it has
    a handler for, and ``initialize`` in the eras that have it (the SDK answers it)."""
    out = []
    for method in sorted(spec_methods.SPEC_CLIENT_METHODS):
        try:
            spec_methods.validate_client_request(method, version, {})
        except KeyError:  # not a method of this version
            continue
        except (ValidationError, ValueError):  # a method of it: empty params need not fit
            pass
        if method == "initialize" or server.get_request_handler(method) is not None:
            out.append(method)
    return out


def name_the_methods(server: Server[Any]) -> Any:
    """The middleware: -32601 with the methods `server` answers; anything else as it was."""

    async def middleware(ctx: Any, call_next: Any) -> Any:
        try:
            return await call_next(ctx)
        except MCPError as e:
            if e.code != METHOD_NOT_FOUND:
                raise
            asked = describe_name(getattr(ctx, "method", e.data))
            methods = ", ".join(answered(server, ctx.protocol_version))
            raise MCPError(
                METHOD_NOT_FOUND,
                f"Method not found: this server does not answer {asked}. It answers "
                f"{methods}; send one of them (tools/list names the tools, tools/call calls one).",
                e.data,  # the method, as the SDK sends it
            ) from None

    return middleware
