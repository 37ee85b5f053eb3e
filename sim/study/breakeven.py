"""The break-even sweep's runs: staleness days over edit volume and held citations, each
run's costs of re-reading and of polling as a row (``sim.report.breakeven`` makes the table,
the crossings and the figure from those rows alone).
"""

from __future__ import annotations

import pandas as pd

from sim.params import Params
from sim.study.experiments import PointRuns, Request, run_all
from sim.study.sweep import grid, sweep_request, sweep_rows

AXES: dict[str, list] = {"n_saves": [300, 1000, 3000, 12000], "n_questions": [10, 40, 120]}


ROW_COLUMNS = [
    "n_saves",
    "n_questions",
    "check_interval_s",
    "seed",
    "saves",
    "checks",
    "zipf_citations",
    "reread_calls",
    "reread_chars",
    "poll_method_calls",
    "poll_method_chars",
]
"""What the table reads of a sweep run: the point, the seed and its costs."""


def break_even_runs(
    base: Params,
    axes: dict[str, list],
    seeds: list[int],
    workers: int | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    request = break_even_request(base, axes, seeds)
    return break_even_rows(request, run_all([request], workers, progress)[0])


def break_even_request(base: Params, axes: dict[str, list], seeds: list[int]) -> Request:
    return sweep_request(grid(base, axes), seeds, ("staleness",))


def break_even_rows(request: Request, runs: PointRuns) -> pd.DataFrame:
    return pd.DataFrame(sweep_rows(request, runs))[ROW_COLUMNS]
