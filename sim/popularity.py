"""Zipf popularity over article ranks, and the save weights derived from it."""

from __future__ import annotations

import numpy as np

from sim import exactmath


def zipf_weights(n: int, s: float) -> np.ndarray:
    """Normalised weights of ranks 1..n, proportional to rank**-s."""
    w = exactmath.power(np.arange(1, n + 1), -s)
    return w / w.sum()


def top_share(n: int, s: float, k: int = 10) -> float:
    """Analytic share of the k most popular articles."""
    return float(zipf_weights(n, s)[:k].sum())


def article_weights(ranking: np.ndarray, s: float) -> np.ndarray:
    """Weight of each article index, given ranking[i] = popularity rank (0-based) of article i."""
    return zipf_weights(len(ranking), s)[ranking]


def save_weights(
    question_w: np.ndarray, independent_w: np.ndarray, follows: float, even: bool
) -> np.ndarray:
    """Per-article save probabilities: the even control, or a mix of the questions' ranking
    and an independent ranking of the same shape."""
    if even:
        return np.full(len(question_w), 1.0 / len(question_w))
    return follows * question_w + (1.0 - follows) * independent_w
