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
from collections.abc import Callable
from dataclasses import dataclass, replace

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


def nll(c: np.ndarray, params: tuple[float, ...], edits: float | None = None) -> float:
    """-sum c_r log p_r, as s sum c_r log(r + q) + (sum c) log sum (r + q)**-s: one log and
    one exponential a rank (none of them numpy's kernels: sim.exactmath). ``edits`` is
    sum c, given by an optimiser that calls this thousands of times on one ``c``."""
    s, q = params[0], (params[1] if len(params) > 1 else 0.0)
    logs = _log_ranks(len(c), q)
    total = math.fsum(exactmath.exp(-s * logs).tolist())
    edits = math.fsum(c.tolist()) if edits is None else edits
    return s * exactmath.dot(c, logs) + edits * math.log(total)


FATOL = 1e-9
"""The optimisers' tolerance on the negative log-likelihood, absolute..."""
FATOL_ULPS = 64
"""...but never below this many units in the last place of the value: the likelihood's own
rounding (a few ulps of its two terms, which partly cancel) is then all that is left to
resolve, and a tolerance under it is never met. A log of 3.3 M body edits (likelihood 2e7,
ulp 4e-9) ran the simplex to its 4,000-iteration cap from one start in three. A likelihood
under 2**17 (some 25,000 body edits at 5 nats each) keeps the absolute 1e-9: the committed
logs (at most 2,366 body edits) and their resamples are fitted as before."""


def _fatol(value: float) -> float:
    return max(FATOL, FATOL_ULPS * math.ulp(abs(value))) if math.isfinite(value) else FATOL


def fit_zipf(c: np.ndarray) -> tuple[float]:
    edits = math.fsum(c.tolist())
    res = optimize.minimize_scalar(
        lambda s: nll(c, (s,), edits), bounds=(0.0, 10.0), method="bounded", options={"xatol": 1e-6}
    )
    return (float(res.x),)


def fit_zipf_mandelbrot(
    c: np.ndarray, start: tuple[float, ...] | None = None
) -> tuple[float, float]:
    """(s, q) with q > -1, searched as log(q + 1): from three starts about the Zipf fit, or
    from ``start`` alone (a refit of a resample near a known fit)."""

    edits = math.fsum(c.tolist())

    def f(theta: np.ndarray) -> float:
        s, lq = theta
        if not (0 <= s <= 50 and -12 <= lq <= 12):  # q from -1 + 6e-6 to 1.6e5
            return np.inf
        return nll(c, (s, math.exp(lq) - 1), edits)

    if start is None:
        s0 = fit_zipf(c)[0]
        starts = [(s0, 0.0), (2 * s0 + 0.5, 2.0), (4 * s0 + 1, 4.0)]
    else:
        starts = [(start[0], math.log1p(start[1]))]

    def run(x0: tuple[float, float]) -> optimize.OptimizeResult:
        opts = {"xatol": 1e-6, "fatol": _fatol(f(np.asarray(x0))), "maxiter": 4000}
        return optimize.minimize(f, x0, method="Nelder-Mead", options=opts)

    best = min((run(x0) for x0 in starts), key=lambda r: r.fun)
    return float(best.x[0]), math.exp(best.x[1]) - 1


FITTERS: dict[str, Callable[[np.ndarray], tuple[float, ...]]] = {
    "zipf": fit_zipf,
    "zipf_mandelbrot": fit_zipf_mandelbrot,
}


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
    return simulated(c, fitted(c, family), rng, sims)


def fitted(c: np.ndarray, family: str) -> Gof:
    """The fit, its KS distance and AIC, without the simulations (p-value NaN): what the
    choice of family reads."""
    params = FITTERS[family](c)
    aic = 2 * len(params) + 2 * nll(c, params)
    return Gof(family, params, ks_distance(c, params), math.nan, aic)


def simulated(c: np.ndarray, fit: Gof, rng: np.random.Generator, sims: int) -> Gof:
    """``fit`` with its p-value: the share of ``sims`` samples drawn from it at least as far
    from their own refit."""
    p = law(len(c), fit.params)
    n = int(c.sum())
    far = 0
    for _ in range(sims):
        sim = np.sort(rng.multinomial(n, p).astype(float))[::-1]
        refit = fit_zipf(sim) if fit.family == "zipf" else fit_zipf_mandelbrot(sim, fit.params)
        far += ks_distance(sim, refit) >= fit.ks
    return replace(fit, p_value=(far + 1) / (sims + 1))


def top_share(c: np.ndarray, k: int = 10) -> float:
    return float(c[:k].sum() / c.sum())
