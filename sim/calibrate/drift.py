"""Is a log itself stationary over the held-out split? One test per statistic, null "no drift".

The held-out test (``validate.held_out``) fits the first two thirds of a log and compares
runs with the last third; a miss there is the model's only if the log did not change. So,
per statistic: the last third's value minus the first two thirds' (the validation table's
``real`` and ``real_train``) against that difference when the log's weeks are dealt at
random to the two periods in the same numbers: a permutation test over weeks.

Why weeks, and why one permutation test for all eight statistics. A log's saves are not
independent (sessions, bursts, sittings, bulk publishes), so a two-sample test on saves or
publishes (two shares' z-test, Mann–Whitney, a chi-squared test of the weekday counts)
counts one burst as many observations and finds drift everywhere. A week holds nearly all
of a session (a re-save within a day) and of a sitting, and each weekday once, so under a
stationary log the weeks are close to exchangeable, whatever the statistic: a share of
gaps, a ratio of saves to days, or the top-10 share, whose value depends on the sample's
size (dealt in the same numbers of weeks, both periods keep their size in distribution).
Each statistic is computed by its own definition (``stats.summary``), on the rows of the
weeks dealt.

Weeks are 7-day blocks counted from the split (which falls between two), so the first and
the last may be partial; empty weeks are dealt too. Two-sided p = (1 + dealings whose
difference is at least as far from 0 as the observed one) / (1 + dealings where the
statistic exists in both periods), uncorrected; the report calls a log drifting on a
statistic by Holm's step-down over the log's eight (``report.calibration_panel.drifting``),
since uncorrected about 0.4 of a stationary log's eight would fall below DRIFT_LEVEL by
chance. Limit: a session across a week's edge is cut by the dealing.
"""

from __future__ import annotations

import numpy as np

from sim.calibrate.generate import DAY_S, WEEK_S, Saves
from sim.calibrate.logs import EditLog
from sim.calibrate.stats import STATISTICS, summary

DRIFT_LEVEL = 0.05
"""A statistic drifts over the split when its permutation p-value is below this."""
PERMUTATIONS_PER_RUN = 5
"""Dealings of the weeks: 5 × the held-out runs − 1 (999 at the study's 200 runs, where the
p-value's Monte Carlo standard error at p = 0.05 is 0.007)."""
DRIFT_TAG = 0x64726966
"""Second entropy word of the dealings' random stream, after the seed ('drif' in ASCII): one
stream of its own, apart from the fit's and the runs'."""


def permutations(reps: int) -> int:
    return max(1, PERMUTATIONS_PER_RUN * reps - 1)


def drift_test(log: EditLog, split_s: float, n_perm: int, seed: int) -> dict[str, float]:
    """Each statistic's two-sided permutation p-value of (last third − first two thirds)."""
    week = np.floor((log.epoch_s - split_s) / WEEK_S).astype(np.int64)
    first = int(week.min())
    block = week - first
    n_weeks, n_test = int(block.max()) + 1, int(week.max()) + 1
    _, publish = np.unique(log.publish, return_inverse=True)
    kind = log.kind.astype(np.int8)

    def values(test_weeks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = test_weeks[block]

        def at(keep: np.ndarray) -> np.ndarray:
            # absolute times with a Monday origin (day 0 = Monday 1969-12-29): weekday exact
            s = Saves(log.epoch_s[keep], log.article[keep], kind[keep], publish[keep])
            got = summary(s, 3 * DAY_S)
            return np.array([got[name] for name in STATISTICS])

        return at(rows), at(~rows)

    is_test = np.arange(n_weeks) >= n_weeks - n_test
    test, train = values(is_test)
    observed = test - train
    rng = np.random.default_rng(np.random.SeedSequence([seed, DRIFT_TAG]))
    dealt = np.empty((n_perm, len(STATISTICS)))
    for i in range(n_perm):
        test_p, train_p = values(rng.permutation(is_test))
        dealt[i] = test_p - train_p
    out = {}
    for j, name in enumerate(STATISTICS):
        d = dealt[:, j][np.isfinite(dealt[:, j])]
        if not np.isfinite(observed[j]) or not len(d):
            out[name] = float("nan")
            continue
        far = int(np.count_nonzero(np.abs(d) >= abs(observed[j]) - 1e-12))
        out[name] = (1 + far) / (1 + len(d))
    return out
