"""Commands run as a user runs them, timed: wall seconds, and the CPU seconds (user +
system) of the processes they ran. The loops (``loops.py``) and the benches that time a
command of their own (``calibrate_size.py``, ``imported.py``) share it."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MAKE_ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
"""The environment the Makefile gives its commands: bytecode caches are written."""


def children_cpu_s() -> float:
    import resource  # Unix only: imported here, so `python -m sim` starts on Windows too

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_steps(
    steps: list[tuple[str, list[str]]], env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Wall seconds of the (name, command) steps in order, run from the repository (with
    ``env`` added to the Makefile's environment), and whether all passed; the first to fail
    stops the timing."""
    started = time.perf_counter()
    timed = []
    for name, command in steps:
        t, cpu = time.perf_counter(), children_cpu_s()
        done = subprocess.run(
            command, cwd=ROOT, env={**MAKE_ENV, **(env or {})}, capture_output=True, text=True
        )
        timed.append(
            {
                "step": name,
                "wall_s": time.perf_counter() - t,
                "cpu_s": children_cpu_s() - cpu,
            }
        )
        if done.returncode != 0:
            return {
                "wall_s": time.perf_counter() - started,
                "passed": False,
                "steps": timed,
                "failure": (done.stdout + done.stderr)[-2_000:],
            }
    return {"wall_s": time.perf_counter() - started, "passed": True, "steps": timed}
