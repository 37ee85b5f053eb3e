"""`serve --http` as clients nobody here wrote meet it (the Python SDK's streamable HTTP
client, in both protocol eras) and as a hostile one does (raw HTTP): the four tools, an
approval, grants by token, 401 with its metadata, Host and Origin, sessions and their
end, push across sessions and across two processes on one --db file."""

from __future__ import annotations

import json
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
from sim.serve import open_store
from sim.server.edit import EDIT_TOOL

ROOT = Path(__file__).resolve().parents[1]
TOKENS = {
    "support-bot": "tok-support-0123456789abcdef",
    "reader": "tok-reader-0123456789abcdef",
    "stranger": "tok-stranger-0123456789abcdef",
}
GRANTS = {
    "support-bot": {"read": [KB_ID], "edit": [KB_ID]},
    "reader": {"read": [KB_ID]},
    "stranger": {"read": ["kb-other"], "edit": ["kb-other"]},
}
MODES = ["legacy", "2026-07-28"]
WAIT_S = 10.0


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("http")
    tokens = root / "tokens.json"
    entries = [{"label": k, "token": TOKENS[k], **GRANTS[k]} for k in TOKENS]
    tokens.write_text(json.dumps({"tokens": entries}))
    return {"db": root / "kb.sqlite", "tokens": tokens, "log": root / "calls.jsonl"}


@pytest.fixture(scope="module")
def servers(serve_command: list[str], files: dict[str, Path]) -> Iterator[tuple[HttpServer, ...]]:
    """A (tokens, --write-gate, call log) and B (tokens), both on one --db file, built
    before either starts (as `serve --db FILE --create` builds it)."""
    open_store(1, 20, files["db"], create=True).close()
    common = ["--db", str(files["db"]), "--tokens", str(files["tokens"])]
    with (
        HttpServer(
            serve_command,
            *common,
            "--write-gate",
            "--call-log",
            str(files["log"]),
            "--allow-origin",
            "https://app.example",
            cwd=ROOT,
        ) as a,
        HttpServer(serve_command, *common, cwd=ROOT) as b,
    ):
        yield a, b


def _client(url: str, token: str, mode: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs)


async def _accept(_context: Any, _request: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={})


def _article(i: int) -> dict[str, str]:
    return {"knowledge_base_id": KB_ID, "article_id": f"art-{i:05d}"}


def _edit(i: int, version: str, key: str) -> dict[str, Any]:
    return {
        **_article(i),
        "content": f"Body {key}.",
        "expected_version": version,
        "idempotency_key": key,
    }


@pytest.mark.parametrize("mode", MODES)
def test_the_sdk_client_runs_the_four_tools_and_an_approved_edit(
    servers: tuple[HttpServer, ...], mode: str
) -> None:
    a, _ = servers
    n = 1 + MODES.index(mode)
    prompts: list[str] = []

    async def accept(context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        return await _accept(context, request)

    async def main() -> tuple[Any, ...]:
        async with _client(a.url, TOKENS["support-bot"], mode, elicitation_callback=accept) as c:
            names = [t.name for t in (await c.list_tools()).tools]
            found = await c.call_tool(
                "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "password"}
            )
            read = await c.call_tool("read_knowledge_article", _article(n))
            version = read.structured_content["updated_at"]
            poll = {"resource_type": "knowledge_base", "resource_id": KB_ID, "limit": 1}
            head = (await c.call_tool("poll_resource_events", poll)).structured_content
            saved = await c.call_tool(EDIT_TOOL, _edit(n, version, f"sdk-{mode}"))
            after = {**poll, "after_sequence": head["head_sequence"]}
            polled = await c.call_tool("poll_resource_events", after)
            missing = await c.call_tool(
                "read_knowledge_article", {**_article(n), "knowledge_base_id": "kb-x"}
            )
            return names, found, version, saved, polled, missing

    names, found, version, saved, polled, missing = anyio.run(main)
    assert names == [
        "search_knowledge_base",
        "read_knowledge_article",
        EDIT_TOOL,
        "poll_resource_events",
    ]
    assert not found.is_error and found.structured_content["hits"]
    assert not saved.is_error, saved.content[0].text
    assert saved.structured_content["updated_at"] != version
    assert len(prompts) == 1 and f"art-{n:05d}" in prompts[0]  # asked once, for this edit
    assert [e["article_id"] for e in polled.structured_content["events"]] == [f"art-{n:05d}"]
    assert missing.is_error
    assert missing.structured_content["error"]["code"] == "knowledge_base_not_found"


def test_a_read_only_grant_is_refused_an_edit_naming_the_grant_and_nobody_is_asked(
    servers: tuple[HttpServer, ...],
) -> None:
    a, _ = servers
    prompts: list[Any] = []

    async def ask(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request)
        return types.ElicitResult(action="accept", content={})

    async def main() -> tuple[Any, Any, Any]:
        async with _client(a.url, TOKENS["reader"], "legacy", elicitation_callback=ask) as c:
            before = await c.call_tool("read_knowledge_article", _article(5))
            version = before.structured_content["updated_at"]
            refused = await c.call_tool(EDIT_TOOL, _edit(5, version, "reader-1"))
            after = await c.call_tool("read_knowledge_article", _article(5))
            return version, refused, after

    version, refused, after = anyio.run(main)
    assert refused.is_error and refused.structured_content["error"]["code"] == "edit_not_granted"
    assert "reader may read" in refused.content[0].text and "read-only" in refused.content[0].text
    assert prompts == [] and after.structured_content["updated_at"] == version


def test_a_kb_the_token_may_not_read_answers_as_one_that_does_not_exist(
    servers: tuple[HttpServer, ...],
) -> None:
    a, _ = servers

    async def main() -> tuple[Any, Any]:
        async with _client(a.url, TOKENS["stranger"], "legacy") as c:
            hidden = await c.call_tool("read_knowledge_article", _article(1))
            absent = await c.call_tool(
                "read_knowledge_article", {**_article(1), "knowledge_base_id": "kb-absent"}
            )
            return hidden, absent

    hidden, absent = anyio.run(main)
    shown = json.dumps(hidden.structured_content).replace(KB_ID, "KB")
    assert shown == json.dumps(absent.structured_content).replace("kb-absent", "KB")
    assert (
        hidden.is_error and hidden.structured_content["error"]["code"] == "knowledge_base_not_found"
    )


@pytest.mark.parametrize(
    "token",
    [None, "Bearer tok-wrong-0123456789abcdef", "Basic abc", "Bearer " + TOKENS["reader"][:-1]],
)
def test_no_or_an_unknown_token_is_401_naming_the_metadata_the_server_serves(
    servers: tuple[HttpServer, ...], token: str | None
) -> None:
    a, _ = servers
    sent = raw.headers() | ({} if token is None else {"Authorization": token})
    with httpx2.Client() as http:
        r = http.post(a.url, json=raw.initialize(), headers=sent)
        assert r.status_code == 401 and r.json()["error"]["code"] == -32600
        challenge = r.headers["www-authenticate"]
        metadata = f"{a.base}/.well-known/oauth-protected-resource/mcp"
        assert challenge.startswith("Bearer ") and f'resource_metadata="{metadata}"' in challenge
        # RFC 6750 § 3.1: no error code for a request that carried no credentials
        assert ('error="invalid_token"' in challenge) is (token is not None)
        doc = http.get(metadata).json()
    assert doc["resource"] == a.url and doc["bearer_methods_supported"] == ["header"]


@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"Host": "evil.example"}, 421),
        ({"Host": "127.0.0.1.evil.example:80"}, 421),
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "null"}, 403),
        ({"Origin": "https://app.example"}, 200),  # --allow-origin
        ({"Origin": "http://localhost:5173"}, 200),  # loopback origins on a loopback server
    ],
)
def test_host_and_origin_are_checked_against_the_allowlist(
    servers: tuple[HttpServer, ...], extra: dict[str, str], status: int
) -> None:
    a, _ = servers
    with httpx2.Client() as http:
        r = http.post(a.url, json=raw.initialize(), headers=raw.headers(TOKENS["reader"], **extra))
        assert r.status_code == status, r.text
        if status != 200:
            assert r.json()["error"]["code"] == -32600 and r.json()["id"] is None
            if status == 403:  # it says what is allowed
                message = r.json()["error"]["message"]
                assert "http(s)://localhost on any port" in message, message
                assert "https://app.example" in message and "--allow-origin" in message
        else:
            http.delete(a.url, headers=raw.headers(TOKENS["reader"], r.headers[raw.SESSION]))


def test_a_session_ends_on_delete_and_answers_404_after_and_to_another_token(
    servers: tuple[HttpServer, ...],
) -> None:
    a, _ = servers
    token = TOKENS["reader"]
    with httpx2.Client() as http:
        sid = raw.open_session(http, a.url, token)
        ok = raw.call(http, a.url, sid, 2, "read_knowledge_article", _article(1), token)
        assert ok is not None and not ok["result"]["isError"]
        other = http.post(
            a.url,
            json={"jsonrpc": "2.0", "id": 3, "method": "ping"},
            headers=raw.headers(TOKENS["support-bot"], sid),
        )
        assert other.status_code == 404  # a session is its token's: to others it does not exist
        assert http.delete(a.url, headers=raw.headers(token, sid)).status_code == 200
        gone = http.post(
            a.url,
            json={"jsonrpc": "2.0", "id": 4, "method": "ping"},
            headers=raw.headers(token, sid),
        )
        assert gone.status_code == 404 and gone.json()["error"]["message"]
        assert http.delete(a.url, headers=raw.headers(token, sid)).status_code == 404


@pytest.mark.parametrize("mode", MODES)
def test_a_subscriber_hears_saves_by_another_session_and_by_another_process(
    servers: tuple[HttpServer, ...], mode: str
) -> None:
    """A is subscribed; the saves go through another session of A and through B (another
    serve process on the same --db file, whose save reaches A by A's reading of the log)."""
    a, b = servers
    n = 10 + MODES.index(mode)
    uri = f"kb://{KB_ID}/articles/art-{n:05d}"
    heard: list[str] = []

    async def save(url: str, key: str) -> None:
        async with _client(url, TOKENS["support-bot"], "legacy", elicitation_callback=_accept) as c:
            read = await c.call_tool("read_knowledge_article", _article(n))
            saved = await c.call_tool(
                EDIT_TOOL, _edit(n, read.structured_content["updated_at"], key)
            )
            assert not saved.is_error, saved.content[0].text

    async def until(count: int) -> None:
        with anyio.fail_after(WAIT_S):
            while len(heard) < count:
                await anyio.sleep(0.02)

    async def legacy() -> None:
        async def on_message(message: Any) -> None:
            if isinstance(message, types.ResourceUpdatedNotification):
                heard.append(message.params.uri)

        async with _client(a.url, TOKENS["reader"], "legacy", message_handler=on_message) as c:
            with pytest.warns(Warning):  # deprecated for 2026-07-28; this is the 2025 era
                await c.subscribe_resource(uri)
            await anyio.sleep(0.2)  # the client's GET stream, which carries notifications
            await save(a.url, f"push-a-{mode}")
            await until(1)
            await save(b.url, f"push-b-{mode}")
            await until(2)

    async def modern() -> None:
        async with (
            _client(a.url, TOKENS["reader"], mode) as c,
            c.listen(resource_subscriptions=[uri]) as sub,
        ):

            async def collect() -> None:
                async for event in sub:
                    heard.append(event.uri)

            async with anyio.create_task_group() as tg:
                tg.start_soon(collect)
                await save(a.url, f"push-a-{mode}")
                await until(1)
                await save(b.url, f"push-b-{mode}")
                await until(2)
                tg.cancel_scope.cancel()

    anyio.run(legacy if mode == "legacy" else modern)
    assert heard == [uri, uri]


def test_the_call_log_names_labels_and_no_token_is_written_anywhere(
    servers: tuple[HttpServer, ...], files: dict[str, Path]
) -> None:
    a, b = servers
    log = files["log"].read_text()
    clients = {json.loads(line)["client"] for line in log.splitlines()}
    assert {"support-bot", "reader", "stranger"} <= clients
    for text in (log, a.stderr(), b.stderr()):
        assert not any(t in text for t in TOKENS.values())
        assert "Traceback" not in text


def test_ctrl_c_with_a_stream_open_ends_the_server_at_once_and_quietly(
    serve_command: list[str],
) -> None:
    """A GET stream never ends by itself; at SIGINT the server ends it (its body closed,
    not cut: uvicorn reports a cut one on stderr) and exits 0 with nothing on stderr."""
    import signal
    import threading
    import time

    with HttpServer(serve_command, "--articles", "20", cwd=ROOT) as server:
        opened = threading.Event()
        ended: list[str] = []

        def listen() -> None:
            with httpx2.Client(timeout=WAIT_S) as http:
                session = raw.open_session(http, server.url)
                get = raw.headers(session=session) | {"Accept": "text/event-stream"}
                with http.stream("GET", server.url, headers=get) as stream:
                    assert stream.status_code == 200
                    opened.set()
                    ended.append("".join(stream.iter_text()))  # returns when the body ends

        listener = threading.Thread(target=listen, daemon=True)
        listener.start()
        assert opened.wait(WAIT_S)
        time.sleep(0.2)  # the stream is being served, not only opened
        started = time.monotonic()
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(WAIT_S) == 0
        assert time.monotonic() - started < 5.0
        listener.join(WAIT_S)
        assert ended == [""] and server.stderr() == ""
