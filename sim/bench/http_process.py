"""A `python -m sim serve --http 0` process (or the echo floor) for the HTTP tests and the
bench: started, its URL and pid read from the line it prints, stopped with SIGTERM."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import tempfile
from pathlib import Path

READY = re.compile(r"at (http://\S+/mcp) \(.*pid (\d+)\)")
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0


class HttpServer:
    def __init__(
        self, serve: list[str], *flags: str, cwd: Path | None = None, http: bool = True
    ) -> None:
        self.stderr_file = tempfile.TemporaryFile()  # noqa: SIM115 (closed by __exit__)
        self.process = subprocess.Popen(
            [*serve, *(["--http", "0"] if http else []), *flags],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.stderr_file,
            cwd=cwd,
        )
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT_S)
        line = self.process.stdout.readline().decode() if ready else ""
        found = READY.search(line)
        if found is None:
            self.process.kill()
            raise RuntimeError(f"no server: {line!r} {self.stderr()!r}")
        self.url, self.pid = found.group(1), int(found.group(2))
        self.base = self.url.removesuffix("/mcp")

    def rss_kb(self) -> int:
        status = Path(f"/proc/{self.pid}/status").read_text()
        found = re.search(r"VmRSS:\s+(\d+)", status)
        if found is None:
            raise RuntimeError(f"/proc/{self.pid}/status: no VmRSS line (the server has ended)")
        return int(found.group(1))

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stderr(self) -> str:
        self.stderr_file.seek(0)
        return self.stderr_file.read().decode(errors="replace")

    def stop(self) -> int | None:
        """SIGTERM, then the exit status (None: it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode

    def __enter__(self) -> HttpServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.stderr_file.close()
