"""How a reported figure is judged against the model, and how sure the verdict is.

A figure is *reproduced* when its band meets the central 95 % range that a five-seed run
of the model reaches (mean ± 1.96 · SD / √5; the write-up pooled five seeds). An exact
figure's band is the figure itself; a verbal one's is read from its wording and written
next to it ("about 4 in 10" = 35–45 %). z is the distance from the model's mean to the
band in five-seed standard errors (0 inside it); |z| > 1.64 is flagged as borderline.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from sim.report.stats import interval

BORDERLINE_Z = NormalDist().inv_cdf(0.95)
FIVE = 5


def judge(band: tuple[float, float], values: np.ndarray) -> dict[str, float | str | bool]:
    """The verdict on one figure from per-seed values, with what it rests on."""
    i = interval(values)
    lo5, hi5 = i.range_of(FIVE)
    lo, hi = band
    se5 = i.sd / math.sqrt(FIVE)
    if lo <= i.mean <= hi:
        z = 0.0
    else:
        edge = lo if i.mean < lo else hi
        z = (edge - i.mean) / se5 if se5 > 0 else math.copysign(math.inf, edge - i.mean)
    reproduced = hi >= lo5 - 1e-12 and lo <= hi5 + 1e-12
    return {
        "mean": i.mean,
        "ci_lo": i.lo,
        "ci_hi": i.hi,
        "five_seed_lo": lo5,
        "five_seed_hi": hi5,
        "sd": i.sd,
        "z": z,
        "borderline": abs(z) > BORDERLINE_Z,
        "verdict": "reproduced" if reproduced else "not reproduced",
    }


def p_value(z: float) -> float:
    """Two-sided p of z: the chance of a gap this large if the model's five seeds were the
    write-up's."""
    return 2 * (1 - NormalDist().cdf(abs(z)))


def holm(p_values: dict[str, float], alpha: float = 0.05) -> list[str]:
    """The keys whose 'the model reproduces this' Holm's step-down rejects at alpha."""
    rejected: list[str] = []
    ordered = sorted(p_values.items(), key=lambda kv: kv[1])
    for rank, (key, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - rank):
            break
        rejected.append(key)
    return rejected
