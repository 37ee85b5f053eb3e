"""Which open choices matter, the runs: every reading the write-up's text allows as a day
(each choice a ``Params`` field, its default from the text), the runs a reading can change
rerun on the same seeds as the default, and each reading's per-seed rows. The seed rule
gives it SEEDS first, then batches of SEEDS while it is open, LOOKS at most
(``sim/study/seedrule.py``); ``sim.report.sensitivity`` judges each reading from the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from sim.params import Params
from sim.study.experiments import PointRuns, Request, frames_of
from sim.study.ladder import ladder_family, ladder_label
from sim.study.metrics import PER_SEED_RECORDS, per_seed
from sim.study.reported import RATIOS, REPORTED

FIGURES = tuple(
    r
    for r in REPORTED
    if r.rule == "share" and not r.key.startswith("top10") and r.key != "title_caught_share"
)
"""The figures a reading can move: the shares the model produces (the top-10 shares are
analytic up to sampling, the 'all'/'zero' checks do not depend on a reading, and the
title-only share needs the hourly checks these runs leave out)."""

SEEDS = 60
"""The sequential rule's first batch of seeds per reading, and each later one (five at
most), for its paired shift from the default: the hourly checks are left out
of these runs (they take two thirds of a day's time and no reading changes what they find
but through the stale shares), so the title-only share is judged on the headline runs
only."""
ALL_RUNS = ("staleness", "control", "cas")
RUN_OF_PREFIX = {"zipf_": "staleness", "control_": "control", "cas_": "cas"}


def run_of(figure: str) -> str:
    """The run that produces a figure."""
    return next(run for prefix, run in RUN_OF_PREFIX.items() if figure.startswith(prefix))


@dataclass(frozen=True)
class Choice:
    field: str
    question: str
    readings: tuple[object, ...]
    """The readings other than the default."""
    runs: tuple[str, ...]
    """The runs a reading can change; the others keep the default's values."""
    text: str
    """What the write-up's text says, and so why the default is the default."""

    def label(self, reading: object) -> str:
        if self.field == "edit_delays_s" and isinstance(reading, tuple):
            return ladder_label(reading)
        return str(reading)


LADDER = Choice(
    "edit_delays_s",
    "the four delays of the CAS run",
    ladder_family()[1:],
    ("cas",),
    "four delays; one of seconds, one of an hour, and (from 172 of 600) one beyond the hour",
)
CHOICES = (
    LADDER,
    Choice(
        "unpublished_save",
        "a save drawn for an unpublished article",
        ("redraw", "republish"),
        ALL_RUNS,
        "silent; the model keeps the article unpublished and edits its draft",
    ),
    Choice(
        "agent_edit_targets",
        "whether the agent's delayed edits may meet each other",
        ("distinct_articles",),
        ("cas",),
        "each answer's first citation is edited, so two answers citing one article both edit it",
    ),
    Choice(
        "replays",
        "which successful edits are sent again",
        ("every_success",),
        ("cas",),
        "'after each success'; its 409 = 600 − 19 − 172 counts first-try successes only",
    ),
    Choice(
        "day_profile",
        "when questions come against when saves come",
        ("questions_peak", "saves_peak"),
        ALL_RUNS,
        "'spread over 8 hours': independent uniform times; here one process peaks twice "
        "a day and the other stays uniform",
    ),
    Choice(
        "day_profile",
        "one shared two-peak clock for questions and saves",
        ("two_peaks",),
        ("cas",),
        "'spread over 8 hours'; one warp of both clocks keeps every question's order against "
        "every save, so no staleness figure can move; it moves only the CAS run's fixed delays",
    ),
    Choice(
        "edited_citation",
        "which citation the agent edits",
        ("second",),
        ("cas",),
        "'the article it cited first'",
    ),
    Choice(
        "humans_after_day_end",
        "whether humans keep saving while late edits land",
        (True,),
        ("cas",),
        "'300 saves over 8 hours': they stop at the end of the day",
    ),
    Choice(
        "save_spread",
        "how 'the same 300 saves spread evenly' are spread (both days)",
        ("distinct_articles", "even_times"),
        ALL_RUNS,
        "'spread evenly over the 400 articles': independent draws, uniform over articles",
    ),
)


ReadingKey = tuple[str, str]
"""A reading by its field and its value as text (unique across CHOICES)."""


def sensitivity_points(
    base: Params, keys: list[ReadingKey] | None = None
) -> list[tuple[Choice, object, Params]]:
    """Every reading's day (those named by ``keys`` only, where given), in CHOICES' order."""
    return [
        (c, r, base.with_(run_checker=False, **{c.field: r}))
        for c in CHOICES
        for r in c.readings
        if keys is None or (c.field, str(r)) in keys
    ]


def _groups(points: list[tuple[Choice, object, Params]]) -> list[tuple[str, ...]]:
    """The sets of runs the points' readings change, in CHOICES' order."""
    return list(dict.fromkeys(c.runs for c, _, _ in points))


def sensitivity_requests(
    base: Params, seeds: list[int], keys: list[ReadingKey] | None = None
) -> list[Request]:
    """Per set of runs the readings change, every such reading (or those named) on `seeds`."""
    points = sensitivity_points(base, keys)
    return [
        Request(
            tuple(p for c, _, p in points if c.runs == runs), tuple(seeds), runs, PER_SEED_RECORDS
        )
        for runs in _groups(points)
    ]


def sensitivity_rows(
    base: Params, runs: list[PointRuns], keys: list[ReadingKey] | None = None
) -> pd.DataFrame:
    """Per reading and seed, the figures its runs produce and the counts their seeds 1–5
    values are pooled from (the readings' own per-seed rows; the default reading is the
    study's own runs of those seeds), in ``ordered``'s order whatever readings ``keys``
    names; `runs` are sensitivity_requests' runs (same `keys`)."""
    figure_keys = list(dict.fromkeys(k for f in FIGURES for k in (f.key, *RATIOS.get(f.key, ()))))
    rows = []
    points = sensitivity_points(base, keys)
    for group, group_runs in zip(_groups(points), runs, strict=True):
        mine = [(c, r) for c, r, _ in points if c.runs == group]
        for (c, r), point_runs in zip(mine, group_runs, strict=True):
            own = per_seed(frames_of(point_runs))
            own = own[["seed", *(k for k in figure_keys if k in own)]]
            rows.append(own.assign(choice=c.field, reading=str(r), label=c.label(r)))
    out = pd.concat(rows, ignore_index=True)
    first = ("choice", "reading", "label")
    # a subset's runs come group by group in its own order; the rows, as the whole set's
    return ordered(base, out[[*first, *(c for c in out.columns if c not in first)]])


def ordered(base: Params, rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of several batches as one run of them all gives them: readings in
    sensitivity_rows' order (by the runs they change, then CHOICES'), each reading's seeds
    in order."""
    points = sensitivity_points(base)
    grouped = [(c, r) for g in _groups(points) for c, r, _ in points if c.runs == g]
    rank = {(c.field, str(r)): i for i, (c, r) in enumerate(grouped)}
    order = [rank[k] for k in zip(rows["choice"], rows["reading"], strict=True)]
    sorted_rows = rows.assign(_rank=order).sort_values(["_rank", "seed"], kind="stable")
    return sorted_rows.drop(columns="_rank").reset_index(drop=True)


LOOKS = 5
"""Batches of SEEDS at most: 300 seeds, the CAS headline's own."""
