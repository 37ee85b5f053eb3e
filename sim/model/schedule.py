"""The day's exogenous draws: when questions and saves come, and what they target.

Everything random that does not depend on the simulation's state is drawn here,
up front, each from its own stream, so runs that differ only in what the agent
does (staleness run, CAS run) see exactly the same questions and saves.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sim import exactmath, rng
from sim.calibrate.trace import block_seed
from sim.corpus import EDIT_UNIFORMS
from sim.model import calibrated
from sim.params import Params
from sim.popularity import article_weights, save_weights

SAVE_KINDS = ("body", "title", "unpublish", "new")
"""What a save does; the write-up's process draws the first three, a calibrated one all four."""


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
    day_saves: int
    """Saves inside the day; any after them come after the day ends (humans_after_day_end)."""
    save_publish: np.ndarray | None = None
    """Publish id of each save (saves of one bulk publish share it); None: one each."""


def _count(mean: int | float, params: Params, rng: np.random.Generator) -> int:
    return int(mean) if params.arrivals == "uniform" else int(rng.poisson(mean))


PEAKS = ((0.2, 0.1), (0.7, 0.1))
"""'two_peaks': centre and spread of the morning and afternoon peaks, as shares of the day;
a fifth of the day's density is spread flat beneath them."""


def _profile_times(u: np.ndarray, day_s: float) -> np.ndarray:
    """Uniforms to times of day under the two-peak profile (inverse of its CDF)."""
    grid = np.linspace(0.0, 1.0, 4001)
    bumps = np.zeros_like(grid)
    for c, w in PEAKS:
        bumps = bumps + exactmath.exp(-0.5 * ((grid - c) / w) ** 2)
    density = 0.2 + 0.8 * bumps / len(PEAKS)
    cdf = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2)])
    return day_s * np.interp(u, cdf / cdf[-1], grid)


PEAKED = {
    "uniform": (),
    "two_peaks": ("questions", "saves"),
    "questions_peak": ("questions",),
    "saves_peak": ("saves",),
}
"""Per day_profile, which arrival processes follow the two-peak profile (the others are
uniform over the day)."""


def _times(count: int, params: Params, rng: np.random.Generator, process: str) -> np.ndarray:
    u = rng.uniform(0.0, 1.0, size=count)
    if process in PEAKED[params.day_profile]:
        return np.sort(_profile_times(u, params.day_s))
    return np.sort(u * params.day_s)


def _save_times(count: int, params: Params, rng: np.random.Generator) -> np.ndarray:
    if params.save_spread == "even_times":
        return params.day_s * (np.arange(count) + 0.5) / count
    return _times(count, params, rng, "saves")


def _late_saves(params: Params, rngs: dict[str, np.random.Generator], save_w: np.ndarray) -> dict:
    """Saves after the day, while the agent's late edits land (humans_after_day_end)."""
    late_s = _late_s(params)
    n = round(params.n_saves * late_s / params.day_s)
    return {
        "s": params.day_s + np.sort(rngs["late_save_times"].uniform(0.0, late_s, size=n)),
        "targets": rngs["late_save_targets"].choice(len(save_w), size=n, p=save_w),
        "kinds": rngs["late_save_kinds"].choice(3, size=n, p=np.asarray(params.save_mix)),
        "uniforms": rngs["late_save_text"].random((n, EDIT_UNIFORMS)),
    }


def _late_s(params: Params) -> float:
    return max(params.edit_delays_s) if params.agent_edits and params.humans_after_day_end else 0


def _calibrated_schedule(
    params: Params,
    rngs: dict[str, np.random.Generator],
    base: DaySchedule,
    independent_rank: np.ndarray,
) -> DaySchedule:
    saves = calibrated.draw_saves(
        params, rngs, base.question_rank, independent_rank, _late_s(params)
    )
    return replace(
        base,
        save_w=saves.weights,
        save_s=saves.s,
        save_targets=saves.targets,
        save_kinds=saves.kinds,
        save_uniforms=saves.uniforms,
        day_saves=int((saves.s < params.day_s).sum()),
        save_publish=saves.publish,
    )


def _trace_schedule(
    params: Params,
    rngs: dict[str, np.random.Generator],
    seed: int,
    drawn_rank: np.ndarray,
) -> DaySchedule:
    """The history's day for this seed, its saves as recorded (sim.calibrate.trace); with
    question_relation 'same' or 'clustered' the questions' ranking is the history's edit
    ranking (ties in the drawn order), as the write-up's questions follow its edits."""
    trace = params.save_trace
    assert trace is not None  # Params checks it
    weights = trace.weights()
    rank = drawn_rank
    if params.question_relation != "independent":
        order = np.lexsort((drawn_rank, -weights))
        rank = np.empty_like(drawn_rank)
        rank[order] = np.arange(len(order))
    writeup = replace(params, save_process="writeup", save_trace=None, n_saves=0)
    writeup = replace(writeup, question_relation="same")
    base = _writeup_schedule(writeup, rngs, rank, drawn_rank)
    d = trace.day_of(seed, rng.streams(block_seed(seed))["trace_days"])
    at = trace.day(d, params.day_s, _late_s(params))
    s = trace.epoch_s[at] - trace.start_of(d, params.day_s)
    kinds = trace.kind[at]
    targets = np.where(trace.target[at] < 0, 0, trace.target[at])
    return replace(
        base,
        save_w=weights,
        save_s=s,
        save_targets=targets,
        save_kinds=kinds,
        save_uniforms=rngs["trace_save_text"].random((len(at), EDIT_UNIFORMS)),
        day_saves=int((s < params.day_s).sum()),
        save_publish=trace.publish[at],
    )


def _clustered(params: Params, rngs: dict[str, np.random.Generator], s: DaySchedule) -> DaySchedule:
    publish = s.save_publish if s.save_publish is not None else np.arange(len(s.save_s))
    times, targets = calibrated.cluster_questions(
        params,
        s.question_s,
        s.question_targets,
        s.save_s,
        s.save_targets,
        publish,
        rngs["question_clusters"],
    )
    return replace(s, question_s=times, question_targets=targets)


def draw_schedule(
    params: Params, rngs: dict[str, np.random.Generator], seed: int = 1
) -> DaySchedule:
    """The write-up's draws; then, if asked, the calibrated process's saves (or the
    history's, replayed: seed picks the day) in place of its saves, and questions moved next
    to the publishes (each from its own appended stream)."""
    n = params.n_articles
    question_rank = rngs["question_ranking"].permutation(n)
    independent_rank = rngs["edit_ranking"].permutation(n)
    if params.save_process == "trace":
        s = _trace_schedule(params, rngs, seed, question_rank)
    elif params.save_process == "calibrated":
        writeup = replace(params, save_process="writeup", question_relation="same", n_saves=0)
        s = _writeup_schedule(writeup, rngs, question_rank, independent_rank)
        s = _calibrated_schedule(params, rngs, s, independent_rank)
    else:
        s = _writeup_schedule(params, rngs, question_rank, independent_rank)
    if params.question_relation == "clustered":
        s = _clustered(params, rngs, s)
    return s


def _writeup_schedule(
    params: Params,
    rngs: dict[str, np.random.Generator],
    question_rank: np.ndarray,
    independent_rank: np.ndarray,
) -> DaySchedule:
    n = params.n_articles
    question_w = article_weights(question_rank, params.zipf_s)
    save_w = save_weights(
        question_w,
        article_weights(independent_rank, params.zipf_s),
        params.edit_follows_questions,
        params.save_popularity == "even",
    )
    n_q = _count(params.n_questions, params, rngs["question_count"])
    n_s = _count(params.n_saves, params, rngs["save_count"])
    distinct = params.save_spread == "distinct_articles"
    late = _late_saves(params, rngs, save_w)
    return DaySchedule(
        question_rank=question_rank,
        question_w=question_w,
        save_w=save_w,
        question_s=_times(n_q, params, rngs["question_times"], "questions"),
        question_targets=rngs["question_targets"].choice(n, size=n_q, p=question_w),
        save_s=np.concatenate([_save_times(n_s, params, rngs["save_times"]), late["s"]]),
        save_targets=np.concatenate(
            [
                rngs["save_targets"].choice(n, size=n_s, p=save_w, replace=not distinct),
                late["targets"],
            ]
        ),
        save_kinds=np.concatenate(
            [rngs["save_kinds"].choice(3, size=n_s, p=np.asarray(params.save_mix)), late["kinds"]]
        ),
        save_uniforms=np.concatenate(
            [rngs["save_text"].random((n_s, EDIT_UNIFORMS)), late["uniforms"]]
        ),
        day_saves=n_s,
    )
