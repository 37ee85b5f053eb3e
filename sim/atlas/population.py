"""The atlas as a population of sites: the spread of a measured share across sites (median,
quartiles, 10th–90th percentiles) by citation age and kind of site, and a 90 % prediction
interval for a site not in the atlas, checked by leaving each site out in turn.

The interval is Student's t on the logit of the sites' shares: with m and s the mean and
standard deviation of logit(share) over n sites, a new site's logit lies in
m ± t(0.95, n − 1)·s·√(1 + 1/n) with probability 0.90 when the sites' logits are
exchangeable draws of one normal distribution; the bounds are mapped back to shares. A share
of 0 (no save at that age in the site's history) is taken as ``FLOOR`` before the logit."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from sim import exactmath

LEVEL = 0.90
FLOOR = 1e-9
"""Shares are clipped to [FLOOR, 1 − FLOOR] before the logit, and compared with an interval
so clipped: a zero share (no save so soon after another in a site's history) is 10⁻⁷ %,
below every site's share at 5 s (about 10⁻⁴ %)."""
MIN_SITES = 3
"""Fewer sites give no interval (a standard deviation needs two, a t quantile one more)."""
KEYS = ["quantity", "draw", "age_s"]
QUANTILES = {"p10": 0.10, "q25": 0.25, "median": 0.50, "q75": 0.75, "p90": 0.90}


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, FLOOR, 1 - FLOOR)
    return exactmath.log(p / (1 - p))


def prediction_interval(
    shares: Sequence[float] | np.ndarray, level: float = LEVEL
) -> tuple[float, float]:
    """The interval a further site's share falls in with probability ``level`` (NaN for
    fewer than ``MIN_SITES`` sites)."""
    x = _logit(np.asarray(shares, dtype=float))
    n = len(x)
    if n < MIN_SITES:
        return math.nan, math.nan
    half = stats.t.ppf(0.5 + level / 2, n - 1) * x.std(ddof=1) * math.sqrt(1 + 1 / n)
    lo, hi = x.mean() - half, x.mean() + half
    return float(1 / (1 + math.exp(-lo))), float(1 / (1 + math.exp(-hi)))


def _spread(g: pd.DataFrame) -> dict[str, float]:
    v = g["measured"].to_numpy(dtype=float)
    lo, hi = prediction_interval(v)
    return {
        "sites": len(v),
        **{name: float(np.quantile(v, q)) for name, q in QUANTILES.items()},
        "pi_lo": lo,
        "pi_hi": hi,
    }


def population(sites: pd.DataFrame) -> pd.DataFrame:
    """By quantity, draw, age and kind (``all`` first, then each kind): the sites' spread
    and the 90 % prediction interval for one more site of that kind."""
    rows = []
    for key, g in sites.groupby(KEYS, sort=True):
        groups = [("all", g), *((str(k), h) for k, h in g.groupby("kind", sort=True))]
        for kind, h in groups:
            rows.append(dict(zip(KEYS, key, strict=True)) | {"kind": kind} | _spread(h))
    return pd.DataFrame(rows)


def leave_one_out(sites: pd.DataFrame) -> pd.DataFrame:
    """By quantity, draw and age: how often a site falls inside the interval built from
    every other site, and which sites fall outside."""
    rows = []
    for key, g in sites.groupby(KEYS, sort=True):
        v, names = g["measured"].to_numpy(dtype=float), g["site"].to_list()
        inside, outside = 0, []
        for i in range(len(v)):
            lo, hi = prediction_interval(np.delete(v, i))
            if lo <= min(max(v[i], FLOOR), 1 - FLOOR) <= hi:
                inside += 1
            elif not math.isnan(lo):
                outside.append(names[i])
        tried = inside + len(outside)
        rows.append(
            dict(zip(KEYS, key, strict=True))
            | {
                "sites": len(v),
                "tried": tried,
                "left_out_inside": inside,
                "loo_coverage": inside / tried if tried else math.nan,
                "sites_outside": "; ".join(outside),
            }
        )
    return pd.DataFrame(rows)


def percentile(value: float, shares: Sequence[float] | np.ndarray) -> float:
    """Where ``value`` stands among the sites' shares, 0–100 (ties count half)."""
    v = np.asarray(shares, dtype=float)
    return float(100 * ((v < value).sum() + 0.5 * (v == value).sum()) / len(v))
