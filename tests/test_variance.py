"""Control variates (sim.stats.control_variate_interval, sim.report.variance): unbiased with
a covering interval on data whose control's mean is known, and no committed interval wider."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from sim.params import Params
from sim.report.variance import variance_table
from sim.stats import control_variate_interval, normal_interval

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_controlled_mean_is_unbiased_and_covers() -> None:
    """1,000 studies of 30 units: a share-like Y driven by a Poisson count C of known mean
    (ρ ≈ 0.8). The controlled mean is unbiased, its 95 % interval covers about 95 % of the
    time and is narrower than the plain one by about the factor 1 − ρ² promises."""
    rng = np.random.default_rng(20261205)
    mu, truth, reps, n = 40.0, 0.3, 1000, 30
    means, covered, ratio = [], 0, []
    for _ in range(reps):
        c = rng.poisson(mu, n).astype(float)
        y = truth + 0.01 * (c - mu) + rng.normal(0.0, 0.04, n)
        cv = control_variate_interval(y, c, [mu])
        means.append(cv.mean)
        covered += cv.lo <= truth <= cv.hi
        plain = normal_interval(y)
        ratio.append((cv.hi - cv.lo) / (plain.hi - plain.lo))
    se = float(np.std(means, ddof=1) / np.sqrt(reps))
    assert abs(np.mean(means) - truth) < 3 * se
    assert 0.93 <= covered / reps <= 0.97  # binomial sd of the coverage: 0.007
    assert 0.5 < float(np.median(ratio)) < 0.7  # √(1 − ρ²) ≈ 0.62, t(27) over z


def test_independent_control_costs_little_and_too_few_units_give_nan() -> None:
    rng = np.random.default_rng(5)
    y, c = rng.normal(0, 1, 200), rng.normal(0, 1, 200)
    cv, plain = control_variate_interval(y, c, [0.0]), normal_interval(y)
    assert (cv.hi - cv.lo) / (plain.hi - plain.lo) < 1.05
    tiny = control_variate_interval([1.0, 2.0], np.array([1.0, 3.0]), [2.0])
    assert np.isnan(tiny.lo) and np.isnan(tiny.hi)


def test_no_committed_interval_got_wider() -> None:
    """results/variance_reduction.csv lists every figure's interval; comparison.csv shows
    exactly the plain one (one value per figure across the report), and the controlled one
    is called the narrower only where it is."""
    table = pd.read_csv(RESULTS / "variance_reduction.csv")
    controlled = table[table["narrower"] == "controlled"]
    assert (controlled["vrf"] > 1).all() and len(controlled) >= 1
    assert (controlled["controlled_half_width"] < controlled["plain_half_width"]).all()
    comparison = pd.read_csv(RESULTS / "comparison.csv").set_index("key")
    shown = comparison.loc[table["key"], ["mean", "ci_lo", "ci_hi"]]
    half = (shown["ci_hi"] - shown["ci_lo"]).to_numpy() / 2
    assert np.allclose(half, table["plain_half_width"].to_numpy(), rtol=1e-6, atol=1e-9)
    assert np.allclose(shown["mean"].to_numpy(), table["plain_mean"].to_numpy(), rtol=1e-9)


def test_table_rebuilds_from_rows() -> None:
    """The committed table is variance_table of the committed per-seed rows, and a figure's
    own numerator is never its control (its known mean would return the closed form)."""
    per_seed = pd.read_csv(RESULTS / "per_seed.csv")
    table = variance_table(per_seed, Params())
    committed = pd.read_csv(RESULTS / "variance_reduction.csv")
    pd.testing.assert_frame_equal(
        table.fillna({"controls": ""}),
        committed.fillna({"controls": ""}),
        check_exact=False,
        rtol=1e-9,
    )
    own = table.set_index("key")["controls"]
    assert "questions_top10" not in own["top10_question_share"]
    assert "saves_top10" not in own["top10_save_share"]
