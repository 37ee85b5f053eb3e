"""Which open choices matter: every reading the write-up's text allows, and what it does to
each headline figure and its verdict.

Each choice the write-up leaves open is a ``Params`` field; its default follows the text
(REPORT.md says where the text is silent). For every other reading, the runs it can
change are rerun on seeds 1..SEEDS and set beside the default reading on the same seeds.
One reading is a way of counting, not of simulating: a first-try "gone" counted as a
rejection.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.experiments import run_points
from sim.metrics import per_seed
from sim.params import Params
from sim.report.comparison import RATIOS, REPORTED, pooled
from sim.report.verdicts import judge

FIGURES = tuple(
    r
    for r in REPORTED
    if r.rule == "share" and not r.key.startswith("top10") and r.key != "title_caught_share"
)
"""The figures a reading can move: the shares the model produces (the top-10 shares are
analytic up to sampling, the 'all'/'zero' checks do not depend on a reading, and the
title-only share needs the hourly checks these runs leave out)."""

SEEDS = 60
"""Seeds per reading: the hourly checks are left out of these runs (they take two thirds of
a day's time and no reading changes what they find but through the stale shares), so the
title-only share is judged on the headline runs only."""
ALL_RUNS = ("staleness", "control", "cas")


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


CHOICES = (
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
        "when questions and saves come",
        ("two_peaks",),
        ALL_RUNS,
        "'spread over 8 hours': independent uniform times",
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
COUNTING = "gone_counts_as_rejection"
"""The one reading that changes counting, not the simulation."""


def sensitivity_points(base: Params) -> list[tuple[Choice, object, Params]]:
    return [
        (c, r, replace(base, run_checker=False, **{c.field: r}))
        for c in CHOICES
        for r in c.readings
    ]


def sensitivity_rows(
    base: Params, seeds: list[int], workers: int | None, progress: bool
) -> pd.DataFrame:
    """Per reading and seed, the figures its runs produce and the counts their seeds 1–5
    values are pooled from (the readings' own per-seed rows; the default reading is the
    study's own runs of those seeds)."""
    keys = list(dict.fromkeys(k for f in FIGURES for k in (f.key, *RATIOS.get(f.key, ()))))
    rows = []
    for runs in dict.fromkeys(c.runs for c in CHOICES):
        points = [(c, r, p) for c, r, p in sensitivity_points(base) if c.runs == runs]
        results = run_points([p for *_, p in points], seeds, runs, workers, progress)
        for (c, r, _), frames in zip(points, results, strict=True):
            own = per_seed(frames)
            own = own[["seed", *(k for k in keys if k in own)]]
            rows.append(own.assign(choice=c.field, reading=str(r)))
    out = pd.concat(rows, ignore_index=True)
    return out[["choice", "reading", *(c for c in out.columns if c not in ("choice", "reading"))]]


def sensitivity_runs(rows: pd.DataFrame, default: pd.DataFrame) -> pd.DataFrame:
    """Per-seed headline quantities of every reading on the readings' seeds: the default
    reading from the study's per-seed rows, each reading's own figures over it, and the one
    counting reading."""
    default_seeds = default[default["seed"].isin(rows["seed"])].reset_index(drop=True)
    out = [default_seeds.assign(choice="default", reading="default")]
    for (choice, reading), own in rows.groupby(["choice", "reading"], sort=False):
        own = own.drop(columns=["choice", "reading"]).dropna(axis=1, how="all")
        out.append(_with_default(own, default_seeds).assign(choice=choice, reading=reading))
    counted = default_seeds.assign(
        cas_reject_share=(default_seeds["cas_conflicts"] + default_seeds["cas_gone"])
        / default_seeds["cas_edits"],
        choice=COUNTING,
        reading="True",
    )
    out.append(counted)
    return pd.concat(out, ignore_index=True)


def _with_default(mine: pd.DataFrame, default: pd.DataFrame) -> pd.DataFrame:
    """A reading's seeds with the default's values in the columns its runs did not produce."""
    merged = default.set_index("seed").copy()
    own = mine.set_index("seed")
    merged.update(own)
    for col in own.columns.difference(merged.columns):
        merged[col] = own[col]
    return merged.reset_index()


def sensitivity_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per choice × reading × figure: the figure alone judged on this reading's
    seeds (value, CI, five-seed range, z, verdict) and its shift from the default reading
    on the same seeds."""
    rows = []
    default = runs[runs["choice"] == "default"]
    for (choice, reading), g in runs.groupby(["choice", "reading"], sort=False):
        for fig in FIGURES:
            values = g[fig.key].dropna().to_numpy(dtype=float)
            verdict = judge(fig.bounds, values)
            rows.append(
                {
                    "choice": choice,
                    "reading": reading,
                    "figure": fig.key,
                    "reported": fig.as_written,
                    "seeds_1_5": pooled(g[g["seed"] <= 5], fig.key),
                    **verdict,
                    "shift_from_default": verdict["mean"] - default[fig.key].astype(float).mean(),
                    "seeds": len(values),
                }
            )
    return pd.DataFrame(rows)


def robustness(table: pd.DataFrame, comparison: pd.DataFrame) -> dict[str, str]:
    """Per figure, how far its verdict survives the readings: 'reproduced under 9 of 11
    readings', naming those that flip it. An infeasible figure stays infeasible whatever
    the model; how the figure fares alone is said beside it."""
    main = comparison.set_index("key")["verdict"]
    seeds = int(table["seeds"].max())
    out = {}
    for key, g in table.groupby("figure", sort=False):
        default = g.loc[g["choice"] == "default", "verdict"].iloc[0]
        flips = g[g["verdict"] != default]
        named = "; ".join(f"{r.choice} = {r.reading}" for r in flips.itertuples())
        alone = f"seeds 1–{seeds}: {default} under {len(g) - len(flips)} of {len(g)} readings" + (
            f", {flips['verdict'].iloc[0]} under {named}" if named else ""
        )
        out[key] = alone if main[key] != "infeasible as reported" else f"alone: {alone}"
    out["title_caught_share"] = "not rerun: it needs the hourly checks the readings leave out"
    return out


def tornado(table: pd.DataFrame, figures: list[str]) -> Figure:
    """Per headline figure, each reading's shift from the default, largest first."""
    fig = Figure(figsize=(10, 2.2 * len(figures)))
    axes = fig.subplots(len(figures), 1, squeeze=False)[:, 0]
    for ax, key in zip(axes, figures, strict=True):
        g = table[(table["figure"] == key) & (table["choice"] != "default")].copy()
        g["label"] = g["choice"] + " = " + g["reading"]
        g = g.reindex(g["shift_from_default"].abs().sort_values().index)
        colours = np.where(g["verdict"] == "reproduced", "tab:blue", "tab:red")
        ax.barh(g["label"], 100 * g["shift_from_default"], color=colours)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_title(
            f"{key}: shift from the default reading (points; red: verdict is 'not reproduced')",
            fontsize=8,
        )
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return fig
