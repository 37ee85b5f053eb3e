"""Closed-form expectations the simulation is checked against.

Saves on article i form (approximately, exactly with ``arrivals='poisson'``) a
Poisson process of rate λᵢ = n_saves · wᵢ / day_s, wᵢ its share of saves. A copy
read at time t is out of date at time t + L with probability 1 − exp(−λᵢ L):
the freshness of a Poisson-changing element (Cho & Garcia-Molina, "Synchronizing
a database to improve freshness", SIGMOD 2000; "Estimating frequency of change",
ACM TOIT 2003). Human saves stop at the end of the day, so a window that runs
past it is cut there.
"""

from __future__ import annotations

import numpy as np

from sim.params import Params
from sim.popularity import zipf_weights


def save_rates_per_s(params: Params) -> np.ndarray:
    """λ by question-popularity rank (rank 1 first), for edits that follow questions fully
    or for the even control."""
    n = params.n_articles
    if params.save_popularity == "even":
        w = np.full(n, 1.0 / n)
    elif params.edit_follows_questions == 1.0:
        w = zipf_weights(n, params.zipf_s)
    else:
        raise ValueError("closed form needs edit_follows_questions = 1 or the even control")
    return params.n_saves * w / params.day_s


def p_changed(rate_per_s: np.ndarray | float, window_s: np.ndarray | float) -> np.ndarray:
    """P(at least one save in a window), Poisson saves."""
    return 1.0 - np.exp(-np.asarray(rate_per_s) * np.asarray(window_s))


def p_stale_at_day_end(params: Params) -> np.ndarray:
    """P(a citation of the rank-r article, read at a uniform time, is stale or gone at day end),
    per rank: 1 − (1 − e^(−λT)) / (λT)."""
    x = save_rates_per_s(params) * params.day_s
    return 1.0 - np.where(x > 0, -np.expm1(-x) / np.where(x > 0, x, 1.0), 1.0)


def p_first_citation_stale(params: Params) -> float:
    """Expected stale-or-gone share of first citations, if the first citation is the question's
    target (true while the target is published)."""
    return float(zipf_weights(params.n_articles, params.zipf_s) @ p_stale_at_day_end(params))


def p_human_save_before_edit(params: Params, delay_s: float) -> float:
    """P(a human saves or unpublishes the question's target between the read, at a uniform
    time of day, and an edit delay_s later): Σᵢ qᵢ · E_t[1 − exp(−λᵢ · min(d, T − t))]."""
    T, d = params.day_s, min(delay_s, params.day_s)
    lam = save_rates_per_s(params)
    with np.errstate(divide="ignore", invalid="ignore"):
        ramp = np.where(lam > 0, d - (-np.expm1(-lam * d)) / lam, 0.0)
    per_article = (ramp + (T - d) * p_changed(lam, d)) / T
    return float(zipf_weights(params.n_articles, params.zipf_s) @ per_article)
