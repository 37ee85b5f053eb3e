"""Which open choices matter: every reading the write-up's text allows, and what it does to
each headline figure and its verdict.

Each choice the write-up leaves open is a ``Params`` field; its default follows the text
(REPORT.md says where the text is silent). For every other reading, the runs it can
change are rerun beside the default reading on the same seeds, as many as the sequential
rule gives it (``sim/study/seedrule.py``: SEEDS first, then batches of SEEDS while it is open). A
reading is judged at the headline's strength: the headline mean (all its seeds) plus the
reading's paired shift from the default on its own seeds, with the two intervals
combined; where that interval reaches across the verdict's threshold the reading is
*undecided*. One reading is a way of counting, not of simulating: a first-try "gone"
counted as a rejection, judged against the write-up's own counts read the same way.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

from sim import exactmath
from sim.report.comparison import (
    gone_counted_as_rejection,
    pooled,
)
from sim.report.verdicts import judge_estimate
from sim.stats import Z95, Interval, normal_interval
from sim.study.readings import CHOICES, FIGURES, LADDER, ReadingKey, run_of
from sim.study.reported import Reported

COUNTING = "gone_counts_as_rejection"
"""The one reading that changes counting, not the simulation."""
COUNTED_FIGURE = "cas_reject_share"


def reported_for(choice: str, figure: Reported) -> Reported:
    """The write-up's figure as a reading reads it: under COUNTING, the all-delays rejection
    figure is the write-up's own 172 + 19 gone of 600."""
    if choice == COUNTING and figure.key == COUNTED_FIGURE:
        return gone_counted_as_rejection()
    return figure


SHIFT_BOUND = 0.015
"""The sequential rule's bound: a reading stays open while the 95 % interval of its paired
shift on a figure it can move is wider than ±1.5 points (at 60 seeds the widest were
±2.6). Its verdicts do not keep it open: see ``unsettled``."""


def paired_cap(key: ReadingKey, headline: pd.DataFrame) -> int:
    """The most seeds a reading's shift can pair: the headline's seeds of every figure it can
    move (150 for a reading that reruns the staleness day, 300 for a CAS-only one)."""
    return min(int(headline[f.key].notna().sum()) for f in FIGURES if can_move(*key, f.key))


def open_readings(rows: pd.DataFrame, headline: pd.DataFrame) -> list[ReadingKey]:
    """The readings, among those with the most seeds so far, that the sequential rule keeps
    running: a figure they can move has a shift whose 95 % interval is wider than
    ±SHIFT_BOUND (the counting reading is not simulated, so never open); all of them while
    they hold one seed (a quick run's first batch)."""
    latest = rows.groupby(["choice", "reading"], sort=False)["seed"].max()
    latest = latest[latest == latest.max()]
    if latest.max() < 2:  # one seed has no spread to judge a shift by: every reading runs on
        return list(latest.index)
    # a reading's rows of the table read only its own seeds (and the default's on them), so
    # the table of the readings that can still be open is theirs in the whole table
    among = pd.Series(list(zip(rows["choice"], rows["reading"], strict=True)), index=rows.index)
    rows = rows[among.isin(set(latest.index))]
    keep = unsettled(sensitivity_table(sensitivity_runs(rows, headline), headline))
    keys = set(zip(keep["choice"], keep["reading"], strict=True))
    return [k for k in latest.index if k in keys]


def simulated_moves(table: pd.DataFrame) -> pd.DataFrame:
    """The sensitivity table's rows of a simulated reading and a figure it can move."""
    return table[table["can_move"] & ~table["choice"].isin(("default", COUNTING))]


def unsettled(table: pd.DataFrame) -> pd.DataFrame:
    """Those rows the sequential rule keeps open: the shift's 95 % interval wider than
    ±SHIFT_BOUND. The rule stops on precision alone, never on where an estimate lies (a
    fixed-width sequential interval, Chow & Robbins, Ann. Math. Statist. 36, 1965), so the
    95 % intervals at the stop keep their level; a verdict still undecided there is reported
    undecided. The earlier rule also ran on while a verdict was undecided: with the truth on a
    CAS verdict's threshold it called the verdict decided 19 % of the time against 10 % at a
    fixed count, and its intervals missed 6.2 % (``sim.report.seedrule_coverage``,
    results/coverage/seedrule_coverage.csv)."""
    moving = simulated_moves(table)
    return moving[(moving["shift_ci_hi"] - moving["shift_ci_lo"]) / 2 > SHIFT_BOUND]


def sensitivity_runs(rows: pd.DataFrame, default: pd.DataFrame) -> pd.DataFrame:
    """Per-seed headline quantities of every reading on the readings' seeds: the default
    reading from the study's per-seed rows, each reading's own figures over it, and the one
    counting reading."""
    default_seeds = default[default["seed"].isin(rows["seed"])].reset_index(drop=True)
    out = [default_seeds.assign(choice="default", reading="default", label="default")]
    for (choice, reading, label), own in rows.groupby(["choice", "reading", "label"], sort=False):
        own = own.drop(columns=["choice", "reading", "label"]).dropna(axis=1, how="all")
        out.append(
            _with_default(own, default_seeds).assign(choice=choice, reading=reading, label=label)
        )
    counted = default_seeds.assign(
        **{
            COUNTED_FIGURE: (default_seeds["cas_conflicts"] + default_seeds["cas_gone"])
            / default_seeds["cas_edits"]
        },
        choice=COUNTING,
        reading="True",
        label="True",
    )
    out.append(counted)
    return pd.concat(out, ignore_index=True)


def _with_default(mine: pd.DataFrame, default: pd.DataFrame) -> pd.DataFrame:
    """A reading's seeds with the default's values in the columns its runs did not produce."""
    own = mine.set_index("seed")
    merged = default.set_index("seed").loc[own.index].copy()
    merged.update(own)
    for col in own.columns.difference(merged.columns):
        merged[col] = own[col]
    return merged.reset_index()


def can_move(choice: str, reading: str, figure: str) -> bool:
    """Whether a reading can change `figure` at all: its runs produce the figure (the counting
    reading changes one figure only)."""
    if choice == "default":
        return True
    if choice == COUNTING:
        return figure == COUNTED_FIGURE
    return any(
        c.field == choice and reading in map(str, c.readings) and run_of(figure) in c.runs
        for c in CHOICES
    )


def full_strength(
    band: tuple[float, float], headline: np.ndarray, mine: pd.Series, default: pd.Series
) -> dict[str, float | str | bool]:
    """A reading judged at the headline's strength: headline mean + the reading's paired shift
    from the default on the same seeds, the two 95 % intervals combined; the reading's
    per-seed spread, scaled to the headline's, sets its five-seed range."""
    h = normal_interval(headline)
    paired_diff = (mine - default).dropna()
    diff = paired_diff.to_numpy(dtype=float)
    shift = normal_interval(diff)
    own = normal_interval(mine.dropna().to_numpy(dtype=float))
    paired = normal_interval(default[mine.dropna().index].to_numpy(dtype=float))
    # the reading's per-seed spread at the headline's strength: the headline's, scaled by the
    # reading's spread against the default's on the same seeds (so a reading equal to the
    # default on those seeds is judged exactly as the headline)
    # (a reading that never varies on its seeds, such as no rejection at 5 s, keeps the
    # headline's spread: a spread of zero would make any distance infinitely many SDs)
    sd = h.sd * own.sd / paired.sd if paired.sd > 0 and own.sd > 0 else h.sd
    se = math.hypot(h.sd / math.sqrt(h.n), shift.sd / math.sqrt(shift.n) if shift.n else 0.0)
    mean = h.mean + shift.mean
    if headline.min() >= 0.0 and headline.max() <= 1.0:  # a share stays a share
        mean = min(max(mean, 0.0), 1.0)
    verdict = judge_estimate(band, mean, sd, (mean - Z95 * se, mean + Z95 * se))
    # the two means share the reading's seeds, which the combination above ignores: with
    # their covariance (cov(h_i, d_i) / N over the N headline seeds) the half-width would be
    # this, and the verdict that; the report says how far the two differ
    on_them = default[paired_diff.index].to_numpy(dtype=float)
    cov = 0.0
    if len(diff) > 1:  # sample covariance, by sim.exactmath (no CPU-dependent kernel)
        a = on_them - math.fsum(on_them.tolist()) / len(on_them)
        b = diff - math.fsum(diff.tolist()) / len(diff)
        cov = exactmath.dot(a, b) / (len(diff) - 1)
    shared = Z95 * math.sqrt(max(se**2 + 2 * cov / h.n, 0.0))
    return {
        **verdict,
        "shift_from_default": shift.mean,
        "shift_ci_lo": shift.lo,
        "shift_ci_hi": shift.hi,
        "shift_p": _two_sided_p(shift),
        "mean_on_own_seeds": own.mean,
        "ci_half_shared": shared,
        "verdict_shared": judge_estimate(band, mean, sd, (mean - shared, mean + shared))["verdict"],
    }


def _two_sided_p(shift: Interval) -> float:
    """The shift's two-sided p of no shift, by the normal approximation its interval takes
    (no spread: 0 or 1; fewer than two seeds: NaN)."""
    if shift.n < 2:
        return math.nan
    if shift.sd == 0:
        return 1.0 if shift.mean == 0 else 0.0
    return 2 * NormalDist().cdf(-abs(shift.mean) / (shift.sd / math.sqrt(shift.n)))


def _pooled(choice: str, first5: pd.DataFrame, key: str) -> float:
    """Seeds 1–5 pooled as the write-up pooled them, counting as the reading counts."""
    if choice == COUNTING and key == COUNTED_FIGURE:
        return float(
            (first5["cas_conflicts"] + first5["cas_gone"]).sum() / first5["cas_edits"].sum()
        )
    return pooled(first5, key)


def sensitivity_table(runs: pd.DataFrame, headline: pd.DataFrame) -> pd.DataFrame:
    """One row per choice × reading × figure: the figure judged at full strength under this
    reading (value, CI, z, verdict incl. undecided), its paired shift from the default
    reading on seeds 1..SEEDS with the shift's CI, and whether the reading can move it."""
    rows = []
    default = runs[runs["choice"] == "default"].set_index("seed")
    headlines = {f.key: headline[f.key].dropna().to_numpy(dtype=float) for f in FIGURES}
    for (choice, reading), g in runs.groupby(["choice", "reading"], sort=False):
        mine = g.set_index("seed")
        first5 = g[g["seed"] <= 5]  # once a reading, not once a figure
        for fig in FIGURES:
            figure = reported_for(choice, fig)
            values = headlines[fig.key]
            if choice == "default":
                i = normal_interval(values)  # judged as ``judge`` does, its interval kept
                judged = judge_estimate(figure.bounds, i.mean, i.sd, (i.lo, i.hi))
                verdict = {
                    **judged,
                    "shift_from_default": 0.0,
                    "shift_ci_lo": 0.0,
                    "shift_ci_hi": 0.0,
                    "shift_p": 1.0,
                    "mean_on_own_seeds": float(mine[fig.key].astype(float).mean()),
                    "ci_half_shared": (i.hi - i.lo) / 2,
                    "verdict_shared": judged["verdict"],
                }
            else:
                verdict = full_strength(
                    figure.bounds, values, mine[fig.key].astype(float), default[fig.key]
                )
            rows.append(
                {
                    "choice": choice,
                    "reading": reading,
                    "label": g["label"].iloc[0],
                    "figure": fig.key,
                    "reported": figure.as_written,
                    "reported_value": figure.value,
                    "can_move": can_move(choice, reading, fig.key),
                    "seeds_1_5": _pooled(choice, first5, fig.key),
                    **verdict,
                    "seeds": len(values),
                    "shift_seeds": int(mine[fig.key].notna().sum()),
                }
            )
    return pd.DataFrame(rows)


def robustness(table: pd.DataFrame, comparison: pd.DataFrame) -> dict[str, str]:
    """Per figure, how far its verdict survives the readings that can move it, at full
    strength: 'reproduced under 9 of 11 readings', naming those that differ (undecided
    included); the delay ladders are counted apart. An infeasible figure stays infeasible
    whatever the model; how the figure fares alone is said beside it."""
    main = comparison.set_index("key")["verdict"]
    out = {}
    for key, g in table.groupby("figure", sort=False):
        default = g.loc[g["choice"] == "default", "verdict"].iloc[0]
        moving = g[g["can_move"] & (g["choice"] != "default")]
        parts = []
        for name, part in (
            ("readings", moving[moving["choice"] != LADDER.field]),
            ("other ladders", moving[moving["choice"] == LADDER.field]),
        ):
            if part.empty:
                continue
            same = int((part["verdict"] == default).sum())
            text = f"{default} under {same} of {len(part)} {name}"
            for v in ("reproduced", "not reproduced", "undecided"):
                named = part[(part["verdict"] == v) & (part["verdict"] != default)]
                if not named.empty:
                    text += f", {v} under " + "; ".join(
                        f"{r.choice} = {r.label}" for r in named.itertuples()
                    )
            parts.append(text)
        alone = "; ".join(parts) or "no reading can move it"
        out[key] = alone if main[key] != "infeasible as reported" else f"alone: {alone}"
    out["title_caught_share"] = "not rerun: it needs the hourly checks the readings leave out"
    return out
