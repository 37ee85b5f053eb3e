"""REPORT.md's section on the open choices, and the corrected CAS and control analyses:
every number in the prose comes from the tables of the run."""

from __future__ import annotations

import math

import pandas as pd

from sim.pages import md, pct
from sim.report import picks
from sim.report.comparison import gone_counted_as_rejection, holm_family
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
from sim.study.seedrule import REPEATED_ALPHA, SeedRule

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
    k = len(tested)
    chance = 1 - math.pow(0.95, k)  # a scalar: the C library, not a numpy kernel
    rejected = holm_rejected({r.figure: p_value(r.z) for r in tested.itertuples()})
    named = ", ".join(rejected) if rejected else "none"
    left_out = "; ".join(
        f"{_BY_KEY[key].figure} ({_BY_KEY[key].untested})"
        for key in c.index
        if key in _BY_KEY and _BY_KEY[key].untested
    )
    infeasible = ", ".join(c.loc[c["verdict"] == "infeasible as reported", "figure"])
    return (
        f"{k} figures are tests of the model: "
        f"{', '.join(tested['figure'])}. They are not independent (the all-delays share "
        f"pools the per-delay ones); Holm's step-down correction "
        f"holds whatever their dependence. Left out of the family: {left_out}; and, as "
        f"infeasible whatever the model, {infeasible}. Were all {k} reproducible and "
        f"independent, the chance that at least one is still called *not reproduced* at 95 % "
        f"would be 1 − 0.95^{k} = {pct(chance)}. Holm's correction on the two-sided p of each z "
        f"keeps as not reproducible, on the default ladder: {named}."
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


def seeds_text(table: pd.DataFrame) -> str:
    """The sequential seed rule the readings ran under, and where each reading stopped."""
    per = simulated_moves(table).groupby(["choice", "label"], sort=False)["shift_seeds"].max()
    rule = SeedRule(SEEDS, LOOKS)  # a quick run's pages say how far its seeds were scaled down
    open_when = (
        "on any figure it can move, a verdict undecided or a paired shift whose 95 % "
        f"interval is wider than ±{100 * SHIFT_BOUND:g} points"
    )
    fewest = int(per.min())
    counts = md(
        pd.DataFrame(
            {
                "seeds": n,
                "readings": len(g),
                "which": "; ".join(f"{c} = {label}" for c, label in g.index)
                if n > fewest
                else f"the {len(g)} not named below",
            }
            for n, g in per.groupby(per, sort=True)
        )
    )
    left = sorted({f"{r.choice} = {r.label}" for r in unsettled(table).itertuples()})
    staleness = int(table.loc[table["figure"] == "zipf_stale_share", "seeds"].iloc[0])
    short_looks = math.ceil(staleness / SEEDS)
    return f"""**How many seeds.** A sequential rule on each reading and ladder:
{rule.describe(open_when)}. A reading that reruns the staleness day has every figure paired
with the headline's own seeds, and the headline's staleness runs hold {staleness}, so it
stops there (its last batch cut short). The counting reading (`{COUNTING}`) simulates
nothing: it is read off the default's own seeds. {rule.caveat()} For the readings capped
at {staleness} ({short_looks} looks) the bound is about {100 * REPEATED_ALPHA[short_looks]:.0f} %.

{counts}

Still open where they stopped (undecided, or wider than the bound, at their cap):
{", ".join(left) if left else "none"}."""


def shared_seeds_text(moving: pd.DataFrame) -> str:
    """How far the combination's independence assumption moves the intervals and verdicts
    (the headline mean and a reading's shift share the reading's seeds)."""
    change = moving["ci_half_shared"] / ((moving["ci_hi"] - moving["ci_lo"]) / 2) - 1
    flips = moving[moving["verdict"] != moving["verdict_shared"]]
    named = "; ".join(
        f"{_label(r.choice, r.label)} on {r.figure}: {r.verdict} → {r.verdict_shared}"
        for r in flips.itertuples()
    )
    return (
        "The combination treats the two as independent, though both use the reading's seeds; "
        f"with their covariance counted, the combined half-width changes by "
        f"{100 * change.min():+.0f} % to {100 * change.max():+.0f} % (median "
        f"{100 * change.median():+.0f} %) across the {len(moving)} reading × figure cells, and "
        + (f"{len(flips)} verdicts change ({named})." if len(flips) else "no verdict changes.")
        + " (`ci_half_shared`, `verdict_shared` in `sensitivity.csv`.)"
    )


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
    return f"""Every choice the write-up leaves open is a parameter whose default follows its
text. Each other reading reruns only the runs it can change, beside the default on the same
seeds (`sensitivity.csv`). A reading is judged at the headline's strength: the headline
mean (all its seeds) plus the reading's paired shift from the default (same seeds; shift
95 % CI half-widths up to ±{100 * half:.1f} points), the two intervals combined. Where that
interval reaches across the verdict's threshold (|z| = 1.96) the reading is *undecided*
(?): more seeds could turn it either way. A reading that cannot move a figure (its runs do
not produce it) is not counted for it (—). {shared_seeds_text(simulated_moves(table))}

{seeds_text(table)}

{choices}

Which readings move the headline figures most (the largest of the moves Holm's step-down over
every reading × headline figure keeps at 5 %), and which change a verdict:

{md(largest_moves(table))}

![shift of each headline figure under each reading](sensitivity.png)

The Zipf day under every reading that can move it (value at full strength, shift from the
default in points; ✗ not reproduced, ? undecided):

{md(zipf)}

The even control:

{md(control)}

CAS on the default ladder:

{md(cas)}"""


def control_outlier_text(comparison: pd.DataFrame, table: pd.DataFrame) -> str:
    c = comparison.set_index("key")
    stale, answers = c.loc["control_stale_share"], c.loc["control_answers_with_stale_share"]
    g = table[(table["figure"] == "control_stale_share") & table["can_move"]]
    never = int((g["verdict"] == "reproduced").sum())
    return (
        f"Of the control's two figures, 280 of 600 answers is, on its own, {answers['alone']} "
        f"(ours {pct(answers['mean'])}, z = {answers['z']:+.2f}); the outlier is 167 of 1,200 "
        f"citations (ours {pct(stale['mean'])}, z = {stale['z']:+.2f}), which {never} of "
        f"{len(g)} readings reproduce. The pair is infeasible together, and it is 167 that "
        "no reading of the control explains."
    )


def cas_analysis_text(comparison: pd.DataFrame, table: pd.DataFrame | None) -> str:
    """What the write-up's CAS figures let one say: one delay's share and one all-delays
    share on a ladder that did not survive; at 1 h both the all-cause and the human-caused
    verdict, since the write-up explains each rejection by a human's newer text."""
    c = comparison.set_index("key")
    keys = ("cas_reject_share_3600s", "cas_human_reject_share_3600s", "cas_reject_share")
    at_1h, human, overall = (c.loc[k] for k in keys)
    ratio = overall["mean"] / at_1h["mean"]
    reported_ratio = _BY_KEY["cas_reject_share"].value / _BY_KEY["cas_reject_share_3600s"].value
    only = (
        ", so 'about 4 in 10 at 1 h' is reproduced only with those collisions counted in"
        if at_1h["verdict"] == "reproduced" and human["verdict"] != "reproduced"
        else ""
    )
    spread = ""
    if table is not None:
        ladders = table[table["choice"].isin(("default", LADDER.field))].pivot_table(
            index="label", columns="figure", values="mean", sort=False
        )
        ratios = ladders["cas_reject_share"] / ladders["cas_reject_share_3600s"]
        spread = (
            f"; across the {len(ratios)} delay ladders of Appendix B it runs from "
            f"{ratios.min():.3f} to {ratios.max():.3f}"
        )
    return (
        f"The write-up reports one delay's share (about 4 in 10 at 1 h) and one share over "
        f"all four delays (28.7 %, derived), on a ladder that did not survive. Its ratio, "
        f"{reported_ratio:.3f}, against ours on the default ladder, {ratio:.3f}, is one ratio "
        f"on an assumed ladder, not a shape{spread}. At 1 h, the one delay it names, ours is "
        f"{pct(at_1h['mean'])} (z = {at_1h['z']:+.2f}: {at_1h['verdict']}) counting every "
        f"rejection, as the write-up counts them. The write-up's reason for a rejection is a "
        f"human's newer text; counting only edits whose article a human saved since the read, "
        f"ours is {pct(human['mean'])} (z = {human['z']:+.2f}: {human['verdict']}). The other "
        f"{100 * (at_1h['mean'] - human['mean']):.1f} points are the agent's own other delayed "
        f"edits of the same article colliding{only}. An unpublish ends an edit as gone, never "
        "as a rejection, so it takes no share of these."
    )
