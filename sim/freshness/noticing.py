"""How long a stale citation goes unnoticed under a periodic check: the density of a
citation's first change over the day (with and without the unpublish substitution), the
mean and 95th percentile wait to the next check, and the share of citation-hours held
stale and unnoticed."""

from __future__ import annotations

import functools

import numpy as np

from sim import exactmath
from sim.freshness import held as held_forms
from sim.freshness.rates import citation_mixture, save_rates_per_s
from sim.params import Params
from sim.popularity import zipf_weights

_BLOCK = 100
"""Grid points per block of the change-time density: exp(−λc) at a point is the block's
anchor exp(−λa) times exp(−λo) for its offset o, so the sum over articles is one matrix
product instead of an exponential per article and grid point."""


@functools.lru_cache(maxsize=16)
def _change_density(params: Params, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid midpoints c over the day and the density of a citation's first change at c,
    Σᵢ mᵢ (1 − e^{−λᵢc}) / D (mᵢ article i's share of citations); shared by every
    interval (it does not depend on the checks)."""
    d = params.day_s
    step = d / grid
    blocks = -(-grid // _BLOCK)
    anchors = np.arange(blocks) * _BLOCK * step + step / 2
    offsets = np.arange(_BLOCK) * step
    lam = save_rates_per_s(params)[:, None]
    mix = citation_mixture(params)
    kept = (np.exp(-lam * anchors[None, :]) * mix[:, None]).T @ np.exp(-lam * offsets[None, :])
    c = (np.arange(grid) + 0.5) * d / grid
    return c, (mix.sum() - kept.reshape(-1)[:grid]) / d


@exactmath.rounded
def unnoticed_time(params: Params, interval_s: float, grid: int = 20_000) -> dict[str, float]:
    """How long a citation stays stale before a periodic check at this interval notices.

    A citation read at a uniform time r of an article saved at Poisson rate λ first
    changes at c = r + Exp(λ); over reads, c has density (1 − e^{−λc}) / D on [0, D].
    A check every T seconds notices at the first check at or after c, T·⌈c/T⌉ (a change
    after the day's last check goes unnoticed until the day ends): the classic T/2 for a
    change uniform within an interval, less when late changes dominate. Returns the mean
    and 95th percentile over changed citations, and the share of all citation-hours held
    that were stale and unnoticed (expected unnoticed time over the mean holding time
    D/2; Cho & Garcia-Molina's age, as a share)."""
    if held_forms.held(params):
        return held_forms.unnoticed_time_held(params, interval_s)
    d = params.day_s
    c, density = _change_density(params, grid)
    last = (d // interval_s) * interval_s
    noticed = np.ceil(c / interval_s) * interval_s
    wait = np.where(noticed <= last, noticed - c, d - c)
    mass = density * (d / grid)
    order = np.argsort(wait, kind="stable")
    cdf = np.cumsum(mass[order]) / mass.sum()
    return {
        "mean_s": float((mass * wait).sum() / mass.sum()),
        "p95_s": float(wait[order][np.searchsorted(cdf, 0.95)]),
        "stale_unknown_share": float((mass * wait).sum() / (d / 2)),
        "changed_share": float(mass.sum()),
    }


def first_change_density(params: Params, c: np.ndarray) -> np.ndarray:
    """Density over the day of c, the first change of a citation's article after its read
    (mass below 1: most citations never change), with the day-end form's unpublish
    substitution: a question's target is its first citation only while published, else the
    first citation is a random article. For an article saved at rate λ and unpublished at
    rate uλ, a read at uniform r gives the target part Σ qᵢ (e^{−uλᵢc} − e^{−λᵢc}) / ((1−u)D)
    in closed form; the substituted part is the convolution of the chance the target is gone
    by r with a random article's first-change density after r (numerical, on c's grid, which
    must be even from 0). Its integral to the day's end is stale_shares_at_day_end."""
    d, u, k = params.day_s, params.save_mix[2], params.citations_per_answer
    lam = save_rates_per_s(params)[:, None]
    q = zipf_weights(params.n_articles, params.zipf_s)[:, None]
    cc = c[None, :]
    if u < 1:
        target = (q * (np.exp(-u * lam * cc) - np.exp(-lam * cc))).sum(0) / ((1 - u) * d)
    else:
        target = np.zeros_like(c)
    random_article = (1.0 - np.exp(-lam * cc)).mean(0) / d
    step = c[1] - c[0]
    # r on the same grid: P(target gone by r) * a random article's density of a change at c-r
    gone = 1.0 - (q * np.exp(-u * lam * (c - step / 2)[None, :])).sum(0)
    after = (lam * np.exp(-lam * (c - step / 2)[None, :])).mean(0)
    n = 2 * len(c)
    convolved = np.fft.irfft(np.fft.rfft(gone, n) * np.fft.rfft(after, n), n)[: len(c)]
    substituted = convolved * step / d
    first = target + substituted
    return (first + (k - 1) * random_article) / k


@functools.lru_cache(maxsize=8)
def _change_mass(params: Params, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """first_change_density's probability mass in each of `grid` equal cells of the day."""
    c = (np.arange(grid) + 0.5) * params.day_s / grid
    return c, first_change_density(params, c) * (params.day_s / grid)


@exactmath.rounded
def stale_unknown_share(params: Params, interval_s: float, grid: int = 20_000) -> dict[str, float]:
    """The share of citation-hours held stale and unnoticed under a check every interval_s,
    as in unnoticed_time but with first_change_density (the unpublish substitution), and
    the mean unnoticed time over changed citations under the same density."""
    d = params.day_s
    c, mass = _change_mass(params, grid)
    last = (d // interval_s) * interval_s
    noticed = np.ceil(c / interval_s) * interval_s
    wait = np.where(noticed <= last, noticed - c, d - c)
    return {
        "mean_s": float((mass * wait).sum() / mass.sum()),
        "stale_unknown_share": float((mass * wait).sum() / (d / 2)),
        "changed_share": float(mass.sum()),
    }
