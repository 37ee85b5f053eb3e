"""How many seeds each arm of the real-shape panel runs: the sequential seed rule
(``sim/seedrule.py``) on each log's arms.

A unit is an arm on one log. After each batch of SEEDS seeds an arm stays open while the
seed-paired move of a headline figure from its reference arm is undecided in direction
(its 95 % t interval holds zero) and wider than that figure's bound, so a move is run
until its sign is known or it is known to be small; at most LOOKS batches. An arm that
others are compared with (a reference, and its own reference) runs every seed they run,
so each move pairs on all its arm's seeds. The write-up's arms read no shape: a log's batch lists
them again, and the pool runs each of their days once.
"""

from __future__ import annotations

import pandas as pd

from sim.calibrate.logs import PANEL
from sim.experiments import PointRuns, Request
from sim.params import Params
from sim.report.markdown import md
from sim.report.realshape import (
    ARMS,
    FIGURES,
    SEEDS,
    SHARES,
    Arm,
    panel_request,
    panel_rows,
    realshape_table,
)
from sim.seedrule import SeedRule

LOOKS = 3
"""Batches at most for every arm but the whole calibrated shape: 3 × SEEDS seeds an arm and
log. A budget, not a precision: with every arm at the cap the panel takes three times its
first batch's days."""
HEADLINE_ARM = "calibrated"
"""The whole calibrated shape against the write-up's process: the section's answers."""
HEADLINE_LOOKS = 9
"""Batches at most for the headline arm (and the write-up's, its reference): 99 seeds. Its
moves are quoted as point values, so it runs to a precision, not to a direction: a move
decided in sign on few seeds can still be far from its value."""
BOUNDS = {
    "stale_share": 0.03,
    "title_caught_share": 0.03,
    "poll_calls": 5.0,
    "cas_reject_3600s": 0.03,
    "cas_reject_14400s": 0.03,
}
"""The headline moves the rule watches, and the 95 % half-width under which an undecided
move counts as small: 3 points on a share, 5 calls a day on the hourly poll."""

BY_NAME = {a.name: a for a in ARMS}


def watched_moves(table: pd.DataFrame) -> pd.DataFrame:
    """The panel table's rows of a watched figure's move, with whether its 95 % interval holds
    0 (``straddles``) and is wider than the figure's bound (``wide``)."""
    g = table[table["figure"].isin(BOUNDS) & table["diff_mean"].notna()]
    return g.assign(
        straddles=(g["diff_ci_lo"] <= 0) & (g["diff_ci_hi"] >= 0),
        wide=(g["diff_ci_hi"] - g["diff_ci_lo"]) / 2 > g["figure"].map(BOUNDS),
    )


def open_arms(rows: pd.DataFrame, first: int) -> dict[str, list[str]]:
    """Per log, the arms with the most seeds so far that stay open: the whole calibrated
    shape while a watched move is wider than its bound (its point values are the section's
    answers), up to HEADLINE_LOOKS batches of ``first``; any other arm while a watched move
    is undecided and wider than its bound, up to LOOKS batches. The write-up's own arm has
    no move."""
    out: dict[str, list[str]] = {}
    latest = rows.groupby(["log", "arm"], sort=False)["seed"].max()
    for log, g in watched_moves(realshape_table(rows)).groupby("log", sort=False):
        straddles, wide = g["straddles"], g["wide"]
        headline = g["arm"] == HEADLINE_ARM
        most = latest[log].max()
        keep = (headline & wide) | (~headline & straddles & wide & (most < first * LOOKS))
        arms = set(g.loc[keep, "arm"]) & set(latest[log][latest[log] == most].index)
        if arms:
            out[str(log)] = [a.name for a in ARMS if a.name in arms]
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


def batch_requests(base: Params, seeds: list[int], arms: dict[str, list[str]]) -> list[Request]:
    """One request a log: its open arms and their references on ``seeds``."""
    return [
        panel_request(base, seeds, with_references(names), (log,)) for log, names in arms.items()
    ]


def batch_rows(base: Params, runs: list[PointRuns], arms: dict[str, list[str]]) -> pd.DataFrame:
    """batch_requests' runs as the panel's tidy rows."""
    return pd.concat(
        [
            panel_rows(base, r, with_references(names), (log,))
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


def still_open(table: pd.DataFrame) -> pd.DataFrame:
    """Per watched figure and log: how many arms' moves are still undecided and wider than
    the figure's bound where the arm stopped, of the arms with a move."""
    g = watched_moves(table)
    counts = g.assign(open=g["straddles"] & g["wide"]).groupby(["figure", "log"], sort=False)
    counts = counts["open"]
    cells = (counts.sum().astype(int).astype(str) + " of " + counts.size().astype(str)).unstack()
    cells = cells.reindex(list(BOUNDS))[list(dict.fromkeys(g["log"]))]
    return cells.rename(index=FIGURES).rename_axis(index="figure", columns=None).reset_index()


def seeds_text(table: pd.DataFrame) -> str:
    """The rule in words and the seeds each arm ran on each log (from the panel's table),
    for the report."""
    per = table.groupby(["arm", "log"], sort=False)["seeds"].max().unstack("log")
    per = per.reindex([a.name for a in ARMS if a.name in per.index])
    rule = SeedRule(SEEDS, LOOKS)  # a quick run's pages say how far its seeds were scaled down
    watched = "; ".join(
        f"{FIGURES[f]} (±{100 * b:g} points)" if f in SHARES else f"{FIGURES[f]} (±{b:g})"
        for f, b in BOUNDS.items()
    )
    refs = "; ".join(
        f"*{a.label}* against *{BY_NAME[a.reference].label}*" for a in ARMS if a.reference
    )
    head = SeedRule(SEEDS, HEADLINE_LOOKS)
    return (
        "**How many seeds.** A sequential rule on each arm and log. The whole calibrated "
        "shape, whose moves from the write-up's process are this section's answers, runs to "
        "a precision: "
        + head.describe(
            "any watched move from the write-up's process has a 95 % interval wider than the "
            "figure's bound"
        )
        + ". Every other arm runs until its direction is known or its move is small: "
        + rule.describe(
            "on any watched figure, its seed-paired move from its reference arm is undecided "
            "in direction, its 95 % interval holding 0, and wider than the figure's bound"
        )
        + f"; that cap is a budget (with every arm at it the panel takes {LOOKS} times its "
        f"first batch's days). An arm that others are compared with runs every seed they run. "
        f"Watched figures and bounds (95 % half-widths): {watched}. References: {refs}. "
        f"{rule.caveat()} The same test (an interval excluding 0) says below whether a move "
        f"holds on a log, so a move that holds was looked at up to {LOOKS} times (the whole "
        f"shape's up to {HEADLINE_LOOKS}). Seeds each arm ran:\n\n"
        f"{md(per.astype(int).reset_index())}\n\nMoves still undecided and wider than the "
        f"bound where their arm stopped, of the arms with a move:\n\n{md(still_open(table))}"
    )
