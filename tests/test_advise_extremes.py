"""`python -m sim advise` at in-range extremes: no traceback and no numeric warning; a
method whose closed form cannot be computed at these rates is named and left unranked;
when no method meets the target, the text and the JSON say so."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim.bench.stdio import ROOT

EXTREMES = [
    ["--articles", "5", "--questions-per-day", "10000000"],
    ["--saves-per-day", "100000", "--day-hours", "0.1"],
]


def _advise(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "advise", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("flags", EXTREMES, ids=["questions", "saves"])
def test_extremes_recommend_from_what_can_be_computed_and_name_the_rest(flags: list[str]) -> None:
    text = _advise(*flags)
    assert text.returncode == 0 and text.stderr == "", text.stderr
    assert "Use " in text.stdout and "push" in text.stdout.split("Use ", 1)[1]
    assert "could not be computed" in text.stdout
    run = _advise(*flags, "--json")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    out = json.loads(run.stdout)
    assert out["not_computed"] == ["push"]
    assert out["choice"] is not None and out["choice"]["method"] != "push"
    assert out["verdict"].startswith("Use ")


def test_no_method_meeting_the_target_is_said_in_text_and_json() -> None:
    flags = [*EXTREMES[0], "--max-unnoticed-min", "0"]
    text = _advise(*flags)
    assert text.returncode == 0 and text.stderr == "", text.stderr
    assert "No method meets the target" in text.stdout
    assert "push notices at once" not in text.stdout
    out = json.loads(_advise(*flags, "--json").stdout)
    assert out["choice"] is None and out["verdict"].startswith("No method meets the target")
