"""A citation's staleness in closed form: at the day's end, before an edit delay_s after
the read (the CAS edit's human conflict), and before a gated write that waits for an
approval; each averaged over the read's uniform time of day."""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from sim import exactmath
from sim.freshness.rates import p_changed, save_rates_per_s
from sim.params import Params
from sim.popularity import zipf_weights

_GRID = 2001


@functools.lru_cache(maxsize=16)
def _day_grid(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What every window of a day shares: λ and question weight per article (columns), and
    P(the article is still published at t) on the grid; computed once per Params."""
    t = np.linspace(0.0, params.day_s, _GRID)
    lam = save_rates_per_s(params)[:, None]
    q = zipf_weights(params.n_articles, params.zipf_s)[:, None]
    return lam, q, np.exp(-params.save_mix[2] * lam * t[None, :])


def _cited_changed(params: Params, window_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per read time t on the grid: P(first citation changed in its window), P(second)."""
    lam, q, target_published = _day_grid(params)
    changed = p_changed(lam, window_s[None, :])  # article × t
    random_article = changed.mean(axis=0)
    first = (q * (target_published * changed + (1 - target_published) * random_article)).sum(0)
    return first, random_article


def _mean_over_day(values: np.ndarray) -> float:
    return float(np.trapezoid(values, dx=1.0 / (len(values) - 1)))


@exactmath.rounded
def p_human_save_before_edit(params: Params, delay_s: float) -> float:
    """P(a human saves or unpublishes the first cited article between the read, at a uniform
    time of day, and an edit delay_s later)."""
    t = np.linspace(0.0, params.day_s, _GRID)
    first, _ = _cited_changed(params, np.minimum(delay_s, params.day_s - t))
    return _mean_over_day(first)


@functools.lru_cache(maxsize=8)
def _gated_day_end(params: Params) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """What p_gated_write_meets shares across every delay and latency of one Params (the
    report asks four delays a Params): the target's weight while published (article × t),
    the chance it is gone (per t), and per kind of change P(no change of that kind to the
    first citation before the day's end) (per t)."""
    lam, q, target_published = _day_grid(params)
    t = np.linspace(0.0, params.day_s, _GRID)
    q_published = q * target_published  # article × t: the target, cited while published
    q_gone = 1.0 - q_published.sum(0)  # the target is gone: a random article instead
    left = params.day_s - t
    first_end = {}
    for kind, share in (("all", 1.0), ("published", params.save_mix[2])):
        by_end = np.exp(-share * lam * left[None, :])  # article × t: cut by the day's end
        first_end[kind] = (q_published * by_end).sum(0) + q_gone * by_end.mean(0)
    for array in (q_published, q_gone, *first_end.values()):
        array.setflags(write=False)
    return q_published, q_gone, first_end


@exactmath.rounded
def p_gated_write_meets(params: Params, delay_s: float, quantiles: int = 64) -> dict[str, float]:
    """What a write with the citation's version meets delay_s plus one approval latency
    A ~ lognormal(log median, sigma) after the read: 'human', a human saved and the article is
    still published (e^{−uλL} − e^{−λL} for a window L); 'gone', it was unpublished
    (1 − e^{−uλL}). Averaged over the read's uniform time of day and over equal-probability
    quantiles of A."""
    normal = NormalDist()
    lam, _, _ = _day_grid(params)
    q_published, q_gone, first_end = _gated_day_end(params)
    left = params.day_s - np.linspace(0.0, params.day_s, _GRID)
    windows = delay_s + np.array(
        [
            params.approval_median_s
            * math.exp(params.approval_sigma * normal.inv_cdf((i + 0.5) / quantiles))
            for i in range(quantiles)
        ]
    )
    cut = windows[None, :] < left[:, None]  # t × latency: the window ends before the day
    unchanged = {}  # P(no change of that kind to the first citation), t × latency
    for kind, share in (("all", 1.0), ("published", params.save_mix[2])):
        whole = np.exp(-share * lam * windows[None, :])  # article × latency
        first_whole = q_published.T @ whole + q_gone[:, None] * whole.mean(0)[None, :]
        unchanged[kind] = np.where(cut, first_whole, first_end[kind][:, None])
    over_day = np.trapezoid(
        np.stack([unchanged["published"] - unchanged["all"], 1.0 - unchanged["published"]]),
        dx=1.0 / (_GRID - 1),
        axis=1,
    )  # (human, gone) × latency: _mean_over_day along the day, for every latency
    human, gone = over_day.mean(axis=1)
    return {"human": float(human), "gone": float(gone)}


@exactmath.rounded
def stale_shares_at_day_end(params: Params) -> dict[str, float]:
    """Expected shares at day end: first and second citations stale or gone, all citations,
    and answers with at least one (two citations, sharing their read time)."""
    t = np.linspace(0.0, params.day_s, _GRID)
    first, second = _cited_changed(params, params.day_s - t)
    return {
        "first": _mean_over_day(first),
        "second": _mean_over_day(second),
        "citations": _mean_over_day((first + second) / 2),
        "answers": _mean_over_day(1 - (1 - first) * (1 - second)),
    }
