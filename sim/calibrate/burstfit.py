"""The session stretch that takes a fitted process's burstiness B to its log's own.

The fit matches a log's session sizes and gaps, yet its process is less bursty than the log
(B, the Goh–Barabási coefficient of an article's gaps between saves, falls short). The
real-shape panel's burst arm runs the fitted shape with its sessions stretched
(``shape.stretch_sessions``) so that the process generated over the log's span, at its
volume, has the log's B: a bracket for what the missing burstiness does to the answers, at
the price of sessions longer than the log's (both are reported).
"""

from __future__ import annotations

import numpy as np

from sim.calibrate import sessions
from sim.calibrate.logs import EditLog
from sim.calibrate.overlog import Kept, coefficients_over_log, runs_for
from sim.calibrate.shape import EditShape, stretch_sessions

RUNS = 4
"""Generated runs per trial stretch, at most, on the same seeds at every stretch (common
random numbers, so B rises smoothly with the stretch)..."""
TRIAL_SAVES = 1_000_000
"""...and at most about this many generated saves a trial (at least 2 runs): a long log's
runs are long, and their B varies less. On the shared log repeated to 400,000 rows (its
copies end to end, before they were squeezed to end by 2100), 2 runs a trial instead of 4
halve the search (twelve trials of 400,000 saves a run) and find ×2.36 instead of ×2.37,
within the search's 0.01; a log of up to 250,000 rows keeps 4."""
MAX_STRETCH = 8.0
"""The longest stretch tried: a log whose B is beyond it gets this, and says so."""
STEPS = 10
"""Bisection steps between 1 and MAX_STRETCH: the stretch to within 0.01."""


def generated_b(
    shape: EditShape,
    log: EditLog,
    stretch: float,
    runs: int = RUNS,
    seed: int = 1,
    kept: Kept | None = None,
) -> float:
    """Mean B of ``runs`` processes of ``shape``, sessions stretched, over the log's span at
    its volume (runs already in ``kept`` taken from it, see ``overlog.Kept``)."""
    stretched = stretch_sessions(shape, stretch)
    made = coefficients_over_log(stretched, log, runs, seed, ("calibrated",), kept)
    return float(np.nanmean(made["calibrated"][:, 0]))


def trial_runs(rows: int) -> int:
    """Runs a trial stretch takes on a log of ``rows`` rows (RUNS, TRIAL_SAVES)."""
    return runs_for(rows, RUNS, TRIAL_SAVES)


def burst_stretch(shape: EditShape, log: EditLog, kept: Kept | None = None) -> float:
    """The stretch (1 to MAX_STRETCH, to 0.01) whose generated B reaches the log's B; its
    runs go in ``kept``, if given."""
    target = float(sessions.coefficients(log.article, log.epoch_s)[0])
    runs = trial_runs(len(log))
    if not np.isfinite(target) or generated_b(shape, log, 1.0, runs, kept=kept) >= target:
        return 1.0
    lo, hi = 1.0, MAX_STRETCH
    if generated_b(shape, log, hi, runs, kept=kept) < target:
        return hi
    for _ in range(STEPS):
        mid = (lo + hi) / 2
        if generated_b(shape, log, mid, runs, kept=kept) < target:
            lo = mid
        else:
            hi = mid
    return round(hi, 2)
