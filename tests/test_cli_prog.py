"""Run as the `stale-citations` console script, every command a command prints for the next
step says `stale-citations ...`, as its usage lines do, never `python -m sim ...`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_calibrate_any_size import TINY

AS_SCRIPT = (
    "import sys; sys.argv[0] = 'stale-citations'; from sim.cli import entry; sys.exit(entry())"
)
"""The console script's own lines: ``sim.cli.common.PROG`` is read from argv[0]."""


def _script(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run(
        [sys.executable, "-c", AS_SCRIPT, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )


def _says_the_script(text: str) -> None:
    assert "python -m sim" not in text, text
    assert "stale-citations " in text, text


def test_calibrate_and_import_hint_the_script_they_were_run_as(tmp_path: Path) -> None:
    (tmp_path / "tiny.csv").write_text(TINY)
    done = _script("calibrate", "tiny.csv", "--boot", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _says_the_script(done.stdout)
    assert "stale-citations advise --edit-shape tiny.shape.json" in done.stdout
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"page{i}.md").write_text(f"# Page {i}\n\nHow to reset a password, part {i}.\n")
    done = _script("import", "docs", "--db", "kb.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _says_the_script(done.stdout)
    assert "stale-citations advise --db kb.sqlite" in done.stdout


@pytest.mark.parametrize("command", ["advise", "notebook", ""])
def test_the_help_names_the_script_in_its_hints(tmp_path: Path, command: str) -> None:
    done = _script(*([command] if command else []), "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _says_the_script(done.stdout)
