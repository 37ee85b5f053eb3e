"""`serve --http` keeps its secrets and its sessions: no value of a tokens file is ever said
(whatever is wrong with the file, one line and exit 2), every path checks Host and Origin
(no redirect or metadata is built from a foreign Host), and one token cannot take every
session and lock the other tokens out. Real processes, the SDK's client, loopback only."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from sim.bench import http_raw as raw
from sim.bench.http_process import HttpServer
from sim.model.opening import KB_ID

ROOT = Path(__file__).resolve().parents[1]
SECRET = "SECRET-0123456789abcdef-do-not-print"
TOKENS = {"alpha": "tok-alpha-0123456789abcdef", "beta": "tok-beta-0123456789abcdef"}
NESTED = "[" * 100_000 + "]" * 100_000


def _tokens_file(root: Path) -> Path:
    path = root / "tokens.json"
    entries = [{"label": k, "token": v, "read": [KB_ID]} for k, v in TOKENS.items()]
    path.write_text(json.dumps({"tokens": entries}))
    return path


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (json.dumps({"tokens": [SECRET]}), "tokens[0]: expected an object"),
        (json.dumps({"tokens": {"bot": SECRET}}), "tokens as an object"),
        (json.dumps({"token": SECRET}), "tokens as null"),
        (json.dumps(SECRET), "received a string"),
        (json.dumps({"tokens": [{"label": SECRET + "!", "token": SECRET}]}), "tokens[0].label"),
        (json.dumps({"tokens": [{"label": "bot", "token": SECRET, "read": SECRET}]}), ".read"),
        (json.dumps({"tokens": [{"label": "bot", "token": 5, SECRET: 1}]}), "unknown field"),
        ('{"tokens": [{"label": "bot", "token": ' + SECRET + "}]}", "not JSON"),
        (NESTED, "nested too deeply"),
        ('{"tokens": [' * 50_000, "nested too deeply"),
        (b"\xff\xfe" + SECRET.encode(), "not UTF-8"),
        (None, "no file at the path given"),
        ("<dir>", "not a regular file"),
        ("<fifo>", "not a regular file"),
    ],
)
def test_any_malformed_tokens_file_is_one_line_exit_2_and_never_says_a_value(
    serve_command: list[str], tmp_path: Path, content: str | bytes | None, says: str
) -> None:
    path = tmp_path / "tokens.json"
    if content == "<dir>":
        path.mkdir()
    elif content == "<fifo>":
        os.mkfifo(path)  # reading it would block the start for good
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    done = subprocess.run(
        [*serve_command, "--http", "0", "--articles", "5", "--tokens", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2 and done.stdout == "", done.stderr
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and says in errors[0], done.stderr
    assert "Traceback" not in done.stderr and "SECRET" not in done.stderr


@pytest.fixture(scope="module")
def server(
    serve_command: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    """Two tokens, a cap of 4 sessions: by default 2 each."""
    tokens = _tokens_file(tmp_path_factory.mktemp("guard"))
    flags = ["--articles", "5", "--tokens", str(tokens), "--max-sessions", "4"]
    with HttpServer(serve_command, *flags, "--session-idle-s", "30", cwd=ROOT) as s:
        yield s


@pytest.mark.parametrize(
    ("method", "path", "extra", "status"),
    [
        ("POST", "/mcp/", {"Host": "evil.example"}, 421),
        ("GET", "/.well-known/oauth-protected-resource/mcp", {"Host": "evil.example"}, 421),
        (
            "GET",
            "/.well-known/oauth-protected-resource/mcp",
            {"Origin": "http://evil.example"},
            403,
        ),
        ("GET", "/elsewhere", {"Host": "evil.example:80"}, 421),
        ("POST", "/mcp/", {}, 404),  # not the endpoint, and no redirect to anywhere
        ("GET", "/.well-known/oauth-protected-resource/mcp", {}, 200),
    ],
)
def test_every_path_checks_host_and_origin_and_nothing_redirects(
    server: HttpServer, method: str, path: str, extra: dict[str, str], status: int
) -> None:
    with httpx2.Client(follow_redirects=False, timeout=10) as http:
        r = http.request(
            method, server.base + path, json=raw.initialize(), headers=raw.headers(**extra)
        )
    assert r.status_code == status, (r.status_code, r.headers, r.text)
    assert "location" not in r.headers  # no redirect, to a foreign host or any
    if status == 200:
        assert r.json()["resource"] == server.url
    elif status in (421, 403):
        assert r.json()["error"]["code"] == -32600


def test_one_token_cannot_take_every_session_and_the_other_still_opens_one(
    server: HttpServer,
) -> None:
    """alpha opens its share (2 of 4) and is refused a third with 429, saying the cap and
    the flag; beta still opens sessions with the SDK's client; a DELETE frees alpha's."""
    alpha = TOKENS["alpha"]
    with httpx2.Client(timeout=10) as http:
        held = [raw.open_session(http, server.url, alpha) for _ in range(2)]
        refused = http.post(server.url, json=raw.initialize(), headers=raw.headers(alpha))
        assert refused.status_code == 429 and refused.headers["retry-after"], refused.text
        message = refused.json()["error"]["message"]
        assert "cap of 2" in message and "--max-sessions-per-token" in message

        async def beta() -> list[str]:
            names = []
            for _ in range(2):
                client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKENS['beta']}"})
                async with Client(streamable_http_client(server.url, http_client=client)) as c:
                    with anyio.fail_after(10):
                        names.append((await c.list_tools()).tools[0].name)
            return names

        assert anyio.run(beta) == ["search_knowledge_base"] * 2
        assert http.delete(server.url, headers=raw.headers(alpha, held[0])).status_code == 200
        held[0] = raw.open_session(http, server.url, alpha)  # room again once one ended
        for sid in held:
            http.delete(server.url, headers=raw.headers(alpha, sid))


def test_an_explicit_per_token_cap_holds_under_a_burst_of_opening_requests(
    serve_command: list[str], tmp_path: Path
) -> None:
    """--max-sessions-per-token 3 under --max-sessions 10: twelve concurrent initializes
    of one token open exactly 3 sessions, the rest 429."""
    tokens = _tokens_file(tmp_path)
    flags = ["--articles", "5", "--tokens", str(tokens), "--max-sessions", "10"]
    with HttpServer(serve_command, *flags, "--max-sessions-per-token", "3", cwd=ROOT) as s:

        async def burst() -> list[int]:
            headers = raw.headers(TOKENS["alpha"])
            async with httpx2.AsyncClient(timeout=10) as http:
                statuses: list[int] = []

                async def one() -> None:
                    r = await http.post(s.url, json=raw.initialize(), headers=headers)
                    statuses.append(r.status_code)

                with anyio.fail_after(30):
                    async with anyio.create_task_group() as tg:
                        for _ in range(12):
                            tg.start_soon(one)
            return sorted(statuses)

        assert anyio.run(burst) == [200] * 3 + [429] * 9


def test_the_sdk_still_records_who_opened_each_session_where_serve_http_counts_them() -> None:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from sim.server.http_sessions import session_owners

    manager = StreamableHTTPSessionManager(app=None)  # type: ignore[arg-type]
    assert session_owners(manager) == {}
    with pytest.raises(RuntimeError, match="_session_owners"):
        session_owners(object())
