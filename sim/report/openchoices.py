"""REPORT.md's section on the open choices, and the corrected CAS and control analyses:
every number in the prose comes from the tables of the run; the prose is
templates/openchoices_*.md.j2."""

from __future__ import annotations

import math

import pandas as pd

from sim.pages import md
from sim.report import picks
from sim.report.comparison import gone_counted_as_rejection, holm_family
from sim.report.render import pct, render
from sim.report.sensitivity import (
    COUNTING,
    SHIFT_BOUND,
    simulated_moves,
    unsettled,
)
from sim.report.verdicts import p_value
from sim.stats import holm_rejected
from sim.study.readings import CHOICES, LADDER, LOOKS, SEEDS
from sim.study.reported import REPORTED
from sim.study.seedrule import SeedRule

_BY_KEY = {r.key: r for r in REPORTED}
MARK = {"reproduced": "", "not reproduced": " ✗", "undecided": " ?"}

HEADLINE = (
    "zipf_stale_share",
    "zipf_answers_with_stale_share",
    "control_stale_share",
    "cas_reject_share_3600s",
    "cas_human_reject_share_3600s",
    "cas_reject_share",
    "cas_replay_share",
)


def _label(choice: str, label: str) -> str:
    return "default" if choice == "default" else f"{choice} = {label}"


def multiple_testing_text(comparison: pd.DataFrame) -> str:
    """Holm over the independent tests only: no model input, no figure that is arithmetic
    of other tested figures, none the write-up's own figures contradict."""
    family = holm_family()
    c = comparison.set_index("key")
    tested = c.loc[[k for k in family if k in c.index]]
    return render(
        "openchoices_multiple_testing.md.j2",
        tested=list(tested["figure"]),
        left_out=[
            (_BY_KEY[key].figure, _BY_KEY[key].untested)
            for key in c.index
            if key in _BY_KEY and _BY_KEY[key].untested
        ],
        infeasible=list(c.loc[c["verdict"] == "infeasible as reported", "figure"]),
        chance=1 - math.pow(0.95, len(tested)),  # a scalar: the C library, not a numpy kernel
        rejected=holm_rejected({r.figure: p_value(r.z) for r in tested.itertuples()}),
    )


def readings_rows(table: pd.DataFrame, figures: tuple[str, ...]) -> pd.DataFrame:
    """Per reading that can move one of `figures`, each figure's value at full strength
    (shift from the default) and verdict, as text; '—' where the reading cannot move it."""
    rows = []
    for (choice, _), g in table.groupby(["choice", "reading"], sort=False):
        by = g.set_index("figure")
        if choice == LADDER.field or not by.loc[list(figures), "can_move"].any():
            continue
        row = {"reading": _label(choice, g["label"].iloc[0])}
        for f in figures:
            r = by.loc[f]
            if not r["can_move"]:
                row[f] = "—"
                continue
            shift = "" if choice == "default" else f" ({100 * r['shift_from_default']:+.1f})"
            row[f] = f"{pct(r['mean'])}{shift}{MARK[r['verdict']]}"
        rows.append(row)
    return pd.DataFrame(rows)


def largest_moves(table: pd.DataFrame) -> pd.DataFrame:
    """Per headline figure, the reading that moves it most among those Holm's step-down over
    every reading × headline figure keeps (``picks``; 'none' where it keeps none), and the
    readings that change the verdict."""
    family = table[
        table["figure"].isin(HEADLINE)
        & (table["choice"] != "default")
        & table["can_move"]
        & table["shift_from_default"].notna()
    ]
    family = picks.with_holm(family, "shift_p")
    rows = []
    for f in HEADLINE:
        g = table[table["figure"] == f]
        default = g[g["choice"] == "default"].iloc[0]
        others = g[(g["choice"] != "default") & g["can_move"]]
        named = picks.ranked(family[family["figure"] == f], "shift_from_default")
        top = named.iloc[0] if len(named) else None
        flips = others[others["verdict"] != default["verdict"]]
        rows.append(
            {
                "figure": f,
                "default reading": f"{pct(default['mean'])}, {default['verdict']}",
                "moved most by": "none beyond noise"
                if top is None
                else _label(top["choice"], top["label"]),
                "by (points)": "–" if top is None else f"{100 * top['shift_from_default']:+.1f}",
                f"Holm p ({len(family)} moves)": "–"
                if top is None
                else picks.p_text(top["p_holm"]),
                "readings that change the verdict": ", ".join(
                    f"{_label(r.choice, r.label)} ({r.verdict})" for r in flips.itertuples()
                )
                or "none",
            }
        )
    return pd.DataFrame(rows)


def _seeds(table: pd.DataFrame) -> dict[str, object]:
    """The sequential seed rule the readings ran under, where each reading stopped, and
    how far the headline's and a reading's shared seeds move the combined intervals."""
    per = simulated_moves(table).groupby(["choice", "label"], sort=False)["shift_seeds"].max()
    fewest = int(per.min())
    counts = pd.DataFrame(
        {
            "seeds": n,
            "readings": len(g),
            "which": "; ".join(f"{c} = {label}" for c, label in g.index)
            if n > fewest
            else f"the {len(g)} not named below",
        }
        for n, g in per.groupby(per, sort=True)
    )
    staleness = int(table.loc[table["figure"] == "zipf_stale_share", "seeds"].iloc[0])
    moving = simulated_moves(table)
    change = moving["ci_half_shared"] / ((moving["ci_hi"] - moving["ci_lo"]) / 2) - 1
    flips = moving[moving["verdict"] != moving["verdict_shared"]]
    return {
        "rule": SeedRule(SEEDS, LOOKS),  # a quick run's pages say how far seeds were scaled
        "shift_bound": SHIFT_BOUND,
        "staleness_seeds": staleness,
        "counting": COUNTING,
        "seeds_table": md(counts),
        "still_open": sorted({f"{r.choice} = {r.label}" for r in unsettled(table).itertuples()}),
        "undecided": sorted(
            {
                f"{r.choice} = {r.label}"
                for r in moving[moving["verdict"] == "undecided"].itertuples()
            }
        ),
        "shared": {
            "lo": change.min(),
            "hi": change.max(),
            "median": change.median(),
            "cells": len(moving),
            "flips": [
                f"{_label(r.choice, r.label)} on {r.figure}: {r.verdict} → {r.verdict_shared}"
                for r in flips.itertuples()
            ],
        },
    }


def open_choices_text(table: pd.DataFrame) -> str:
    choices = md(
        pd.DataFrame(
            [
                {
                    "choice": f"`{c.field}`",
                    "what it decides": c.question,
                    "the write-up's text": c.text,
                    "other readings run": ", ".join(c.label(r) for r in c.readings)
                    if c is not LADDER
                    else f"{len(c.readings)} other ladders (Appendix B, The delay ladder)",
                    "runs it can move": ", ".join(c.runs),
                }
                for c in CHOICES
            ]
            + [
                {
                    "choice": f"`{COUNTING}`",
                    "what it decides": "whether a first-try 'gone' counts as a rejection",
                    "the write-up's text": "19 gone and 172 rejections are counted apart",
                    "other readings run": "True (counted, not simulated; judged against "
                    f"the write-up's own {gone_counted_as_rejection().as_written})",
                    "runs it can move": "cas (the all-delays rejection share only)",
                }
            ]
        )
    )
    moving = table[(table["choice"] != "default") & table["can_move"]]
    half = ((moving["shift_ci_hi"] - moving["shift_ci_lo"]) / 2).max()
    control = readings_rows(table, ("control_stale_share", "control_answers_with_stale_share"))
    zipf = readings_rows(table, ("zipf_stale_share", "zipf_answers_with_stale_share"))
    cas = readings_rows(
        table,
        (
            "cas_reject_share_5s",
            "cas_reject_share_3600s",
            "cas_human_reject_share_3600s",
            "cas_reject_share",
            "cas_replay_share",
            "cas_gone_share",
        ),
    )
    return render(
        "openchoices_text.md.j2",
        half_width=half,
        choices_table=choices,
        largest_table=md(largest_moves(table)),
        zipf_table=md(zipf),
        control_table=md(control),
        cas_table=md(cas),
        **_seeds(table),
    )


def control_outlier_text(comparison: pd.DataFrame, table: pd.DataFrame) -> str:
    c = comparison.set_index("key")
    stale, answers = c.loc["control_stale_share"], c.loc["control_answers_with_stale_share"]
    g = table[(table["figure"] == "control_stale_share") & table["can_move"]]
    return render(
        "openchoices_control_outlier.md.j2",
        answers=answers.to_dict(),
        stale=stale.to_dict(),
        reproducing=int((g["verdict"] == "reproduced").sum()),
        readings=len(g),
    )


def cas_analysis_text(comparison: pd.DataFrame, table: pd.DataFrame | None) -> str:
    """What the write-up's CAS figures let one say: one delay's share and one all-delays
    share on a ladder that did not survive; at 1 h both the all-cause and the human-caused
    verdict, since the write-up explains each rejection by a human's newer text."""
    c = comparison.set_index("key")
    keys = ("cas_reject_share_3600s", "cas_human_reject_share_3600s", "cas_reject_share")
    at_1h, human, overall = (c.loc[k] for k in keys)
    spread = None
    if table is not None:
        ladders = table[table["choice"].isin(("default", LADDER.field))].pivot_table(
            index="label", columns="figure", values="mean", sort=False
        )
        ratios = ladders["cas_reject_share"] / ladders["cas_reject_share_3600s"]
        spread = {"ladders": len(ratios), "lo": ratios.min(), "hi": ratios.max()}
    return render(
        "openchoices_cas_analysis.md.j2",
        at_1h=at_1h.to_dict(),
        human=human.to_dict(),
        ratio=overall["mean"] / at_1h["mean"],
        reported_ratio=_BY_KEY["cas_reject_share"].value / _BY_KEY["cas_reject_share_3600s"].value,
        spread=spread,
        only_with_own=at_1h["verdict"] == "reproduced" and human["verdict"] != "reproduced",
    )
