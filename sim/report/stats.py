"""Intervals over seeds (normal approximation; every use has 100 or more seeds)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    """95 % confidence interval of the mean over seeds."""
    sd: float
    n: int

    def range_of(self, k: int) -> tuple[float, float]:
        """Central 95 % range of a k-seed pooled value (as the write-up's five seeds)."""
        half = Z95 * self.sd / math.sqrt(k)
        return self.mean - half, self.mean + half


def interval(values: np.ndarray | list[float]) -> Interval:
    v = np.asarray(values, dtype=float)
    n = len(v)
    sd = float(v.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n) if n else math.nan
    mean = float(v.mean()) if n else math.nan
    return Interval(mean, mean - half, mean + half, sd, n)


def seeds_for_half_width(sd: float, half_width: float) -> int:
    """Seeds needed for a 95 % interval of ± half_width."""
    return math.ceil((Z95 * sd / half_width) ** 2)


def ratio_interval(numerators: np.ndarray, denominators: np.ndarray) -> Interval:
    """95 % interval of a pooled ratio sum(x) / sum(y) over seeds (the tables' pooled means,
    such as minutes unnoticed per changed citation), by the delta method; with few seeds it
    takes Student's t quantile instead of the normal one."""
    from scipy.stats import t as student

    x, y = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    n = len(x)
    r = float(x.sum() / y.sum())
    resid = x - r * y
    sd = float(resid.std(ddof=1) / y.mean()) if n > 1 else 0.0
    q = float(student.ppf(0.975, n - 1)) if 1 < n < 100 else Z95
    half = q * sd / math.sqrt(n)
    return Interval(r, r - half, r + half, sd, n)
