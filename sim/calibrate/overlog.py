"""The processes a log's fit is compared with, their seeded runs, and the burst coefficients
B and M of runs over a log's span, a few runs at a time.

A long log's burst table and burst stretch generate about a hundred runs over its span (on
the shared log repeated to 400,000 rows, 80 years of clock hours and 400,000 saves each).
numpy's draws, sorts and arithmetic release the GIL, so runs made in threads overlap on a
machine's cores; each run has its own streams from seed (seed, i), so its values do not
depend on which thread made it or when, and the runs come back in order.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from sim.calibrate import sessions
from sim.calibrate.generate import CAL_STREAMS, FEATURES, Saves, generate
from sim.calibrate.logs import EditLog, week_offset
from sim.calibrate.shape import EditShape

PROCESSES = {"calibrated": frozenset(FEATURES), "write-up (volume only)": frozenset()}
"""Each process as the generator's features: all real features, or none (the write-up's)."""
THREADS = min(4, os.cpu_count() or 1)
"""Runs made at once on a long log: each holds its run's arrays (some 50 MB at 400,000
saves), so at most four."""
THREADED_ROWS = 20_000
"""From this many log rows on, runs go THREADS at a time; a shorter log's runs take
milliseconds, one after another."""


def runs_for(rows: int, most: int, saves: int) -> int:
    """Runs over a log of ``rows`` rows: at most ``most``, at most about ``saves`` generated
    saves in all (a run is as long as the log), at least 2."""
    return max(2, min(most, saves // max(rows, 1)))


def one_run(
    shape: EditShape,
    process: str,
    n_articles: int,
    saves_per_day: float,
    span_s: float,
    start_s: float,
    seed: int,
    i: int,
) -> Saves:
    """Run i of ``process``: its own streams, from seed (seed, i)."""
    children = np.random.SeedSequence([seed, i]).spawn(len(CAL_STREAMS))
    rngs = {s: np.random.default_rng(c) for s, c in zip(CAL_STREAMS, children, strict=True)}
    return generate(
        shape, n_articles, saves_per_day, span_s, rngs, PROCESSES[process], start_s=start_s
    )


Kept = dict[tuple[EditShape, str, int, int], tuple[float, float]]
"""B and M of the runs made over one log, by (shape, process, seed, run): a run is a function
of these on a log, so a caller that asks for one twice (the burst stretch's first trial, the
fitted shape's runs 0 to 3 on seed 1, is the burst table's first runs on the default seed)
passes the same dict and it is made once."""


def coefficients_over_log(
    shape: EditShape,
    log: EditLog,
    reps: int,
    seed: int,
    processes: tuple[str, ...] = tuple(PROCESSES),
    kept: Kept | None = None,
) -> dict[str, np.ndarray]:
    """For each process, B and M (reps × 2) of its ``reps`` runs of ``shape`` over the log's
    span at the fitted volume, run i on seed (seed, i); those in ``kept`` (of this log) are
    taken from it, and the others put in it."""
    t0 = float(log.epoch_s[0])
    span, start = float(log.epoch_s[-1]) - t0 + 1.0, week_offset(t0)

    def coefficients(job: tuple[str, int]) -> tuple[float, float]:
        process, i = job
        key = (shape, process, seed, i)
        if kept is not None and key in kept:
            return kept[key]
        run = one_run(shape, process, log.n_articles, shape.log_saves_per_day, span, start, seed, i)
        b, m, _ = sessions.coefficients(run.rank, run.time_s)
        if kept is not None:
            kept[key] = (b, m)
        return b, m

    jobs = [(process, i) for process in processes for i in range(reps)]
    if len(log) >= THREADED_ROWS and THREADS > 1:
        with ThreadPoolExecutor(THREADS) as pool:
            values = list(pool.map(coefficients, jobs))
    else:
        values = [coefficients(job) for job in jobs]
    return {p: np.array(values[j * reps : (j + 1) * reps]) for j, p in enumerate(processes)}
