"""The loops a user waits for: `make reproduce` (the study, then the notebook) and `make
test` (lint, then pytest), each timed end to end in its own processes, as a user runs it.

The reproduction writes to a scratch folder, so results/ is untouched; the test run is
the repository's own suite, its regression test included.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _run(commands: list[list[str]]) -> dict[str, Any]:
    """Wall seconds of the commands in order (run from the repository), and whether all
    passed; the first to fail stops the timing."""
    started = time.perf_counter()
    steps = []
    for command in commands:
        t = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        steps.append({"command": " ".join(command[1:]), "wall_s": time.perf_counter() - t})
        if done.returncode != 0:
            return {
                "wall_s": time.perf_counter() - started,
                "passed": False,
                "steps": steps,
                "failure": (done.stdout + done.stderr)[-2_000:],
            }
    return {"wall_s": time.perf_counter() - started, "passed": True, "steps": steps}


def reproduce_wall() -> dict[str, Any]:
    """`make reproduce` on this machine's cores: every table and figure, then the notebook."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        return _run(
            [
                [py, "-m", "sim", "reproduce", "--out", f"{tmp}/results"],
                [py, "-m", "sim", "notebook", "--out", f"{tmp}/notebook"],
            ]
        )


def test_wall() -> dict[str, Any]:
    """`make test` once its environment is installed: ruff, then pytest."""
    py = sys.executable
    return _run(
        [
            [py, "-m", "ruff", "check", "sim", "tests", "notebooks"],
            [py, "-m", "ruff", "format", "--check", "sim", "tests", "notebooks"],
            [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        ]
    )
