"""`serve --http` against what runs servers out of memory and what a hostile client sends:
requests that carry no session allocate none, the session cap refuses clearly, abandoned
sessions are reaped until the server holds what it held before (a soak, bounded in count
and time, loopback only), and each malformed request gets an HTTP status and a JSON-RPC
error, changes nothing and leaves the server serving. Bad flags end with one line."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from sim.bench import http_raw as raw
from sim.bench.http_process import HttpServer
from sim.model.opening import KB_ID
from sim.server.edit import EDIT_TOOL

ROOT = Path(__file__).resolve().parents[1]
CAP = 12
IDLE_S = 0.3
ROUNDS = 3
READ = {"knowledge_base_id": KB_ID, "article_id": "art-00001"}


@pytest.fixture(scope="module")
def server(serve_command: list[str]) -> Iterator[HttpServer]:
    flags = ["--articles", "5", "--max-sessions", str(CAP), "--session-idle-s", str(IDLE_S)]
    with HttpServer(serve_command, *flags, cwd=ROOT) as s:
        yield s


def _open_when_room(http: httpx2.Client, url: str) -> str:
    """A session, once the cap has room: an earlier test's abandoned sessions (the soak's
    last round) may still wait for their reaper, which frees them within IDLE_S or so."""
    deadline = time.monotonic() + 20 * IDLE_S + 5
    while True:
        try:
            return raw.open_session(http, url)
        except httpx2.HTTPStatusError as e:
            if e.response.status_code != 503 or time.monotonic() > deadline:
                raise
            time.sleep(IDLE_S / 3)


def _ping(i: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "ping"}


def _open_all(http: httpx2.Client, url: str, n: int) -> list[str]:
    """n sessions, each subscribed to an article after one read; none ended with DELETE."""
    sessions = []
    for _ in range(n):
        sid = raw.open_session(http, url)
        assert raw.call(http, url, sid, 2, "read_knowledge_article", READ) is not None
        subscribe = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "resources/subscribe",
            "params": {"uri": f"kb://{KB_ID}/articles/art-00001"},
        }
        assert http.post(url, json=subscribe, headers=raw.headers(session=sid)).is_success
        sessions.append(sid)
    return sessions


def _reaped(http: httpx2.Client, url: str, sessions: list[str]) -> None:
    """Wait untouched (a request would keep a session alive), then find each gone: 404."""
    time.sleep(3 * IDLE_S)
    for sid in sessions:
        assert http.post(url, json=_ping(9), headers=raw.headers(session=sid)).status_code == 404


def test_requests_without_a_session_allocate_none_and_past_the_cap_initialize_is_503(
    server: HttpServer,
) -> None:
    with httpx2.Client() as http:
        for method in ("GET", "DELETE"):
            for _ in range(2 * CAP):
                r = http.request(method, server.url, headers=raw.headers())
                assert (
                    r.status_code == 400
                    and "no session was created" in r.json()["error"]["message"]
                )
        for _ in range(2 * CAP):
            r = http.post(server.url, json=_ping(1), headers=raw.headers())
            assert r.status_code == 400
        with contextlib.ExitStack() as streams:
            sessions = []
            for _ in range(CAP):  # the cap is still whole; a GET stream keeps each one open
                sessions.append(raw.open_session(http, server.url))
                get = raw.headers(session=sessions[-1], Accept="text/event-stream")
                opened = streams.enter_context(http.stream("GET", server.url, headers=get))
                assert opened.status_code == 200
            refused = http.post(server.url, json=raw.initialize(), headers=raw.headers())
            for sid in sessions:
                assert http.delete(server.url, headers=raw.headers(session=sid)).status_code == 200
    assert refused.status_code == 503 and refused.headers["retry-after"]
    message = refused.json()["error"]["message"]
    assert f"cap of {CAP} open sessions" in message and "--max-sessions" in message


def test_abandoned_sessions_are_reaped_and_the_server_ends_the_soak_where_it_began(
    server: HttpServer,
) -> None:
    """ROUNDS × CAP sessions, none deleted: each round is reaped whole before the next opens
    (the cap would refuse it otherwise), and the server's memory after the last round is
    that after the first (a session that kept 100 KB would add CAP × 300 KB)."""
    rss = []
    with httpx2.Client() as http:
        for _ in range(ROUNDS):
            sessions = _open_all(http, server.url, CAP)
            _reaped(http, server.url, sessions)
            rss.append(server.rss_kb())
        assert len(_open_all(http, server.url, CAP)) == CAP  # every session was freed
    assert rss[-1] - rss[0] < 1_024, str(rss)
    assert "Traceback" not in server.stderr()


def _post(body: bytes, **headers: str) -> tuple[bytes, dict[str, str]]:
    return body, headers


def _call(i: int, name: Any, arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
    ).encode()


EDIT = {**READ, "content": "x", "expected_version": "2020-01-01T00:00:00Z", "idempotency_key": "k"}
HOSTILE: dict[str, tuple[bytes, dict[str, str], int, int]] = {
    "not JSON": (b"{nope", {}, 400, -32700),
    "empty body": (b"", {}, 400, -32600),
    "a batch": (b"[" + json.dumps(_ping(1)).encode() + b"]", {}, 400, -32600),
    "a batch of edits": (b"[" + _call(2, EDIT_TOOL, EDIT) + b"]", {}, 400, -32600),
    "a number": (b"42", {}, 400, -32600),
    "jsonrpc 1.0": (json.dumps({**_ping(3), "jsonrpc": "1.0"}).encode(), {}, 400, -32600),
    "an array id": (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', {}, 400, -32600),
    "nested 300 deep": (_call(4, "x", json.loads("[" * 300 + "]" * 300)), {}, 400, -32600),
    "arguments no object": (_call(5, "read_knowledge_article", [1]), {}, 400, -32602),
    "edit arguments no object": (_call(6, EDIT_TOOL, "all"), {}, 400, -32602),
    "NaN": (b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":NaN}}', {}, 400, -32700),
    "not UTF-8": (
        b'{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"\xff"}}',
        {},
        400,
        -32700,
    ),
    "a lone surrogate": (b'{"jsonrpc":"2.0","id":9,"method":"p\\ud800"}', {}, 400, -32600),
    "over 4 MiB": (_call(10, EDIT_TOOL, {**EDIT, "content": "a" * 5 * 2**20}), {}, 413, -32600),
    "text/plain": (json.dumps(_ping(11)).encode(), {"Content-Type": "text/plain"}, 415, -32600),
    "no Accept": (json.dumps(_ping(12)).encode(), {"Accept": ""}, 406, -32600),
    "JSON-only Accept": (
        json.dumps(_ping(13)).encode(),
        {"Accept": "application/json"},
        406,
        -32600,
    ),
    "a wrong version": (
        json.dumps(_ping(14)).encode(),
        {"MCP-Protocol-Version": "1999-01-01"},
        400,
        -32600,
    ),
    "an unknown session": (json.dumps(_ping(15)).encode(), {raw.SESSION: "f" * 32}, 404, -32600),
}


def test_each_hostile_request_gets_a_status_and_an_error_and_changes_nothing(
    server: HttpServer,
) -> None:
    with httpx2.Client() as http, contextlib.ExitStack() as held:
        sid = _open_when_room(http, server.url)
        get = raw.headers(session=sid, Accept="text/event-stream")  # kept open: the session
        held.enter_context(http.stream("GET", server.url, headers=get))  # outlives IDLE_S
        poll = {"resource_type": "knowledge_base", "resource_id": KB_ID}
        before = raw.call(http, server.url, sid, 1, "poll_resource_events", poll)
        answered, messages = {}, []
        for name, (body, extra, _, _) in HOSTILE.items():
            r = http.post(server.url, content=body, headers=raw.headers(session=sid, **extra))
            error = r.json()["error"] if r.content else {}
            answered[name] = (r.status_code, error.get("code"), bool(error.get("message")))
            messages.append(error.get("message", ""))
        after = raw.call(http, server.url, sid, 2, "poll_resource_events", poll)
        ended = raw.open_session(http, server.url)
        assert http.delete(server.url, headers=raw.headers(session=ended)).status_code == 200
        gone = http.post(server.url, json=_ping(16), headers=raw.headers(session=ended))
        held.close()
        http.delete(server.url, headers=raw.headers(session=sid))
    assert answered == {
        name: (status, code, True) for name, (_, _, status, code) in HOSTILE.items()
    }
    assert before is not None and after is not None
    assert after["result"]["structuredContent"] == before["result"]["structuredContent"]
    assert gone.status_code == 404 and gone.json()["error"]["code"] == -32600
    for said in (
        messages[list(HOSTILE).index("an unknown session")],
        gone.json()["error"]["message"],
    ):
        assert said.startswith("Session not found") and "send initialize without" in said, said
    assert "Traceback" not in server.stderr()
    # the refusals name HTTP's unit, not stdio's line
    assert not [m for m in messages if "per line" in m]
    assert any("send one message per request body" in m for m in messages)


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--http", "0.0.0.0:0"], "0.0.0.0 is not a loopback address"),
        (["--http", "99999"], "PORT 0 to 65535"),
        (["--http", "0", "--tokens", "/nonexistent.json"], "--tokens: no file at the path"),
        (["--http", "0", "--tokens", '{"tokens": [{"token": "Secret-123"}]}'], "not shown"),
        (["--tokens", "t.json"], "--tokens needs --http"),
        (["--http", "0", "--session-idle-s", "0"], "--session-idle-s"),
    ],
)
def test_a_bad_http_flag_is_one_line_and_exit_2(
    serve_command: list[str], flags: list[str], says: str
) -> None:
    done = subprocess.run(
        [*serve_command, *flags], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert "Secret-123" not in done.stderr


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ("[]", "at least one token"),
        ('{"tokens": [{"label": "a b", "token": "x"}]}', "tokens[0].label"),
        ('{"tokens": [{"label": "bot", "token": "short"}]}', "tokens[0].token (bot)"),
        (
            '{"tokens": [{"label": "bot", "token": "0123456789abcdefXY", "read": "kb"}]}',
            ".read (bot)",
        ),
        (
            '{"tokens": [{"label": "bot", "token": "0123456789abcdefXY", "admin": true}]}',
            "unknown field",
        ),
    ],
)
def test_a_bad_tokens_file_names_the_entry_and_never_the_token(
    tmp_path: Path, doc: str, says: str
) -> None:
    from sim.server.grants import GrantsError, load_grants

    path = tmp_path / "tokens.json"
    path.write_text(doc)
    with pytest.raises(GrantsError, match=None) as refused:
        load_grants(path)
    assert says in str(refused.value) and "0123456789abcdefXY" not in str(refused.value)


def test_the_load_mix_keeps_the_study_shares_and_the_targets_count_every_error() -> None:
    from sim.bench.http_load import cycle_of
    from sim.bench.http_report import targets

    mix = {"read": 0.52, "search": 0.38, "edit": 0.097, "poll": 0.003}
    cycle = cycle_of(mix, 20)
    assert len(cycle) == 20 and {t: cycle.count(t) for t in mix} == {
        "read": 10,
        "search": 7,
        "edit": 2,  # 1.94: the largest remainder
        "poll": 1,  # 0.06: every tool at least once
    }
    row = {
        "clients": 50,
        "calls_per_s": 90.0,
        "p50_ms": 20.0,
        "p99_ms": 60.0,
        "errors": 0,
        "first_error": "",
        "server_cpu_share": 1.0,
        "client_cpu_share": 0.5,
    }
    load = {
        "kb": [row, {**row, "clients": 200, "errors": 2, "first_error": "x"}],
        "floor": [{**row, "calls_per_s": 100.0}, {**row, "clients": 200}],
    }
    met = {t["target"]: t["met"] for t in targets(load)}
    assert list(met.values()) == [True, True, False]


def test_a_port_already_taken_is_one_line_and_exit_2(serve_command: list[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        done = subprocess.run(
            [*serve_command, "--http", port], capture_output=True, text=True, timeout=60, cwd=ROOT
        )
    assert done.returncode == 2 and f"cannot listen on 127.0.0.1 port {port}" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_the_listening_socket_says_tcp_so_asyncio_sets_nodelay_on_each_connection() -> None:
    """A socket made with protocol 0 got no TCP_NODELAY from asyncio: every answer then
    waited for the client's delayed ACK (44 ms a call at one client instead of 6)."""
    import socket

    from sim.server.http import listen

    with listen("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP and sock.getsockname()[1] > 0


def test_the_sdk_still_keeps_a_requests_connection_where_serve_http_reads_it() -> None:
    """serve --http reads each request's Connection (session id, state, exit_stack) from the
    handler's ServerSession, whose `_connection` is the SDK's own private name: an SDK that
    renames it fails here, and at the server's first call with a message that says so."""
    from contextlib import AsyncExitStack
    from types import SimpleNamespace

    from mcp.server.connection import Connection
    from mcp.server.session import ServerSession

    from sim.server.http_sessions import connection_of

    connection = Connection(None, protocol_version="2025-06-18", session_id="s1")  # type: ignore[arg-type]
    ctx = SimpleNamespace(session=ServerSession(None, connection))  # type: ignore[arg-type]
    found = connection_of(ctx)
    assert found is connection and found.session_id == "s1"
    assert isinstance(found.state, dict) and isinstance(found.exit_stack, AsyncExitStack)
    with pytest.raises(RuntimeError, match="keeps no _connection"):
        connection_of(SimpleNamespace(session=object()))
