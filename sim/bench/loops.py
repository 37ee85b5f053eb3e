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


def _run(steps: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """Wall seconds of the (name, command) steps in order, run from the repository, and
    whether all passed; the first to fail stops the timing."""
    started = time.perf_counter()
    timed = []
    for name, command in steps:
        t = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        timed.append({"step": name, "wall_s": time.perf_counter() - t})
        if done.returncode != 0:
            return {
                "wall_s": time.perf_counter() - started,
                "passed": False,
                "steps": timed,
                "failure": (done.stdout + done.stderr)[-2_000:],
            }
    return {"wall_s": time.perf_counter() - started, "passed": True, "steps": timed}


def reproduce_wall() -> dict[str, Any]:
    """`make reproduce` on this machine's cores: every table and figure, then the notebook."""
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        return _run(
            [
                ("study", [py, "-m", "sim", "reproduce", "--out", f"{tmp}/results"]),
                ("notebook", [py, "-m", "sim", "notebook", "--out", f"{tmp}/notebook"]),
            ]
        )


def test_wall() -> dict[str, Any]:
    """`make test` once its environment is installed: ruff, then pytest."""
    py = sys.executable
    return _run(
        [
            ("ruff check", [py, "-m", "ruff", "check", "sim", "tests", "notebooks"]),
            ("ruff format", [py, "-m", "ruff", "format", "--check", "sim", "tests", "notebooks"]),
            ("pytest", [py, "-m", "pytest", "-q", "-p", "no:cacheprovider"]),
        ]
    )
