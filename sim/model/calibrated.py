"""The calibrated edit process in the simulated day, and questions clustered around publishes.

A fitted edit shape (``sim.calibrate``) describes a week of real editing; the simulated
day is 8 working hours. The day is placed on the weekday window of ``day_s`` seconds, on
the hour, that the shape's hour-of-week profile is busiest in (UTC, as the log's times),
and the generator's rate is set so that window holds ``n_saves`` saves on average (the
write-up's day holds exactly ``n_saves``; here the count varies as a real day's does).
With the profile switched off the rate is flat over the same window.

The generator's ranks are edit-popularity ranks; which article holds a rank is
``question_relation``: the questions' ranking ('same', 'clustered') or the independent
ranking the write-up's ``edit_follows_questions=0`` uses ('independent').

A 'new' save (an article created) adds an article no question of the day asks about and no
held citation cites: it is recorded with effect 'new' and not written to the store, so
nothing cited changes (the event log misses its one event).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sim.calibrate.generate import (
    generate,
    hour_of_week_intensity,
    rank_weights,
    saves_per_day_for,
)
from sim.corpus import EDIT_UNIFORMS
from sim.params import Params

WEEKDAYS = 5
"""Monday to Friday: the simulated day is a working day (the write-up's opening is a Monday)."""


@dataclass(frozen=True)
class DaySaves:
    s: np.ndarray
    targets: np.ndarray
    kinds: np.ndarray
    uniforms: np.ndarray
    publish: np.ndarray
    """Publish id of each save: saves of one bulk publish share it (and their instant)."""
    weights: np.ndarray
    """Each article's share of the saves in expectation (for 'redraw')."""


def day_window(params: Params) -> float:
    """Start of the simulated day, in seconds from Monday 00:00 UTC: the weekday window of
    day_s seconds, on the hour, holding most of the shape's profile (whether or not the
    profile is switched on, so every arm of a comparison runs the same hours)."""
    hours = max(1, math.ceil(params.day_s / 3600.0))
    w = hour_of_week_intensity(params.shape(), frozenset({"profile"}))
    starts = [24 * d + h for d in range(WEEKDAYS) for h in range(24 - hours + 1)]
    best = max(starts, key=lambda s: (float(w[s : s + hours].sum()), -s))
    return 3600.0 * best


def _ranking(params: Params, question_rank: np.ndarray, independent_rank: np.ndarray) -> np.ndarray:
    """article_of_rank[r]: the article holding edit-popularity rank r."""
    rank = independent_rank if params.question_relation == "independent" else question_rank
    return np.argsort(rank, kind="stable")


@functools.lru_cache(maxsize=16)
def _rate(params: Params) -> tuple[float, float]:
    """The day's window start and the generator's saves a day: pure functions of the
    parameters, kept for a process's next day (three quarters of a schedule's draw)."""
    start_s = day_window(params)
    features = frozenset(params.shape_features)
    return start_s, saves_per_day_for(
        params.shape(), params.n_saves, params.day_s, start_s, features
    )


def draw_saves(
    params: Params,
    rngs: Mapping[str, np.random.Generator],
    question_rank: np.ndarray,
    independent_rank: np.ndarray,
    late_s: float,
) -> DaySaves:
    """The day's saves (and any up to late_s after it) from the calibrated shape."""
    shape = params.shape()
    features = frozenset(params.shape_features)
    start_s, per_day = _rate(params)
    saves = generate(
        shape,
        params.n_articles,
        per_day,
        params.day_s + late_s,
        rngs,
        features=features,
        zipf_s=params.zipf_s,
        start_s=start_s,
    )
    article_of_rank = _ranking(params, question_rank, independent_rank)
    targets = article_of_rank[np.asarray(saves.rank, dtype=int)]
    weights = np.empty(params.n_articles)
    weights[article_of_rank] = rank_weights(shape, params.n_articles, features, params.zipf_s)
    n = len(targets)
    return DaySaves(
        s=np.asarray(saves.time_s, dtype=float),
        targets=targets,
        kinds=np.asarray(saves.kind, dtype=int),
        uniforms=rngs["calibrated_save_text"].random((n, EDIT_UNIFORMS)),
        publish=np.asarray(saves.publish),
        weights=weights / weights.sum(),
    )


def cluster_questions(
    params: Params,
    question_s: np.ndarray,
    question_targets: np.ndarray,
    save_s: np.ndarray,
    save_targets: np.ndarray,
    publish: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Move a share of the questions next to the day's publishes: each chosen question picks
    one of the day's publishes (uniformly: a release prompts questions whatever its size),
    one article it touched, and arrives an exponential delay after it. Four draws per
    question whatever happens, so the stream stays aligned."""
    n = len(question_s)
    u = rng.random((n, 3))
    delay = rng.exponential(params.cluster_delay_s, size=n)
    inside = save_s < params.day_s
    ids, first = np.unique(publish[inside], return_index=True)
    if not len(ids):
        return question_s, question_targets
    times, targets = question_s.copy(), question_targets.copy()
    day_s, day_t, day_p = save_s[inside], save_targets[inside], publish[inside]
    for i in np.flatnonzero(u[:, 0] < params.cluster_share):
        k = int(u[i, 1] * len(ids))
        members = np.flatnonzero(day_p == ids[k])
        t = float(day_s[first[k]]) + float(delay[i])
        if t < params.day_s:
            times[i] = t
            targets[i] = day_t[members[int(u[i, 2] * len(members))]]
    order = np.argsort(times, kind="stable")
    return times[order], targets[order]
