"""The uniform-instant share of a log and its time-series interval.

A share here is a time average: at each instant r of [t0, t1], f(r) = N(r) / D(r), the weight
of the alive articles a read at r finds stale over the weight of all alive articles; the
share is f's mean over the instants where some weight is alive. N and D are step functions
(they change only where an article is born, dies, or a stale piece starts or ends), so the
mean is integrated exactly, segment by segment, with one sort and two cumulative sums.

The interval resamples time, not articles: the span is cut into WINDOWS equal windows, each
holding its exact integral of f, and a circular block bootstrap (Politis & Romano 1992)
redraws runs of consecutive windows, so a burst or a quiet year stays whole. The block length
is Politis & White's (2004) automatic rule for the circular bootstrap (with Patton, Politis &
White's 2009 correction), from the windows' own autocorrelation. A regime as long as the log
itself cannot show in one log's windows, so the percentile interval is widened about the
estimate by INFLATE, the smallest factor that makes it cover the generator's share in at least
95 % of synthetic bursty logs at every setting of ``sim.studymap.coverage`` (regimes of three
months to two years, bulk publishes on and off)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WINDOWS = 128
"""Equal time windows the bootstrap resamples."""
BOOT = 2000
INFLATE = 1.8
"""The percentile interval's widening about the estimate (calibrated; see the docstring)."""


@dataclass(frozen=True)
class Windows:
    """Per window: the integral of f (stale weight over alive weight), the time some weight is
    alive, and the integrals of N (stale weight) and D (alive weight)."""

    f: np.ndarray
    covered: np.ndarray
    stale: np.ndarray
    alive: np.ndarray

    def share(self) -> float:
        """The mean of f over the instants where a read can be drawn."""
        total = float(self.covered.sum())
        return float(self.f.sum()) / total if total > 0 else math.nan

    def pooled(self) -> float:
        """Stale article-time over alive article-time (weighted): later, larger years count
        more."""
        total = float(self.alive.sum())
        return float(self.stale.sum()) / total if total > 0 else math.nan


def windows(
    stale: tuple[np.ndarray, np.ndarray, np.ndarray],
    alive: tuple[np.ndarray, np.ndarray, np.ndarray],
    edges: np.ndarray,
) -> Windows:
    """``stale`` and ``alive``: pieces (start, end, weight), each adding its weight to N or to
    D over [start, end); ``edges``: the windows' bounds, ascending."""
    t = np.concatenate([stale[0], stale[1], alive[0], alive[1]])
    zero_n, zero_d = np.zeros(len(alive[0])), np.zeros(len(stale[0]))
    d_n = np.concatenate([stale[2], -stale[2], zero_n, zero_n])
    d_d = np.concatenate([zero_d, zero_d, alive[2], -alive[2]])
    order = np.argsort(t, kind="stable")
    t = t[order]
    n, d = np.cumsum(d_n[order])[:-1], np.cumsum(d_d[order])[:-1]  # on [t_k, t_k+1)
    span = np.diff(t)
    on = d > 0
    f = np.where(on, n / np.where(on, d, 1.0), 0.0)

    def per_window(value: np.ndarray) -> np.ndarray:
        cum = np.concatenate([[0.0], np.cumsum(value * span)])
        return np.diff(np.interp(edges, t, cum)) if len(t) else np.zeros(len(edges) - 1)

    return Windows(per_window(f), per_window(on.astype(float)), per_window(n), per_window(d))


def block_length(x: np.ndarray) -> int:
    """Politis & White's (2004) automatic block length for the circular block bootstrap of
    the series ``x`` (corrected as in Patton, Politis & White 2009)."""
    n = len(x)
    x = x - x.mean()
    var = float(x @ x) / n
    if n < 8 or var <= 0:
        return 1
    lags = np.arange(n)
    acov = np.array([float(x[: n - k] @ x[k:]) / n for k in lags])
    rho = acov / acov[0]
    k_n = max(5, math.ceil(math.sqrt(math.log10(n))))
    m_max = math.ceil(math.sqrt(n)) + k_n
    small = np.abs(rho) < 2 * math.sqrt(math.log10(n) / n)
    m_hat = next(
        (m for m in range(1, m_max + 1) if small[m + 1 : m + 1 + k_n].all()), m_max
    )  # the first lag after which k_n autocorrelations in a row are insignificant
    big_m = min(2 * m_hat, m_max, n - 1)
    k = lags[1 : big_m + 1]
    u = k / big_m
    flat_top = np.where(u <= 0.5, 1.0, 2 * (1 - u))
    g = 2 * float((flat_top * k * acov[k]).sum())
    long_run = acov[0] + 2 * float((flat_top * acov[k]).sum())
    if long_run <= 0 or g == 0:
        return 1
    b = (2 * g**2 / ((4 / 3) * long_run**2)) ** (1 / 3) * n ** (1 / 3)
    return int(min(max(1, round(b)), math.ceil(min(3 * math.sqrt(n), n / 3))))


def interval(w: Windows, rng: np.random.Generator) -> tuple[float, float, int]:
    """The share's 95 % interval (the circular block bootstrap's percentiles, widened about
    the share by INFLATE and clipped to 0–1) and the block length in windows."""
    share = w.share()
    width = np.maximum(w.covered, 1e-300)
    b = block_length(np.where(w.covered > 0, w.f / width, 0.0)[w.covered > 0])
    n = len(w.f)
    starts = rng.integers(0, n, (BOOT, math.ceil(n / b)))
    idx = ((starts[:, :, None] + np.arange(b)) % n).reshape(BOOT, -1)[:, :n]
    covered = w.covered[idx].sum(1)
    boot = w.f[idx].sum(1) / np.maximum(covered, 1e-300)
    lo, hi = np.quantile(boot[covered > 0], [0.025, 0.975])
    return (
        float(np.clip(share - INFLATE * (share - lo), 0, 1)),
        float(np.clip(share + INFLATE * (hi - share), 0, 1)),
        b,
    )
