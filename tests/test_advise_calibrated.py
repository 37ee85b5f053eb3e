"""advise --edit-log / --edit-shape: run as a user would, outside the repository, on the
packaged log; bad input is one line and exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.__main__ import main
from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, read_log

SMALL = ["--questions-per-day", "10", "--simulate", "1"]
REPO = Path(__file__).resolve().parents[1]


def _advise(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "advise", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(REPO)},  # this checkout's sim, run from elsewhere
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_advise_from_the_packaged_log(tmp_path: Path) -> None:
    r = _advise(tmp_path, "--edit-log", str(BUNDLED), *SMALL)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stdout.splitlines() if not x.startswith("  Poll (cursor kept)")]
    assert lines[0].startswith("Advice for the history of help-centre-edits.csv replayed")
    assert lines[1].startswith("Days from: the log's own history replayed (--days-from trace)")
    assert lines[2] == "Stopped because the days asked for were run."
    assert lines[3].startswith("History replayed (1 day, ")
    assert lines[4].startswith("Write-up's Poisson process, same volume and days (1 day, ")
    assert lines[5].startswith(("The two choices", "The choices differ", "The two processes"))
    assert "nan" not in r.stdout
    progress = [x for x in r.stderr.splitlines() if x.startswith("advise: ")]
    assert any("trace 1 simulated day (1 in full, 0 without a save)" in x for x in progress)
    # the log itself measured as the report's map measures the shared logs
    measured = r.stdout.split("  Stale citations by age, from the log's own rows", 1)[1]
    assert "30 d: 25.9 % [8.85, 75.4]; pooled 25.2 %" in measured
    assert "  Against the atlas: your 1-day share is at the atlas's " in measured


def test_advise_from_a_fitted_shape_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through main() in this process: the command line itself is run by the test above."""
    path = tmp_path / "shape.json"
    path.write_text(fit(read_log(BUNDLED), boot=0, gof_sims=10).shape.to_json())
    status = main(["advise", "--edit-shape", str(path), "--saves-per-day", "300", *SMALL, "--json"])
    out_text, _ = capsys.readouterr()
    assert status == 0
    out = json.loads(out_text)
    assert set(out["rows"]) == {"calibrated", "Poisson"}
    for name, choice in out["choices"].items():
        rows = out["rows"][name]
        assert {r["days"] for r in rows} == {1}
        # a periodic choice is made only when its interval's upper end meets the target
        assert choice is None or choice["method"] == "push" or choice["unnoticed_hi"] <= 30.0


def test_bad_edit_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first through the command line as a user meets it; the others through the same
    main() in this process (a second each of interpreter start saved)."""
    bad = tmp_path / "bad.csv"
    bad.write_text("time,publish\n2020-01-01T00:00:00Z,0\n")
    r = _advise(tmp_path, "--edit-log", str(tmp_path / "missing.csv"))
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for args in (
        ("--edit-log", str(bad)),
        ("--edit-shape", str(bad)),
        ("--edit-log", str(bad), "--edit-shape", str(bad)),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["advise", *args])
        out, err = capsys.readouterr()
        assert stop.value.code == 2, (args, err)
        assert out == "" and len(err.strip().splitlines()) == 1, err
