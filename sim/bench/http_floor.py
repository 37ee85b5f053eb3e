"""The floor of the HTTP load test: the SDK's own minimal server (``MCPServer``) on its own
streamable-HTTP app and one uvicorn worker, with four tools of the KB's names that echo
their arguments. No store, no grants, no screening: what the SDK and uvicorn cost alone.

Run as ``python -m sim.bench.http_floor [--json]`` (``--json``: one JSON body per POST, as
``serve --http-json``; else SSE, the SDK's default): it prints the URL it serves (port 0: any free
one, on 127.0.0.1) and serves until SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from starlette.applications import Starlette


def _app(json_response: bool = False) -> Starlette:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("echo-floor")

    def echo(**arguments: object) -> str:
        return json.dumps(arguments)

    @server.tool()
    def search_knowledge_base(knowledge_base_id: str, query: str, limit: int = 10) -> str:
        return echo(knowledge_base_id=knowledge_base_id, query=query, limit=limit)

    @server.tool()
    def read_knowledge_article(knowledge_base_id: str, article_id: str) -> str:
        return echo(knowledge_base_id=knowledge_base_id, article_id=article_id)

    @server.tool()
    def edit_knowledge_article(
        knowledge_base_id: str,
        article_id: str,
        content: str,
        expected_version: str,
        idempotency_key: str,
        title: str | None = None,
    ) -> str:
        return echo(knowledge_base_id=knowledge_base_id, article_id=article_id, content=content)

    @server.tool()
    def poll_resource_events(
        resource_type: str, resource_id: str, after_sequence: int = 0, limit: int = 100
    ) -> str:
        return echo(resource_type=resource_type, resource_id=resource_id)

    return server.streamable_http_app(max_sessions=1_000, json_response=json_response)


async def _serve(json_response: bool) -> None:
    import uvicorn

    from sim.server.http import KEEP_ALIVE_S, listen

    # the KB server's own socket (TCP_NODELAY on each connection) and keep-alive: the two
    # differ only in what they serve
    sock = listen("127.0.0.1", 0)
    config = uvicorn.Config(
        _app(json_response), log_level="warning", timeout_keep_alive=KEEP_ALIVE_S
    )
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        while not server.started:
            await anyio.sleep(0.01)
        host, port = sock.getsockname()[:2]
        print(f"serving the echo floor at http://{host}:{port}/mcp (pid {os.getpid()})", flush=True)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_serve, "--json" in sys.argv[1:])
