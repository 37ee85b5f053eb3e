"""The tests' fork server (tests/forkserve.py) against `python -m sim serve` started as a host
starts it: what the serve tests see through it must be what a real start would give."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys

from sim.bench.stdio import ROOT, SERVE, RawClient, tool_call
from sim.model.opening import KB_ID


def _run(command: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def test_a_refused_start_gives_the_real_start_s_status_and_words(serve_command: list[str]) -> None:
    flags = ["--articles", "many"]
    forked = _run([*serve_command, *flags])
    assert forked == _run([*SERVE, *flags])
    assert forked[0] == 2 and "--articles" in forked[2]


def test_a_session_answers_as_the_real_server_s_does(serve_command: list[str]) -> None:
    def session(serve: list[str]) -> list[dict | None]:
        client = RawClient("--articles", "5", serve=serve)
        client.handshake()
        args = {"knowledge_base_id": KB_ID, "query": "password"}
        client.send(tool_call(1, "search_knowledge_base", args))
        client.send(tool_call(2, "read_knowledge_article", {"knowledge_base_id": KB_ID}))
        answers = [client.receive(), client.receive()]
        assert client.close() == ""
        assert client.proc.returncode == 0
        return answers

    assert session(serve_command) == session(SERVE)


def test_the_server_ends_with_its_launcher(serve_command: list[str]) -> None:
    """Killed outright, the launcher cannot pass anything on: the server is killed, so the
    client's stdout reaches its end (the server held the only other end)."""
    client = RawClient("--articles", "5", serve=serve_command)
    client.handshake()
    client.proc.kill()
    assert client.proc.wait(timeout=10) == -signal.SIGKILL
    assert client.proc.stdout is not None
    fd = client.proc.stdout.fileno()
    assert select.select([fd], [], [], 10)[0], "the server still holds stdout 10 s later"
    assert os.read(fd, 1) == b""  # its end: no process holds the pipe
    client.proc.stdout.close()
    assert client.proc.stdin is not None and client.proc.stderr is not None
    client.proc.stderr.close()
    client.proc.stdin.close()


def test_a_signal_to_the_launcher_reaches_the_server_and_its_status_comes_back(
    serve_command: list[str],
) -> None:
    """SIGINT ends a real server by its own handler, with status 0: through the launcher it
    must reach the server and its status come back (SIGTERM and SIGKILL end either at once)."""

    def interrupted(serve: list[str]) -> int:
        client = RawClient("--articles", "5", serve=serve)
        client.handshake()
        client.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
        assert (client.receive() or {}).get("id") == "p"  # serving, past its start
        client.proc.send_signal(signal.SIGINT)
        status = client.proc.wait(timeout=10)
        assert "Traceback" not in client.close()
        return status

    assert interrupted(serve_command) == interrupted(SERVE) == 0


IGNORING_SIGINT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]
"""Runs its arguments with SIGINT ignored, as a non-interactive shell starts a job with `&`
(exec keeps an ignored signal ignored)."""


def test_a_server_started_ignoring_sigint_keeps_ignoring_it(serve_command: list[str]) -> None:
    """As Python does while it starts: the foreground's Ctrl-C, which the shell spared the
    background job, must not end it. Once stdin closes it leaves as usual, with status 0."""

    def survives(serve: list[str]) -> int:
        client = RawClient("--articles", "5", serve=[*IGNORING_SIGINT, *serve])
        client.handshake()
        client.proc.send_signal(signal.SIGINT)
        client.send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
        assert client.receive() == {"jsonrpc": "2.0", "id": "p", "result": {}}
        assert client.close() == ""
        return client.proc.returncode

    assert survives(serve_command) == survives(SERVE) == 0
