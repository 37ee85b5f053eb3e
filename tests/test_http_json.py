"""`serve --http-json`: 2025-era POSTs answered with one JSON body (the server's choice the
2025-era spec allows), and the Python SDK's streamable HTTP client, which takes either, doing
with it what it does over SSE: the tools, an approval asked on the session's GET stream,
a subscription's notification; a 2026-07-28 listen stays an SSE stream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sim.bench import http_raw as raw
from sim.bench.http_process import HttpServer
from sim.model.opening import KB_ID
from sim.server.edit import EDIT_TOOL

ROOT = Path(__file__).resolve().parents[1]
WAIT_S = 10.0


@pytest.fixture(scope="module")
def server(serve_command: list[str]) -> Iterator[HttpServer]:
    with HttpServer(
        serve_command, "--articles", "20", "--write-gate", "--http-json", cwd=ROOT
    ) as s:
        yield s


def _article(i: int) -> dict[str, str]:
    return {"knowledge_base_id": KB_ID, "article_id": f"art-{i:05d}"}


def test_each_post_is_one_json_body_and_a_bad_one_still_a_json_rpc_error(
    server: HttpServer,
) -> None:
    with httpx2.Client() as http:
        opened = http.post(server.url, json=raw.initialize(), headers=raw.headers())
        assert opened.headers["content-type"] == "application/json"
        assert opened.json()["result"]["serverInfo"]["name"]
        sid = opened.headers[raw.SESSION]
        http.post(server.url, json=raw.INITIALIZED, headers=raw.headers(session=sid))
        message = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "read_knowledge_article", "arguments": _article(1)},
        }
        read = http.post(server.url, json=message, headers=raw.headers(session=sid))
        assert read.status_code == 200 and read.headers["content-type"] == "application/json"
        assert read.json()["id"] == 2 and read.json()["result"]["structuredContent"]["updated_at"]
        batch = http.post(server.url, json=[message], headers=raw.headers(session=sid))
        assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600
        assert http.delete(server.url, headers=raw.headers(session=sid)).status_code == 200
    assert "Traceback" not in server.stderr()


def test_the_sdk_client_edits_with_an_approval_and_hears_its_subscription(
    server: HttpServer,
) -> None:
    uri = f"kb://{KB_ID}/articles/art-00003"
    prompts: list[str] = []
    heard: list[str] = []

    async def accept(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        return types.ElicitResult(action="accept", content={})

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(message.params.uri)

    async def main() -> tuple[Any, Any]:
        transport = streamable_http_client(server.url, http_client=httpx2.AsyncClient())
        async with Client(
            transport, mode="legacy", elicitation_callback=accept, message_handler=on_message
        ) as c:
            with pytest.warns(Warning):  # deprecated for 2026-07-28; this is the 2025 era
                await c.subscribe_resource(uri)
            found = await c.call_tool(
                "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "password"}
            )
            saved = await _edit_after_reading(c, 3, "json-1")
            await _until_heard(heard)
            return found, saved

    found, saved = anyio.run(main)
    assert not found.is_error and found.structured_content["hits"]
    assert not saved.is_error, saved.content[0].text
    assert len(prompts) == 1 and "art-00003" in prompts[0] and heard == [uri]


async def _edit_after_reading(c: Any, n: int, key: str) -> Any:
    """Read article n, then edit it with the version read (an edit that asks approval)."""
    read = await c.call_tool("read_knowledge_article", _article(n))
    edit = {
        **_article(n),
        "content": f"Body {key}.",
        "expected_version": read.structured_content["updated_at"],
        "idempotency_key": key,
    }
    return await c.call_tool(EDIT_TOOL, edit)


async def _until_heard(heard: list[str]) -> None:
    with anyio.fail_after(WAIT_S):
        while not heard:
            await anyio.sleep(0.02)


def test_a_2026_client_edits_with_an_approval_and_hears_it_on_its_listen_stream(
    server: HttpServer,
) -> None:
    uri = f"kb://{KB_ID}/articles/art-00004"
    heard: list[str] = []

    async def accept(_context: Any, _request: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={})

    async def main() -> Any:
        transport = streamable_http_client(server.url, http_client=httpx2.AsyncClient())
        async with (
            Client(transport, mode="2026-07-28", elicitation_callback=accept) as c,
            c.listen(resource_subscriptions=[uri]) as sub,
        ):

            async def collect() -> None:
                async for event in sub:
                    heard.append(event.uri)

            async with anyio.create_task_group() as tg:
                tg.start_soon(collect)
                saved = await _edit_after_reading(c, 4, "json-2")
                await _until_heard(heard)
                tg.cancel_scope.cancel()
            return saved

    saved = anyio.run(main)
    assert not saved.is_error, saved.content[0].text
    assert heard == [uri]
