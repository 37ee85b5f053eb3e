"""The panel's seed counts keep their stated error: simulated on synthetic normal data.

Each replication draws one arm's per-seed paired differences, runs the batches the panel's
rule gives that arm (``SeedRule.next_batch`` while the rule keeps it open) and takes the
section's 95 % t interval (``sim.stats.mean_interval``) where it stopped. A true zero move must
be called non-zero (its interval excluding 0) at most 5 % of the time, and every interval
must cover the true move at least 95 % of the time, each within a Monte-Carlo tolerance of
three binomial standard errors. The earlier rule (an arm stopped once its interval cleared 0)
runs through the same simulation and fails it: the check can tell the two apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sim.stats import mean_interval
from sim.study import realshape, realshape_seeds
from sim.study.seedrule import SeedRule

REPS = 4000
NOMINAL = 0.05
TOLERANCE = 3 * math.sqrt(NOMINAL * (1 - NOMINAL) / REPS)

OpenWhen = Callable[[np.ndarray, np.ndarray, int], np.ndarray]
"""(interval lows, highs, seeds so far) -> which replications the rule keeps open."""


def _intervals(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sim.stats.mean_interval on every row at once."""
    n = values.shape[1]
    half = stats.t.ppf(0.975, n - 1) * values.std(axis=1, ddof=1) / np.sqrt(n)
    mean = values.mean(axis=1)
    return mean - half, mean + half


def _simulate(arm: str, move: float, open_when: OpenWhen, seed: int) -> tuple[float, float]:
    """(share of replications calling the move non-zero, share whose interval covers it)."""
    rule = SeedRule(realshape.SEEDS, realshape_seeds.looks_of(arm))
    draws = np.random.default_rng(seed).normal(move, 1.0, size=(REPS, rule.cap))
    done = rule.first
    lo, hi = _intervals(draws[:, :done])
    running = open_when(lo, hi, done)
    while running.any() and (batch := rule.next_batch(done)):
        done = batch[-1]
        now_lo, now_hi = _intervals(draws[:, :done])
        lo, hi = np.where(running, now_lo, lo), np.where(running, now_hi, hi)
        running &= open_when(lo, hi, done)
    called = ~((lo <= 0) & (hi >= 0))
    covered = (lo <= move) & (hi >= move)
    return float(called.mean()), float(covered.mean())


def _fixed(arm: str) -> OpenWhen:
    """The panel's rule: open until the arm's fixed count, whatever its interval says."""
    cap = realshape.SEEDS * realshape_seeds.looks_of(arm)
    return lambda lo, hi, n: np.full(lo.shape, n < cap)


def _until_decided(lo: np.ndarray, hi: np.ndarray, n: int) -> np.ndarray:
    """The earlier rule at its most eager (a bound no interval gets under): open while the
    interval holds 0."""
    return (lo <= 0) & (hi >= 0)


def test_the_simulation_takes_the_sections_interval() -> None:
    values = np.random.default_rng(3).normal(0.2, 1.0, size=(4, realshape.SEEDS))
    lo, hi = _intervals(values)
    for row, a, b in zip(values, lo, hi, strict=True):
        at = mean_interval(row)
        assert (at.lo, at.hi) == pytest.approx((a, b), rel=1e-12)


@pytest.mark.parametrize("arm", ["+popularity", realshape_seeds.HEADLINE_ARM])
def test_a_zero_move_is_called_non_zero_at_the_nominal_rate(arm: str) -> None:
    false_calls, coverage = _simulate(arm, 0.0, _fixed(arm), seed=44)
    assert false_calls <= NOMINAL + TOLERANCE
    assert coverage >= 1 - NOMINAL - TOLERANCE


def test_a_non_zero_move_is_covered_at_the_nominal_rate() -> None:
    _, coverage = _simulate("+bursts", 0.4, _fixed("+bursts"), seed=45)
    assert coverage >= 1 - NOMINAL - TOLERANCE


def test_stopping_once_decided_fails_the_same_check() -> None:
    false_calls, coverage = _simulate("+popularity", 0.0, _until_decided, seed=44)
    assert false_calls > NOMINAL + TOLERANCE
    assert coverage < 1 - NOMINAL - TOLERANCE


def test_which_arms_run_on_does_not_depend_on_their_values() -> None:
    """open_arms on one log's first batch gives the same arms whatever the values are."""
    rng = np.random.default_rng(7)
    seeds = range(1, realshape.SEEDS + 1)
    keys = pd.DataFrame(
        [("Obsidian", a.name, s, "stale_share") for a in realshape.ARMS for s in seeds],
        columns=["log", "arm", "seed", "figure"],
    )
    opened = [
        realshape_seeds.open_arms(keys.assign(value=v), realshape.SEEDS)
        for v in (rng.normal(0, 1, len(keys)), rng.normal(5, 0.01, len(keys)))
    ]
    assert opened[0] == opened[1]
    assert opened[0] == {"Obsidian": [a.name for a in realshape.ARMS if a.reference]}
