"""How a reported figure is judged against the model, and how sure the verdict is.

A figure is *reproduced* when its band meets the central 95 % range that a five-seed run
of the model reaches (mean ± 1.96 · SD / √5; the write-up pooled five seeds). An exact
figure's band is the figure itself; a verbal one's is read from its wording and written
next to it ("about 4 in 10" = 35–45 %). z is the distance from the model's mean to the
band in five-seed standard errors (0 inside it), so a figure is reproduced exactly when
|z| ≤ 1.96. *Borderline* means near that threshold on the reproduced side,
1.64 < |z| ≤ 1.96; a far miss is plainly *not reproduced*. The verdict is *undecided* when
the 95 % interval of the model's mean reaches across the threshold: more seeds could turn
it either way.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from sim.stats import Z95, normal_interval

BORDERLINE_Z = NormalDist().inv_cdf(0.95)
"""|z| above this (and at most Z95) is borderline: reproduced, but only just."""
FIVE = 5
VERDICTS = ("reproduced", "not reproduced", "undecided")


def z_to_band(band: tuple[float, float], mean: float, sd: float) -> float:
    """Distance from mean to the band in five-seed standard errors (0 inside it)."""
    lo, hi = band
    if lo <= mean <= hi:
        return 0.0
    edge = lo if mean < lo else hi
    se5 = sd / math.sqrt(FIVE)
    return (edge - mean) / se5 if se5 > 0 else math.copysign(math.inf, edge - mean)


def _reproduced(band: tuple[float, float], mean: float, sd: float) -> bool:
    """The band meets mean ± 1.96 · sd / √5 (tolerant of rounding at the edge)."""
    half = Z95 * sd / math.sqrt(FIVE)
    lo, hi = band
    return hi >= mean - half - 1e-12 and lo <= mean + half + 1e-12


def judge_estimate(
    band: tuple[float, float], mean: float, sd: float, ci: tuple[float, float]
) -> dict[str, float | str | bool]:
    """The verdict on a figure whose model value is `mean` (95 % interval `ci`) with per-seed
    spread `sd`: reproduced, not reproduced, or undecided when the interval's two ends
    get different verdicts."""
    z = z_to_band(band, mean, sd)
    # every judged figure is a share: an interval end past 0 or 1 is the normal
    # approximation's, not a value the model could take
    at_ends = {_reproduced(band, min(max(m, 0.0), 1.0), sd) for m in ci}
    if len(at_ends) > 1 or _reproduced(band, mean, sd) not in at_ends:
        verdict = "undecided"
    else:
        verdict = "reproduced" if _reproduced(band, mean, sd) else "not reproduced"
    half = Z95 * sd / math.sqrt(FIVE)
    return {
        "mean": mean,
        "ci_lo": ci[0],
        "ci_hi": ci[1],
        "five_seed_lo": mean - half,
        "five_seed_hi": mean + half,
        "sd": sd,
        "z": z,
        "borderline": verdict == "reproduced" and BORDERLINE_Z < abs(z) <= Z95 + 1e-9,
        "verdict": verdict,
    }


def judge(band: tuple[float, float], values: np.ndarray) -> dict[str, float | str | bool]:
    """The verdict on one figure from per-seed values, with what it rests on."""
    i = normal_interval(values)
    return judge_estimate(band, i.mean, i.sd, (i.lo, i.hi))


def p_value(z: float) -> float:
    """Two-sided p of z: the chance of a gap this large if the model's five seeds were the
    write-up's."""
    return 2 * (1 - NormalDist().cdf(abs(z)))
