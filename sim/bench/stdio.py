"""`python -m sim serve` measured as a client sees it: raw JSON-RPC lines over a pipe.

Cold start is the wall time from starting the process to the answer to ``initialize``;
throughput is tool calls answered per second with 2,000 requests pipelined.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.bench.timing import spread
from sim.model.opening import KB_ID

ROOT = Path(__file__).resolve().parents[2]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-client", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


SERVE = [sys.executable, "-m", "sim", "serve"]

EXIT_WAIT_S = 20.0
"""How long a server may take to end once its stdin is closed."""


class RawClient:
    """A `python -m sim serve` process spoken to line by line, as a hostile client would."""

    def __init__(self, *flags: str, serve: Sequence[str] = SERVE) -> None:
        """Start `serve` (the command, to which the flags are added) on pipes."""
        self.proc = subprocess.Popen(
            [*serve, *flags],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._buffer = b""

    def send(self, line: bytes | dict[str, Any]) -> None:
        data = line if isinstance(line, bytes) else json.dumps(line).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def send_all(self, lines: list[bytes | dict[str, Any]]) -> threading.Thread:
        """Send every line from a thread, so that reading answers meanwhile cannot deadlock
        on a full pipe."""
        data = b"".join(
            (x if isinstance(x, bytes) else json.dumps(x).encode()) + b"\n" for x in lines
        )
        assert self.proc.stdin is not None
        stdin = self.proc.stdin

        def write() -> None:
            stdin.write(data)
            stdin.flush()

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        return thread

    def receive(self, timeout_s: float = 30.0) -> dict[str, Any] | None:
        """The next line on stdout, parsed, or None if none came in time."""
        assert self.proc.stdout is not None
        if self.proc.stdout.closed:  # after close(): what the server wrote is all buffered
            if b"\n" not in self._buffer:
                return None
            line, self._buffer = self._buffer.split(b"\n", 1)
            return json.loads(line)
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def handshake(self) -> dict[str, Any]:
        self.send(INITIALIZE)
        answer = self.receive()
        assert answer is not None and answer.get("id") == "init", answer
        self.send(INITIALIZED)
        return answer

    def close(self) -> str:
        """Close stdin, wait for the server to leave, and return what it wrote to stderr.

        Raises AssertionError if it is still running 20 s later (it is then killed): a
        server must end at the end of its input."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        assert self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=EXIT_WAIT_S)
            hung = False
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            hung = True
        # the server has ended: its answers not yet received are kept for receive(), and
        # both pipes are closed here rather than left to the garbage collector
        self._buffer += self.proc.stdout.read()
        self.proc.stdout.close()
        stderr = self.proc.stderr.read().decode("utf-8", "replace")
        self.proc.stderr.close()
        if hung:
            raise AssertionError(
                f"the server was still running {EXIT_WAIT_S:g} s after stdin closed "
                f"(killed); its stderr: {stderr}"
            )
        return stderr


def tool_call(request_id: int | str, name: str, arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


def mixed_calls(n: int) -> list[dict[str, Any]]:
    """n tool calls cycling through search, read, poll and a (refused) stale edit."""
    kinds = [
        ("search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "reset password"}),
        ("read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": "art-00001"}),
        ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB_ID}),
        (
            "edit_knowledge_article",
            {
                "knowledge_base_id": KB_ID,
                "article_id": "art-00001",
                "content": "x",
                "expected_version": "2000-01-01T00:00:00Z",
                "idempotency_key": "k",
            },
        ),
    ]
    return [tool_call(i, *kinds[i % len(kinds)]) for i in range(n)]


def cold_start(repeats: int) -> dict[str, float]:
    """Seconds from process start to the initialize answer (the default 400-article KB)."""
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        client = RawClient()
        client.handshake()
        times.append(time.perf_counter() - t)
        client.close()
    return spread(times)


def throughput(calls: int = 2_000, repeats: int = 3) -> dict[str, Any]:
    """Tool calls per second over stdio, all sent before the first answer is read."""
    rates = []
    for _ in range(repeats):
        client = RawClient()
        client.handshake()
        requests: list[bytes | dict[str, Any]] = list(mixed_calls(calls))
        t = time.perf_counter()
        client.send_all(requests).join(timeout=0)
        answered = sum(client.receive() is not None for _ in requests)
        rates.append(answered / (time.perf_counter() - t))
        client.close()
    return {"calls": calls, "calls_per_s": spread(rates)}
