"""The KB's articles as MCP resources: list (signed cursors), templates, read, and
subscriptions in both protocol eras (``resources/subscribe`` and ``subscriptions/listen``).

A refused request is JSON-RPC invalid params with the refusal as data, a failure of the KB
file internal error (-32603), and a handler's own fault -32603 in this server's words; the
notifications of a change committed on any thread go out over the session's connection.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import os
import sqlite3
from typing import Any

import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated
from mcp.shared.exceptions import MCPError

from sim.server import resources
from sim.server.describe import describe_value
from sim.server.results import Reply
from sim.server.tools import Session, ToolResult, structured_json

_log = logging.getLogger(__name__)

DELIVERY_TIMEOUT_S = 30.0
RESOURCES_PAGE = 100


def to_tool_result(reply: Reply) -> ToolResult:
    return ToolResult(reply.structured, reply.text, "error" in reply.structured)


class Notifier:
    """Carries a session's notifications over its MCP connection, from whichever thread
    the change was committed on: in the 2026-07-28 era onto each open `subscriptions/listen`
    stream (the SDK's listen handler filters by URI), in the handshake era as a standalone
    `notifications/resources/updated` for URIs subscribed with `resources/subscribe`."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.connection: Any = None
        self.handshake_uris: set[str] = set()
        self.bus = InMemorySubscriptionBus()
        self._tasks: set[asyncio.Task] = set()

    def bind(self, ctx: Any) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            self.connection = ctx.session

    async def _emit(self, uri: str) -> None:
        try:
            if uri in self.handshake_uris:
                await self.connection.send_resource_updated(uri)
            await self.bus.publish(ResourceUpdated(uri=uri))
        except Exception as e:  # the client is gone: one line on stderr, never a traceback
            _log.warning("notification for %s not sent: %s", uri, type(e).__name__)

    def __call__(self, uri: str) -> None:
        if self.loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:  # a change made inside this server's own loop
            task = self.loop.create_task(self._emit(uri))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        else:  # another thread (the simulation's): sent before that thread goes on
            asyncio.run_coroutine_threadsafe(self._emit(uri), self.loop).result(DELIVERY_TIMEOUT_S)


STORE_FAULTS = frozenset(
    {"kb_busy", "kb_read_only", "kb_file_damaged", "kb_disk_full", "kb_io_error"}
)
"""Refusals that are the KB file's fault, not the request's (``sim/kb/faults.py``)."""


def _refused(result: ToolResult) -> MCPError:
    """A refused resources/* request as JSON-RPC invalid params, the refusal as data; a
    failure of the KB file as internal error (-32603), in this server's words."""
    code = result.structured.get("error", {}).get("code")
    rpc = types.INTERNAL_ERROR if code in STORE_FAULTS else types.INVALID_PARAMS
    return MCPError(rpc, result.text, result.structured)


class Cursors:
    """resources/list cursors: the offset of the next page, signed by this server process,
    so a cursor it never issued (a guessed offset, any other string) is refused, not read."""

    def __init__(self) -> None:
        self._key = os.urandom(16)

    def _tag(self, offset: int) -> str:
        return hmac.new(self._key, str(offset).encode(), "sha256").hexdigest()[:16]

    def issue(self, offset: int) -> str:
        return f"{offset}.{self._tag(offset)}"

    def offset(self, cursor: str) -> int | None:
        """The offset of an issued cursor, or None."""
        number, _, tag = cursor.partition(".")
        if not (number.isascii() and number.isdigit() and len(number) <= 12):
            return None
        offset = int(number)
        return offset if hmac.compare_digest(tag, self._tag(offset)) else None


def _listed(session: Session, uri: str) -> types.Resource:
    """A listed resource: named by its article id as stored (the URI's, decoded), with the
    article's title and the start of its text (none if unpublished since it was listed)."""
    parsed = resources.parse(uri)
    assert parsed is not None  # listed URIs are built by resources.uri
    kb_id, article_id = parsed
    article = session.server.store.published_article(kb_id, article_id)
    return types.Resource(
        uri=uri,
        name=article_id,
        title=None if article is None else article.title,
        description=None if article is None else resources.description(article.content),
        mime_type=resources.MIME_TYPE,
    )


def resource_handlers(session: Session) -> dict[str, Any]:
    """Each published article as a resource; subscriptions in both protocol eras."""
    notifier = Notifier()
    session.on_notification(notifier)
    listen = ListenHandler(notifier.bus)
    cursors = Cursors()
    listen_streams = itertools.count(1)

    async def on_list_resources(_ctx: Any, params: Any) -> types.ListResourcesResult:
        cursor = getattr(params, "cursor", None)
        start = 0 if cursor is None else cursors.offset(cursor)
        if start is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"cursor: expected the nextCursor of an earlier resources/list page of this "
                f"server; received {describe_value(cursor)}. Start again without a cursor.",
            )
        try:
            uris = session.resource_uris()
            page = [_listed(session, u) for u in uris[start : start + RESOURCES_PAGE]]
        except sqlite3.Error as e:
            raise _refused(to_tool_result(session.store_refusal(e))) from None
        more = start + RESOURCES_PAGE < len(uris)
        return types.ListResourcesResult(
            resources=page, next_cursor=cursors.issue(start + RESOURCES_PAGE) if more else None
        )

    async def on_list_resource_templates(_ctx: Any, _params: Any) -> Any:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="knowledge-article",
                    uri_template=resources.URI_TEMPLATE,
                    mime_type=resources.MIME_TYPE,
                    description=(
                        "A published article: the citation fields read_knowledge_article "
                        "gives. Subscribe to hear when it is saved or unpublished. Each id is "
                        "percent-encoded as RFC 6570's {var} expands it (RFC 3986: all but "
                        "A-Z a-z 0-9 - . _ ~ as %XX of its UTF-8 bytes, '/' as %2F), e.g. "
                        "kb://kb-support/articles/guide%2Fcalendar."
                    ),
                )
            ]
        )

    async def on_read_resource(_ctx: Any, params: Any) -> types.ReadResourceResult:
        result = session.read_resource(params.uri)
        if result.is_error:
            raise _refused(result)
        text = structured_json(result.structured)
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=params.uri, mime_type=resources.MIME_TYPE, text=text)
            ]
        )

    async def on_subscribe(ctx: Any, params: Any) -> types.EmptyResult:
        notifier.bind(ctx)
        result = session.subscribe(params.uri)
        if result.is_error:
            raise _refused(result)
        notifier.handshake_uris.add(params.uri)
        return types.EmptyResult()

    async def on_unsubscribe(_ctx: Any, params: Any) -> types.EmptyResult:
        result = session.unsubscribe(params.uri)
        if result.is_error:
            raise _refused(result)
        notifier.handshake_uris.discard(params.uri)
        return types.EmptyResult()

    async def on_listen(ctx: Any, params: Any) -> types.SubscriptionsListenResult:
        """A listen stream's resource URIs are checked and held like subscriptions, for as
        long as the stream is open."""
        notifier.bind(ctx)
        holder = f"listen:{next(listen_streams)}"  # request ids of two clients may be equal
        held: list[str] = []
        try:
            for uri in params.notifications.resource_subscriptions or []:
                result = session.subscribe(uri, holder)
                if result.is_error:
                    raise _refused(result)
                held.append(uri)
            return await listen(ctx, params)
        finally:
            for uri in held:
                session.server.subscriptions.remove(uri, session, holder)

    return {
        "on_list_resources": _guarded(on_list_resources),
        "on_list_resource_templates": on_list_resource_templates,
        "on_read_resource": _guarded(on_read_resource),
        "on_subscribe_resource": _guarded(on_subscribe),
        "on_unsubscribe_resource": _guarded(on_unsubscribe),
        "on_subscriptions_listen": on_listen,
    }


def _guarded(handler: Any) -> Any:
    """A resources/* handler whose own fault is answered -32603 in this server's words (the
    SDK would answer code 0 with Python's message), said once on stderr."""

    async def guarded(ctx: Any, params: Any) -> Any:
        try:
            return await handler(ctx, params)
        except MCPError:
            raise
        except Exception as e:
            _log.error("internal error in a resources request: %s", type(e).__name__)
            raise MCPError(
                types.INTERNAL_ERROR,
                "This server failed on the request and changed nothing; the fault is the "
                "server's, not the request's. Retrying is safe; report it if it repeats.",
            ) from None

    return guarded
