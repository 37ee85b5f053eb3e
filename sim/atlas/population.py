"""The atlas as a population of sites: the spread of a measured share across sites (median,
quartiles, 10th–90th percentiles) by citation age and kind of site, and a 90 % prediction
interval for a site not in the atlas, checked by leaving each site out in turn.

The interval is the sites' own order statistics, no distribution assumed: for n sites,
[X_(k), X_(n+1−k)] holds a further site's share with probability at least (n+1−2k)/(n+1)
when the n + 1 sites are exchangeable (Wilks 1941, tolerance limits; Vovk, Gammerman and
Shafer 2005, conformal prediction), whatever the shares' distribution; k is the largest with
that bound at least ``LEVEL``. The condition is exchangeability: a new site is drawn as the
atlas's sites were (the selection rule of README.md), not picked for being unusual. Ties and
the inclusive bounds only add coverage."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

LEVEL = 0.90
KEYS = ["quantity", "draw", "age_s"]
QUANTILES = {"p10": 0.10, "q25": 0.25, "median": 0.50, "q75": 0.75, "p90": 0.90}


def rank(n: int, level: float = LEVEL) -> int:
    """The largest k with (n+1−2k)/(n+1) ≥ ``level`` (0: n sites are too few for an
    interval at that level; 19 at least for 90 %)."""
    return max(0, math.floor((n + 1) * (1 - level) / 2 + 1e-9))


def min_sites(level: float = LEVEL) -> int:
    """The fewest sites that give an interval at ``level``."""
    return next(n for n in range(1, 10**6) if rank(n, level) >= 1)


def prediction_interval(
    shares: Sequence[float] | np.ndarray, level: float = LEVEL
) -> tuple[float, float]:
    """The k-th smallest and k-th largest share, k = ``rank(n, level)``: a further
    exchangeable site falls inside with probability at least ``level`` (NaN where the sites
    are too few)."""
    x = np.sort(np.asarray(shares, dtype=float))
    k = rank(len(x), level)
    if k < 1:
        return math.nan, math.nan
    return float(x[k - 1]), float(x[len(x) - k])


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
            if lo <= v[i] <= hi:
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
