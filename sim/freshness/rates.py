"""The Poisson save rates every closed form starts from, and the chance of a change in a
window."""

from __future__ import annotations

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
