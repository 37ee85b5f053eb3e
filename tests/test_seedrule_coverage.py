"""The seed rules keep their stated error as they run: both rules, driven through their
production functions over many replications (``sim.report.seedrule_coverage``).

The readings' rule (``sensitivity.unsettled`` on the rows ``full_strength`` makes, at every
look ``SeedRule.next_batch`` gives) and the panel's (``realshape_seeds.open_arms``, each
replication a log of its own) run on values resampled from the committed rows. Every interval
must miss its truth, and every call err, at most as often as stated (5 %) within three
Monte-Carlo standard errors; a verdict whose truth sits on its threshold must be called
decided no more often than at a fixed count. The rule the readings' replaced (on while a
verdict is undecided) runs through the same simulation and fails it. `make test` runs a
hundred replications a scenario; `make check` the committed table's 2,000, and checks that
results/coverage/seedrule_coverage.csv is that run.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.report import seedrule_coverage as coverage
from sim.results import seedrows
from sim.results.coverage import NAME
from sim.study import realshape, realshape_seeds

RESULTS = Path(__file__).resolve().parents[1] / "results"
ROWS = seedrows.read(RESULTS / "seeds")
SHALLOW_REPS = 100


@pytest.fixture(scope="module")
def table(deep: bool) -> pd.DataFrame:
    return coverage.coverage_table(ROWS, coverage.DEEP_REPS if deep else SHALLOW_REPS)


def _tolerance(level: float, n: int, sides: int = 1) -> float:
    """Three binomial standard errors of an error rate at ``level`` (of a difference of two
    independent ones where ``sides`` is 2)."""
    return 3 * math.sqrt(sides * level * (1 - level) / n)


def _in_production(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["stopping"] != coverage.STOPS[1]]


@pytest.mark.deep
def test_each_rule_keeps_its_stated_error(table: pd.DataFrame) -> None:
    stated = _in_production(table).dropna(subset=["stated_error"])
    assert len(stated) == 21  # 8 of the readings' rule, 8 at their cap, 5 of the panel
    for r in stated.itertuples():
        limit = r.stated_error + _tolerance(r.stated_error, r.replications)
        assert r.measured_error <= limit, (r.scenario, r.stopping, r.error_kind)


@pytest.mark.deep
def test_no_rule_decides_a_verdict_on_its_threshold_more_than_a_fixed_count(
    table: pd.DataFrame,
) -> None:
    on = _in_production(table)
    on = on[on["error_kind"] == coverage.ON_THRESHOLD]
    assert len(on) == 4
    for r in on.itertuples():
        fixed = r.error_at_fixed_count
        assert r.measured_error <= fixed + _tolerance(fixed, r.replications, sides=2)


@pytest.mark.deep
def test_the_replaced_rule_fails_the_same_check(deep: bool, table: pd.DataFrame) -> None:
    """Stopping once a verdict is reached decides a verdict on its threshold about twice as
    often as a fixed count (19 % against 10 % on the CAS reading's 2,000 replications); a
    hundred replications show only the direction."""
    rows = table[table["scenario"] == coverage.READING_CASES[0].describe()]
    rows = rows.set_index(["stopping", "error_kind"])["measured_error"]
    replaced = rows[(coverage.STOPS[1], coverage.ON_THRESHOLD)]
    fixed = rows[(coverage.STOPS[2], coverage.ON_THRESHOLD)]
    margin = _tolerance(fixed, coverage.DEEP_REPS, sides=2) if deep else 0.0
    assert replaced > fixed + margin


@pytest.mark.deep
def test_the_committed_table_is_this_run(deep: bool, table: pd.DataFrame) -> None:
    """results/coverage/seedrule_coverage.csv (``python -m sim.results.coverage``) is the
    table of the committed rows; `make test`'s smaller run checks only its shape."""
    committed = pd.read_csv(RESULTS / NAME)
    assert list(committed.columns) == list(table.columns)
    assert committed[["seed_rule", "scenario", "stopping", "error_kind"]].equals(
        table[["seed_rule", "scenario", "stopping", "error_kind"]]
    )
    if deep:
        numbers = committed.select_dtypes("number").columns
        assert np.allclose(committed[numbers], table[numbers], atol=1e-4, equal_nan=True)


def test_the_readings_stop_on_the_width_alone() -> None:
    """Two readings whose verdicts are undecided: the one with a narrow shift stops, the wide
    one runs on (the replaced rule kept both running)."""
    rng = np.random.default_rng(5)
    default = rng.normal(0.30, 0.08, size=(2, 60))
    diff = np.stack([rng.normal(0.0, 0.005, 60), rng.normal(0.0, 0.2, 60)])
    headline = rng.normal(0.30, 0.08, size=(2, 300))
    sd = headline.std(axis=1, ddof=1) * (default + diff).std(axis=1, ddof=1)
    sd /= default.std(axis=1, ddof=1)
    band = (0.35, 0.45)  # each headline moved onto its verdict's threshold
    headline += (band[0] - 1.96 * sd / math.sqrt(5) - headline.mean(axis=1))[:, None]
    for r in range(2):
        assert coverage._judged(band, headline[r], default[r], diff[r])["verdict"] == "undecided"
    case = coverage.READING_CASES[0]
    args = (case, coverage.STOPS[0], band, headline, default, diff, np.full(2, 60))
    assert list(coverage._still_open(*args, np.ones(2, dtype=bool))) == [False, True]


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
