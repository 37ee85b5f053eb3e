"""The Poisson save rates every closed form starts from, the chance of a change in a
window, and how citations spread over the articles."""

from __future__ import annotations

import functools

import numpy as np

from sim.params import Params
from sim.popularity import zipf_weights


def save_rates_per_s(params: Params) -> np.ndarray:
    """λ by question-popularity rank (rank 1 first): edits follow questions fully, or the
    even control."""
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


def citation_mixture(params: Params) -> np.ndarray:
    """Each article's share of citations: the first citation follows the questions'
    popularity, the others are random articles (popularity rank is independent of topic)."""
    n, k = params.n_articles, params.citations_per_answer
    return (zipf_weights(n, params.zipf_s) + (k - 1) / n) / k


@functools.lru_cache(maxsize=8)
def citation_rates(params: Params, maps: int) -> np.ndarray:
    """Citations per second of each article (columns) under `maps` random neighbour maps
    (rows): its question rate as a first citation, plus the summed question rates of the
    articles it is the nearest neighbour of, the same article each time (fixed draws);
    shared by every interval."""
    n = params.n_articles
    q = zipf_weights(n, params.zipf_s)
    draws = np.random.default_rng(0)
    rate = np.tile(q, (maps, 1))
    for m in range(maps):
        for _slot in range(params.citations_per_answer - 1):
            neighbour = (np.arange(n) + draws.integers(1, n, n)) % n if n > 1 else np.zeros(1, int)
            rate[m] += np.bincount(neighbour, weights=q, minlength=n)
    rate = params.n_questions * rate / params.day_s
    rate.flags.writeable = False
    return rate
