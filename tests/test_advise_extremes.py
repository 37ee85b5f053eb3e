"""`python -m sim advise` at in-range extremes: no traceback and no numeric warning; a
method whose closed form cannot be computed at these rates is named and left unranked;
when no method meets the target, the text and the JSON say so.

One extreme goes through the command's entry point, main(), with every warning an error (a
fresh interpreter's `python -m sim advise` is tests/test_advise_calibrated.py's); the verdicts
for each target are checked on the same computation, on sizes measured once per extreme
(``advise(..., sizes=)``), with every warning an error too."""

from __future__ import annotations

import functools
import json
import warnings
from typing import Any

import pytest

from sim.__main__ import main
from sim.advise import Costs, advise, as_json, closedform, measured_sizes, render
from sim.params import Params

OVERFLOWING_PUSH = Params(n_articles=5, n_saves=20_000, day_s=0.1 * 3600)
"""Push's closed form (an RK4 of 2,000 steps over the day) overflows once the busiest
article's saves per step pass about 3 (the step leaves RK4's stable region), while re-read's
and poll's stay finite. 20,000 saves on 5 articles put 4.1 saves per step on the first
(Zipf share 0.41), as 100,000 on the default 400 put 3.6, at a fifth of the day to
simulate for the measured sizes (the cost of this test). `--articles 5 --saves-per-day
20000 --day-hours 0.1`."""
OVERFLOWING_ALL = Params(n_articles=5, n_questions=10_000_000)
"""Ten million questions on five articles: every method's closed form overflows (the day of
measured sizes is bounded, so it answers in seconds). `--articles 5 --questions-per-day
10000000`."""
COSTS = Costs()
TARGET_MIN = 30.0
"""--max-unnoticed-min's default."""


def _advice(params: Params, target_min: float) -> tuple[str, dict[str, Any]]:
    """The text and the JSON the command prints, with any warning raised instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = advise(params, COSTS, target_min, sizes=_sizes(params))
        text = render(params, COSTS, target_min, result)
        return text, json.loads(json.dumps(as_json(params, COSTS, target_min, result)))


_sizes = functools.cache(measured_sizes)
"""Sizes measured once per extreme (Params is frozen, so hashable)."""


def test_the_command_at_an_extreme_prints_its_advice_and_nothing_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command measures its sizes through the cache the other tests read, filled first
    by the advice it must print (a second day of measured sizes was half this test's time):
    the same function of the same parameters, so flags read into other parameters would
    still measure, and print, other advice."""
    want = _advice(OVERFLOWING_PUSH, TARGET_MIN)[1]
    monkeypatch.setattr(closedform, "measured_sizes", _sizes)
    flags = ["--articles", "5", "--saves-per-day", "20000", "--day-hours", "0.1", "--json"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be printed on a user's stderr
        status = main(["advise", *flags])
    stdout, stderr = capsys.readouterr()
    assert status == 0 and stderr == "", stderr
    out = json.loads(stdout)
    assert out == want  # the flags are the parameters above
    assert out["not_computed"] == ["push"]


def test_a_method_whose_closed_form_overflows_is_named_and_the_rest_ranked() -> None:
    text, out = _advice(OVERFLOWING_PUSH, TARGET_MIN)
    assert "Use " in text and "push" in text.split("Use ", 1)[1]
    assert "could not be computed" in text
    assert out["not_computed"] == ["push"]
    assert out["choice"] is not None and out["choice"]["method"] != "push"
    assert out["verdict"].startswith("Use ")


def test_when_every_closed_form_overflows_it_says_none_can_be_ranked() -> None:
    text, out = _advice(OVERFLOWING_ALL, TARGET_MIN)
    assert "No method can be ranked at these rates" in text
    assert "Use " not in text
    assert sorted(out["not_computed"]) == ["poll", "push", "reread"] and out["choice"] is None


@pytest.mark.parametrize("params", [OVERFLOWING_PUSH], ids=["push-overflows"])
def test_no_method_meeting_the_target_is_said_in_text_and_json(params: Params) -> None:
    text, out = _advice(params, 0.0)
    assert "No method meets the target" in text
    assert "push notices at once" not in text
    assert out["choice"] is None and out["verdict"].startswith("No method meets the target")
