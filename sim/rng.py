"""One independent random stream per random process of the day.

Streams are spawned from the seed in a fixed order of names; a new process gets
a new name at the end, so adding or switching on a part of the model never
shifts another part's draws.
"""

from __future__ import annotations

import numpy as np

from sim.calibrate.generate import CAL_STREAMS

STREAMS = (
    "corpus",
    "question_ranking",
    "edit_ranking",
    "question_times",
    "question_targets",
    "save_times",
    "save_targets",
    "save_kinds",
    "save_text",
    "question_count",
    "save_count",
    "approval_delays",
    "approval_decisions",
    "save_redraws",
    "late_save_times",
    "late_save_targets",
    "late_save_kinds",
    "late_save_text",
    "calibrated_save_text",
    "question_clusters",
    *CAL_STREAMS,
    "answer_edits",
    "trace_days",
    "trace_save_text",
)


def streams(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {
        name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)
    }
