"""The day's exogenous draws: when questions and saves come, and what they target.

Everything random that does not depend on the simulation's state is drawn here,
up front, each from its own stream, so runs that differ only in what the agent
does (staleness run, CAS run) see exactly the same questions and saves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.corpus import EDIT_UNIFORMS
from sim.params import Params
from sim.popularity import article_weights, save_weights

SAVE_KINDS = ("body", "title", "unpublish")


@dataclass(frozen=True)
class DaySchedule:
    question_rank: np.ndarray
    """question_rank[i]: 0-based popularity rank of article i among questions."""
    question_w: np.ndarray
    save_w: np.ndarray
    question_s: np.ndarray
    question_targets: np.ndarray
    save_s: np.ndarray
    save_targets: np.ndarray
    save_kinds: np.ndarray
    save_uniforms: np.ndarray
    """EDIT_UNIFORMS uniforms per save for the edit's text."""


def _count(mean: int, params: Params, rng: np.random.Generator) -> int:
    return mean if params.arrivals == "uniform" else int(rng.poisson(mean))


def _times(count: int, day_s: float, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.uniform(0.0, day_s, size=count))


def draw_schedule(params: Params, rngs: dict[str, np.random.Generator]) -> DaySchedule:
    n = params.n_articles
    question_rank = rngs["question_ranking"].permutation(n)
    independent_rank = rngs["edit_ranking"].permutation(n)
    question_w = article_weights(question_rank, params.zipf_s)
    save_w = save_weights(
        question_w,
        article_weights(independent_rank, params.zipf_s),
        params.edit_follows_questions,
        params.save_popularity == "even",
    )
    n_q = _count(params.n_questions, params, rngs["question_count"])
    n_s = _count(params.n_saves, params, rngs["save_count"])
    return DaySchedule(
        question_rank=question_rank,
        question_w=question_w,
        save_w=save_w,
        question_s=_times(n_q, params.day_s, rngs["question_times"]),
        question_targets=rngs["question_targets"].choice(n, size=n_q, p=question_w),
        save_s=_times(n_s, params.day_s, rngs["save_times"]),
        save_targets=rngs["save_targets"].choice(n, size=n_s, p=save_w),
        save_kinds=rngs["save_kinds"].choice(3, size=n_s, p=np.asarray(params.save_mix)),
        save_uniforms=rngs["save_text"].random((n_s, EDIT_UNIFORMS)),
    )
