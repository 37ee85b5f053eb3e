"""Edit popularity: discrete Zipf and Zipf–Mandelbrot laws over edit ranks, by maximum likelihood.

The data are the articles' body-edit counts sorted in decreasing order (rank 1 = most
edited), over the N articles edited at least once; an edit falls on rank r with probability
r**-s / sum (Zipf) or (r + q)**-s / sum (Zipf–Mandelbrot, which is Zipf at q = 0).
Goodness of fit is checked by simulation (Clauset, Shalizi & Newman 2009): the
Kolmogorov–Smirnov distance between the observed and fitted rank distribution, against the
same distance in samples drawn from the fit, re-ranked and re-fitted the same way.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from sim import exactmath


def ranked(counts: np.ndarray) -> np.ndarray:
    """Positive counts, most edited first."""
    c = np.sort(np.asarray(counts, dtype=float))[::-1]
    return c[c > 0]


def law(n: int, params: tuple[float, ...]) -> np.ndarray:
    """Probabilities of ranks 1..n under (s,) Zipf or (s, q) Zipf–Mandelbrot."""
    r = np.arange(1, n + 1, dtype=float)
    q = params[1] if len(params) > 1 else 0.0
    w = exactmath.power(r + q, -params[0])
    return w / w.sum()


def _log_ranks(n: int, q: float) -> np.ndarray:
    """log(r + q) for r = 1..n; Zipf's (q = 0) once per n, the optimisers' hot path."""
    return _zipf_log_ranks(n) if q == 0 else exactmath.log(np.arange(1, n + 1) + q)


@functools.lru_cache(maxsize=256)
def _zipf_log_ranks(n: int) -> np.ndarray:
    out = exactmath.log(np.arange(1, n + 1))
    out.setflags(write=False)
    return out


def nll(c: np.ndarray, params: tuple[float, ...]) -> float:
    """-sum c_r log p_r, as s sum c_r log(r + q) + (sum c) log sum (r + q)**-s: one log and
    one exponential a rank (none of them numpy's kernels: sim.exactmath)."""
    s, q = params[0], (params[1] if len(params) > 1 else 0.0)
    logs = _log_ranks(len(c), q)
    total = math.fsum(exactmath.exp(-s * logs).tolist())
    return s * exactmath.dot(c, logs) + math.fsum(c.tolist()) * math.log(total)


def fit_zipf(c: np.ndarray) -> tuple[float]:
    res = optimize.minimize_scalar(
        lambda s: nll(c, (s,)), bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-6}
    )
    return (float(res.x),)


def fit_zipf_mandelbrot(
    c: np.ndarray, start: tuple[float, float] | None = None
) -> tuple[float, float]:
    """(s, q) with q > -1, searched as log(q + 1): from three starts about the Zipf fit, or
    from ``start`` alone (a refit of a resample near a known fit)."""

    def f(theta: np.ndarray) -> float:
        s, lq = theta
        if not (0 <= s <= 50 and -12 <= lq <= 12):  # q from -1 + 6e-6 to 1.6e5
            return np.inf
        return nll(c, (s, math.exp(lq) - 1))

    if start is None:
        s0 = fit_zipf(c)[0]
        starts = [(s0, 0.0), (2 * s0 + 0.5, 2.0), (4 * s0 + 1, 4.0)]
    else:
        starts = [(start[0], math.log1p(start[1]))]
    opts = {"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000}
    best = min(
        (optimize.minimize(f, x0, method="Nelder-Mead", options=opts) for x0 in starts),
        key=lambda r: r.fun,
    )
    return float(best.x[0]), math.exp(best.x[1]) - 1


FITTERS = {"zipf": fit_zipf, "zipf_mandelbrot": fit_zipf_mandelbrot}


def ks_distance(c: np.ndarray, params: tuple[float, ...]) -> float:
    return float(np.max(np.abs(np.cumsum(c) / c.sum() - np.cumsum(law(len(c), params)))))


@dataclass(frozen=True)
class Gof:
    family: str
    params: tuple[float, ...]
    ks: float
    p_value: float
    aic: float


def goodness_of_fit(c: np.ndarray, family: str, rng: np.random.Generator, sims: int) -> Gof:
    """KS distance of the fit and the share of simulated samples at least that far from theirs."""
    params = FITTERS[family](c)
    d = ks_distance(c, params)
    p = law(len(c), params)
    n = int(c.sum())
    far = 0
    for _ in range(sims):
        sim = np.sort(rng.multinomial(n, p).astype(float))[::-1]
        refit = fit_zipf(sim) if family == "zipf" else fit_zipf_mandelbrot(sim, params)
        far += ks_distance(sim, refit) >= d
    aic = 2 * len(params) + 2 * nll(c, params)
    return Gof(family, params, d, (far + 1) / (sims + 1), aic)


def top_share(c: np.ndarray, k: int = 10) -> float:
    return float(c[:k].sum() / c.sum())
