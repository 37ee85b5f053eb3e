"""How many seeds each arm of the real-shape panel runs: a fixed count, fixed before any
seed is run, in batches of SEEDS (``sim/study/seedrule.py``).

Every arm runs LOOKS batches on each log, and the whole calibrated shape (with the
write-up's process, its reference) HEADLINE_LOOKS. The count depends on no seed's value, so a
95 % t interval at the end covers at 95 % and a move called non-zero on a log is called so
5 % of the time when it is zero (``tests/test_seedrule_coverage.py`` simulates it). An
earlier rule stopped an arm once its interval cleared 0: on synthetic normal data it called
a zero move non-zero about 8–9 % of the time, and it saved 7 % of the panel's days. An arm
that others are compared with (a reference, and its own reference) runs every seed they
run, so each move pairs on all its arm's seeds. The write-up's arms read no shape: a log's
batch lists them again, and the pool runs each of their days once.
"""

from __future__ import annotations

import pandas as pd

from sim.calibrate.logs import PANEL
from sim.params import Params
from sim.study.experiments import PointRuns, Request
from sim.study.realshape import (
    ARMS,
    FIGURES,
    Arm,
    panel_request,
    panel_rows,
)

LOOKS = 3
"""Batches for every arm but the whole calibrated shape: 3 × SEEDS seeds an arm and log."""
HEADLINE_ARM = "calibrated"
"""The whole calibrated shape against the write-up's process: the section's answers."""
HEADLINE_LOOKS = 9
"""Batches for the headline arm (and the write-up's, its reference): 99 seeds. Its moves are
quoted as point values, so it runs to a precision."""

BY_NAME = {a.name: a for a in ARMS}


def looks_of(arm: str) -> int:
    """The batches an arm runs: fixed by its name, never by its values."""
    return HEADLINE_LOOKS if arm == HEADLINE_ARM else LOOKS


def open_arms(rows: pd.DataFrame, first: int) -> dict[str, list[str]]:
    """Per log, the arms with a move, holding the most seeds so far, short of their fixed
    count (``looks_of`` batches of ``first``). The write-up's own arm has no move: it runs as
    a reference."""
    out: dict[str, list[str]] = {}
    latest = rows.groupby(["log", "arm"], sort=False)["seed"].max()
    for log in dict.fromkeys(rows["log"]):
        seeds = latest[log]
        most = seeds.max()
        arms = [
            a.name
            for a in ARMS
            if a.reference and seeds.get(a.name) == most and most < first * looks_of(a.name)
        ]
        if arms:
            out[str(log)] = arms
    return out


def with_references(arms: list[str]) -> tuple[Arm, ...]:
    """The arms and every arm they are compared with, in ARMS' order."""
    need = set(arms)
    for name in arms:
        ref = BY_NAME[name].reference
        while ref:
            need.add(ref)
            ref = BY_NAME[ref].reference
    return tuple(a for a in ARMS if a.name in need)


def batch_requests(
    base: Params, advised: tuple[str, float], seeds: list[int], arms: dict[str, list[str]]
) -> list[Request]:
    """One request a log: its open arms and their references on ``seeds``."""
    return [
        panel_request(base, advised, seeds, with_references(names), (log,))
        for log, names in arms.items()
    ]


def batch_rows(
    base: Params, advised: tuple[str, float], runs: list[PointRuns], arms: dict[str, list[str]]
) -> pd.DataFrame:
    """batch_requests' runs as the panel's tidy rows."""
    return pd.concat(
        [
            panel_rows(base, advised, r, with_references(names), (log,))
            for (log, names), r in zip(arms.items(), runs, strict=True)
        ],
        ignore_index=True,
    )


def ordered(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of several batches as one run gives them: by log, arm, figure, then seed."""
    ranks = {
        "log": {name: i for i, name in enumerate(PANEL)},
        "arm": {a.name: i for i, a in enumerate(ARMS)},
        "figure": {f: i for i, f in enumerate(FIGURES)},
    }
    keyed = rows.assign(**{f"_{k}": rows[k].map(r) for k, r in ranks.items()})
    keys = [f"_{k}" for k in ranks]
    out = keyed.sort_values([*keys, "seed"], kind="stable").drop(columns=keys)
    return out.reset_index(drop=True)
