"""`python -m sim advise` at in-range extremes: no traceback and no numeric warning; a
method whose closed form cannot be computed at these rates is named and left unranked;
when no method meets the target, the text and the JSON say so."""

from __future__ import annotations

import json
import subprocess
import sys

from sim.bench.stdio import ROOT

EXTREMES = [
    ["--articles", "5", "--questions-per-day", "10000000"],
    ["--articles", "5", "--saves-per-day", "20000", "--day-hours", "0.1"],
]
"""The second: push's closed form (an RK4 of 2,000 steps over the day) overflows once the
busiest article's saves per step pass about 3 (the step leaves RK4's stable region), while
re-read's and poll's stay finite. 20,000 saves on 5 articles put 4.1 saves per step on the
first (Zipf share 0.41), as 100,000 on the default 400 put 3.6, at a fifth of the day to
simulate for the measured sizes (the cost of this test)."""


def _advise(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sim", "advise", *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_method_whose_closed_form_overflows_is_named_and_the_rest_ranked() -> None:
    flags = EXTREMES[1]
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


def test_when_every_closed_form_overflows_it_says_none_can_be_ranked() -> None:
    """Ten million questions on five articles: every method's closed form overflows (the
    day of measured sizes is bounded, so it answers in seconds)."""
    text = _advise(*EXTREMES[0])
    assert text.returncode == 0 and text.stderr == "", text.stderr
    assert "No method can be ranked at these rates" in text.stdout
    assert "Use " not in text.stdout
    out = json.loads(_advise(*EXTREMES[0], "--json").stdout)
    assert sorted(out["not_computed"]) == ["poll", "push", "reread"] and out["choice"] is None


def test_no_method_meeting_the_target_is_said_in_text_and_json() -> None:
    flags = [*EXTREMES[1], "--max-unnoticed-min", "0"]
    text = _advise(*flags)
    assert text.returncode == 0 and text.stderr == "", text.stderr
    assert "No method meets the target" in text.stdout
    assert "push notices at once" not in text.stdout
    out = json.loads(_advise(*flags, "--json").stdout)
    assert out["choice"] is None and out["verdict"].startswith("No method meets the target")
