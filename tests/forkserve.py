"""A fork server for the tests' `python -m sim serve` processes.

A server costs about 1.5 CPU-s to start, nearly all of it the interpreter importing the
MCP SDK, and the tests start some forty. Here a zygote imports `sim` and the SDK once per
test worker. A launch is a small launcher process (standard library only) that hands its
own stdin, stdout and stderr to the zygote, which forks a server onto them: the forked
process runs ``sim.__main__.main(args)``, the code `python -m sim serve` runs once its
imports are done. The launcher passes on a signal it gets, exits with the server's status,
and takes the server with it if it dies: a client still has one process at the other
end of its pipes. What this leaves untested, the interpreter's start and the imports,
is still run by test_agent_view and timed by the bench's cold start.

A zygote of the kind "libraries" imports the third-party libraries the commands use and
no module of ``sim``: a command forked from it imports the project's own modules itself,
as `python -m sim` does (tests/test_readme.py runs the README's commands so).

Run as a script: ``forkserve.py SOCKET ARGS...`` launches; ``forkserve.py --zygote FD KIND``
is the zygote, on the listening socket FD (started by ``Zygote``).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import NoReturn

HERE = os.path.realpath(__file__)
LAUNCHER_FLAGS = ("-S",)
"""A launch runs this file without `site` (the virtual environment's paths and .pth files)
and imports only the modules above, all of the standard library: a launcher started in
about half the CPU time, some 20 ms, paid at every server a test starts. What the launcher
hands the zygote (its argv, folder, environment and streams) is the same; the zygote, which
imports the project and its libraries, starts with `site`. The modules only the zygote or
the test process uses are imported where they are used."""
STD_FDS = (0, 1, 2)
REAP_EVERY_S = 1.0
"""How often the zygote waits for ended monitors, and how long for the last at its end."""
LIBRARIES = (
    "numpy",
    "pandas",
    "scipy.optimize",
    "scipy.stats",
    "simpy",
    "yaml",
    "anyio",
    "pydantic",
    "mcp_types",
    "mcp.server",
    "mcp.shared.exceptions",
)
"""What a "libraries" zygote imports: the packages `sim`'s commands import, half a second to
two seconds of each command's start. Not matplotlib: none of the README's commands draws a
figure (and pyplot reads its backend from the environment the launch hands over). Not
jsonschema: imported whole it
compiles every installed format checker's grammar (some 2 CPU-s), which `sim` avoids by
importing it without them (sim/server/validation.py); the commands that serve import it so."""
KINDS = ("serve", "libraries")


class Zygote:
    """A zygote process for this test worker, started on first use: of kind "serve" (`sim`
    and the SDK imported) or "libraries" (third-party libraries only: see LIBRARIES)."""

    def __init__(self, kind: str = "serve") -> None:
        import tempfile

        assert kind in KINDS, kind
        self.kind = kind
        self._dir = tempfile.TemporaryDirectory(prefix="zygote-")
        self.socket = os.path.join(self._dir.name, "s")
        self._proc: subprocess.Popen[bytes] | None = None

    def command(self, *args: str) -> list[str]:
        """The command that runs `python -m sim ARGS...` in a process forked from the zygote."""
        if self._proc is None:
            import subprocess

            # bound here and handed over, so a launch never finds no socket: it waits in the
            # backlog while the zygote imports
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
                listener.bind(self.socket)
                listener.listen(64)
                self._proc = subprocess.Popen(
                    [sys.executable, HERE, "--zygote", str(listener.fileno()), self.kind],
                    stdin=subprocess.PIPE,  # the zygote leaves when this closes: the worker ended
                    stdout=subprocess.DEVNULL,
                    pass_fds=[listener.fileno()],
                )
        return [sys.executable, *LAUNCHER_FLAGS, HERE, self.socket, *args]

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=10)
        self._dir.cleanup()


def zygote(listening_fd: int, kind: str) -> NoReturn:
    """Import what `sim serve` imports, or the libraries alone (launchers wait in the
    listening socket's backlog), then fork a monitor per launch until stdin closes."""
    import gc
    import importlib
    import time

    listener = socket.socket(fileno=listening_fd)
    gc.disable()  # as serve loads the SDK: a collection over its classes finds nothing
    if kind == "libraries":
        for name in LIBRARIES:
            importlib.import_module(name)
    else:
        # and what a server imports on its first steps (anyio's asyncio backend and streams,
        # numpy.random for the corpus): a fourth of a forked server's start, paid once here
        import anyio
        import anyio._backends._asyncio
        import anyio.streams.stapled  # noqa: F401
        import numpy.random  # noqa: F401
        import uvicorn  # noqa: F401

        import sim.__main__
        import sim.serve  # noqa: F401
        from sim.server import (  # noqa: F401
            calllog,
            follow,
            http,
            http_front,
            http_guard,
            mcp_server,
            stdio,
            tools,
        )

    gc.enable()
    gc.freeze()
    monitors: set[int] = set()
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [], REAP_EVERY_S)
        _reap(monitors)
        if sys.stdin in ready:
            deadline = time.monotonic() + REAP_EVERY_S
            while monitors and time.monotonic() < deadline:
                time.sleep(0.01)
                _reap(monitors)
            os._exit(0)
        if not ready:
            continue
        conn, _ = listener.accept()
        message, fds, _, _ = socket.recv_fds(conn, 1 << 20, len(STD_FDS))
        while not message.endswith(b"\n"):
            message += conn.recv(1 << 20)
        pid = os.fork()
        if pid == 0:
            listener.close()
            _monitor(conn, fds, json.loads(message))
        monitors.add(pid)
        conn.close()
        for fd in fds:
            os.close(fd)


def _reap(monitors: set[int]) -> None:
    """Wait for the monitors that have ended, so that their CPU time and their servers' is
    counted in the zygote's children, and so in the test run's (the bench's CPU seconds)."""
    for pid in list(monitors):
        if os.waitpid(pid, os.WNOHANG)[0]:
            monitors.discard(pid)


def _monitor(conn: socket.socket, fds: list[int], request: dict) -> NoReturn:
    """Fork the server; tell the launcher its pid, then its wait status. If the launcher
    goes first, the server is killed."""
    pid = os.fork()
    if pid == 0:
        conn.close()
        _server(fds, request)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    ended = os.pidfd_open(pid)
    if ended not in select.select([ended, conn], [], [])[0]:
        os.kill(pid, signal.SIGKILL)  # the launcher closed: nobody is at the other end
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):  # the launcher may be gone
        conn.sendall(f"{status}\n".encode())
    os._exit(0)


def _server(fds: list[int], request: dict) -> NoReturn:
    """The launcher's streams as this process's, then `python -m sim ARGS` as Python runs a
    main module: SystemExit's code, or a traceback and 1."""
    for target, fd in zip(STD_FDS, fds, strict=True):
        os.dup2(fd, target)
    for fd in fds:
        if fd not in STD_FDS:
            os.close(fd)
    # as the interpreter a real start would run: SIGINT ignored if the launcher started
    # with it ignored, else Python's KeyboardInterrupt (the zygote's may differ)
    ignored = request["sigint_ignored"]
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["-m", *request["args"]]
    import traceback

    from sim.__main__ import entry

    try:
        status = entry(request["args"])
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
        if not isinstance(e.code, int | None):
            print(e.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def launch(path: str, args: list[str], sigint_ignored: bool) -> NoReturn:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError as e:  # the zygote failed to start (see the test worker's stderr) or left
        sys.exit(f"forkserve: no zygote answers at {path} ({e.strerror}); nothing was started")
    request = {
        "args": args,
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "sigint_ignored": sigint_ignored,
    }
    socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], list(STD_FDS))
    lines = conn.makefile("rb")
    pid = int(lines.readline())

    def pass_on(sig: int, _: object) -> None:
        with contextlib.suppress(ProcessLookupError):  # it has ended meanwhile
            os.kill(pid, sig)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, pass_on)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in STD_FDS:  # only the server holds the client's pipes, so their ends are its
        os.dup2(devnull, fd)  # (after the signals are passed on: tests wait for this)
    ended = lines.readline()
    code = os.waitstatus_to_exitcode(int(ended)) if ended else 1
    if code < 0:  # killed by a signal: so is the launcher, as the client would see it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    if sys.argv[1] == "--zygote":
        zygote(int(sys.argv[2]), sys.argv[3])
    launch(sys.argv[1], sys.argv[2:], signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
