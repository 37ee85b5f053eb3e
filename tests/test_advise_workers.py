"""No worker outlives its parent: `advise` and `sweep`, sent a real SIGTERM or SIGINT (or
finding their output closed) while their workers simulate days, leave no process behind
(sim/pools.py). Killed with SIGTERM, `advise` once left its workers running under PID 1
for up to 26 minutes, holding the caller's pipes open.

Each command runs in a session of its own, so the signals go to it alone and whatever a
failing case leaves is killed with its process group. The processes are read from /proc
(Linux's: where the kernel's PR_SET_PDEATHSIG is what ends them)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "sim" / "calibrate" / "logs" / "help-centre-edits.csv"
GONE_S = 5.0
"""How long the workers may take to end after their parent was signalled."""

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/task").is_dir(), reason="reads the process tree from Linux's /proc"
)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):  # the task ended meanwhile
            found.update(int(c) for c in task.read_text().split())
    return found


def _running(pid: int) -> bool:
    """Whether pid is a process that has not ended (a zombie has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _workers(proc: subprocess.Popen[bytes], at_least: int, within_s: float = 90) -> set[int]:
    """The command's child processes once `at_least` of them run at the same time."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else proc.returncode
        now = {c for c in _children(proc.pid) if _running(c)}
        if len(now) >= at_least:
            time.sleep(1.0)  # the workers are into their days
            return now | {c for c in _children(proc.pid) if _running(c)}
        time.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} workers within {within_s} s")


def _all_gone(pids: set[int]) -> set[int]:
    """The pids still running GONE_S after now (none, if they ended with their parent)."""
    end = time.monotonic() + GONE_S
    while time.monotonic() < end and any(_running(p) for p in pids):
        time.sleep(0.05)
    return {p for p in pids if _running(p)}


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """The commands a test starts; each one's process group is killed afterwards."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _start(
    started: list[subprocess.Popen[bytes]], tmp_path: Path, *argv: str
) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim", *argv],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    started.append(proc)
    return proc


COMMANDS = {
    "advise": ("advise", "--edit-log", str(LOG), "--max-days", "400", "--max-seconds", "600",
               "--half-width", "0.01", "--workers", "2"),
    "sweep": ("sweep", "n_articles=400", "--seeds", "40", "--workers", "2", "--out", "s.csv"),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_workers_end_with_their_signalled_parent(
    command: str, signum: int, tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    proc = _start(started, tmp_path, *COMMANDS[command])
    workers = _workers(proc, at_least=2)
    os.kill(proc.pid, signum)
    assert _all_gone(workers) == set(), f"{command}: workers outlived {signum!r}"
    proc.wait(timeout=GONE_S)
    if signum == signal.SIGINT:  # the parent's own end: one line, status 130
        assert proc.returncode == 130
        assert proc.stderr is not None
        assert proc.stderr.read().decode().strip().splitlines()[-1] == "python -m sim: interrupted"


def test_sweep_workers_end_when_its_output_is_closed(
    tmp_path: Path, started: list[subprocess.Popen[bytes]]
) -> None:
    """The reader of its progress gone, sweep's next write fails: it ends, its workers too."""
    proc = _start(started, tmp_path, *COMMANDS["sweep"])
    workers = _workers(proc, at_least=2)
    assert proc.stderr is not None and proc.stdout is not None
    proc.stderr.close()
    proc.stdout.close()
    proc.wait(timeout=120)  # at the next seed's progress
    assert _all_gone(workers) == set()
