"""What antithetic pairs would buy the study's figures, measured: on seeds 1..n, each seed's
day drawn twice (``sim.model.antithetic``: its questions and saves from u, then from 1 − u)
for the staleness, control and CAS runs as the readings run them (no hourly checker), and per
figure the correlation ρ of the two members across seeds with its 95 % interval (Fisher's
z), the variance reduction factor 1/(1 + ρ) of a pair's mean against two independent days,
and checks that the members are days of the model: the paired z of their means' difference,
and of the first member's against the study's own days of those seeds. A ratio figure (Σ
over seeds of a count over Σ of another) is taken as the per-seed residual num − R·den it is
estimated through (the delta method). Two days a pair, so the day is the unit: a factor
above 1 is what the same days would gain."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim import exactmath
from sim.model.antithetic import PairedDay
from sim.params import Params
from sim.pools import ending_with_caller, local_pool
from sim.stats import Z95
from sim.study.experiments import _opening, _rows, experiment_params, frames_of
from sim.study.metrics import per_seed
from sim.study.readings import FIGURES
from sim.study.reported import RATIOS

RUNS = ("staleness", "control", "cas")
PAIRS = 40
"""Seeds 1..PAIRS: the committed table's (ρ's 95 % interval is then about ±0.3 wide)."""


def seed_rows(task: tuple[Params, int, bool]) -> pd.DataFrame:
    """One member's per-seed figures: the three runs of seed `seed`, from 1 − u if the last
    item is true."""
    base, seed, antithetic = task
    days = []
    for run in RUNS:
        params = experiment_params(base.with_(run_checker=False), run)
        opening = _opening(seed, params.n_articles)
        days.append(_rows(PairedDay(params, seed, antithetic, opening).run(), run))
    return per_seed(frames_of(days))


def pair_rows(base: Params, pairs: int, workers: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both members' per-seed figures on seeds 1..pairs (u, then 1 − u), in seed order."""
    tasks = [(base, s, flip) for flip in (False, True) for s in range(1, pairs + 1)]
    if workers > 1:
        pool = local_pool(workers)
        with ending_with_caller(pool):
            parts = list(pool.map(seed_rows, tasks))
    else:
        parts = [seed_rows(t) for t in tasks]
    return (
        pd.concat(parts[:pairs], ignore_index=True),
        pd.concat(parts[pairs:], ignore_index=True),
    )


def _values(rows: pd.DataFrame, key: str, ratio: float | None) -> np.ndarray:
    if key not in RATIOS:
        return rows[key].to_numpy(dtype=float)
    num, den = RATIOS[key]
    return rows[num].to_numpy(dtype=float) - float(ratio or 0.0) * rows[den].to_numpy(dtype=float)


def _paired_z(d: np.ndarray) -> float:
    """Mean over its SE of a paired difference (0 where every pair is equal)."""
    if not d.any():
        return 0.0
    return float(d.mean() / (d.std(ddof=1) / math.sqrt(len(d))))


def table(
    first: pd.DataFrame, second: pd.DataFrame, study: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Per figure the readings can move: ρ, its interval, the factor and its interval (NaN
    for a figure constant over the seeds, said by ``constant``), the members' paired z, and
    where ``study`` holds the study's own days of the same seeds (its per-seed rows, in seed
    order), the first member's paired z against them: each z near 0 if the members are days
    of the model."""
    out = []
    n = len(first)
    for f in FIGURES:
        ratio = None
        if f.key in RATIOS:
            num, den = RATIOS[f.key]
            both = pd.concat([first, second])
            ratio = float(both[num].sum() / both[den].sum())
        x, y = _values(first, f.key, ratio), _values(second, f.key, ratio)
        row: dict[str, object] = {"key": f.key, "figure": f.figure, "pairs": n}
        constant = not (np.std(x) > 0 and np.std(y) > 0)
        rho = lo = hi = math.nan
        if not constant:
            a, b = x - math.fsum(x.tolist()) / n, y - math.fsum(y.tolist()) / n
            rho = exactmath.dot(a, b) / math.sqrt(exactmath.dot(a, a) * exactmath.dot(b, b))
            lo, hi = (math.tanh(math.atanh(rho) + s * Z95 / math.sqrt(n - 3)) for s in (-1, 1))
        row |= {
            "constant": constant,
            "rho": rho,
            "rho_lo": lo,
            "rho_hi": hi,
            "vrf": 1 / (1 + rho),
            "vrf_lo": 1 / (1 + hi),
            "vrf_hi": 1 / (1 + lo),
            "members_z": _paired_z(x - y),
        }
        if study is not None:
            row["study_z"] = _paired_z(x - _values(study, f.key, ratio))
        out.append(row)
    return pd.DataFrame(out)
