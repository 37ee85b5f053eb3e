"""Held-out validation, the burst coefficients of log and models, and the calibration's
tables and figure for the reproduction.

Held out: the shape is fitted on the first two thirds of the log's history (by time) and
generates the last third's span many times; each statistic of the real last third is
inside or outside the generated runs' 95 % range, beside the log's own drift over the split
(``drift``: a miss on a statistic the log itself changed is the log's, not the model's).
The write-up's process -- independent Poisson saves, Zipf(0.9) over the articles, uniform in
time, one article per publish -- gets the same test with only its volume fitted.
``panel`` runs it on every log of the panel, with the transfer test across them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from sim.calibrate import drift, popfit, sessions
from sim.calibrate.burstfit import burst_stretch
from sim.calibrate.fit import Fit, fit
from sim.calibrate.generate import DAY_S, Saves
from sim.calibrate.logs import EditLog, week_offset
from sim.calibrate.overlog import PROCESSES, Kept, coefficients_over_log, one_run
from sim.calibrate.shape import EditShape, stretch_sessions
from sim.calibrate.stats import STATISTICS, summary

if TYPE_CHECKING:  # matplotlib loads for a figure only (calibrate: 0.4 s less)
    from matplotlib.figure import Figure

TRAIN_SHARE = 2 / 3


@dataclass(frozen=True)
class Replicates:
    """Many seeded runs of one process over one window."""

    process: str
    runs: list[Saves]
    start_s: float


def replicate(
    f: Fit,
    n_articles: int,
    span_s: float,
    start_s: float,
    reps: int,
    seed: int,
    saves_per_day: float | None = None,
    processes: tuple[str, ...] = tuple(PROCESSES),
) -> list[Replicates]:
    """``reps`` runs of each process at ``saves_per_day`` (default: the fitted volume); run i
    of every process uses seed (seed, i), so processes (and logs) are compared on matched
    seeds."""
    return [
        Replicates(name, list(runs), start_s)
        for name, runs in lazy_replicates(
            f, n_articles, span_s, start_s, reps, seed, saves_per_day, processes
        )
    ]


def lazy_replicates(
    f: Fit,
    n_articles: int,
    span_s: float,
    start_s: float,
    reps: int,
    seed: int,
    saves_per_day: float | None = None,
    processes: tuple[str, ...] = tuple(PROCESSES),
) -> list[tuple[str, Iterator[Saves]]]:
    """``replicate``'s runs, each generated only when it is read: a reader that keeps only a
    statistic of each run holds one run at a time (on a long log, 150 runs of 400,000 saves
    held at once were a gigabyte)."""
    per_day = f.shape.log_saves_per_day if saves_per_day is None else saves_per_day

    def runs(name: str) -> Iterator[Saves]:
        for i in range(reps):
            yield one_run(f.shape, name, n_articles, per_day, span_s, start_s, seed, i)

    return [(name, runs(name)) for name in processes]


def over_log(
    f: Fit, log: EditLog, reps: int, seed: int, processes: tuple[str, ...] = tuple(PROCESSES)
) -> list[Replicates]:
    """``replicate`` over the log's own span, from its first save, at the fitted volume."""
    t0 = float(log.epoch_s[0])
    span = float(log.epoch_s[-1]) - t0 + 1.0
    return replicate(f, log.n_articles, span, week_offset(t0), reps, seed, processes=processes)


@dataclass(frozen=True)
class Split:
    """A log cut at two thirds of its history: the fit of the first part, the real
    statistics of both, and the window the runs cover (the last third)."""

    log: EditLog
    split_s: float
    fit: Fit
    real_train: dict[str, float]
    real: dict[str, float]
    start_s: float
    """Week offset of the split (the runs' time 0)."""
    span_s: float


def split_log(log: EditLog, seed: int = 1, gof_sims: int = 200) -> Split:
    t0, t1 = float(log.epoch_s[0]), float(log.epoch_s[-1])
    cut = t0 + TRAIN_SHARE * (t1 - t0)
    train, test = log.window(t0, cut), log.window(cut, np.inf)
    f = fit(train, window_s=cut - t0, boot=0, gof_sims=gof_sims, seed=seed, shape_only=True)
    start = week_offset(cut)
    real = summary(test.saves(cut)[0], start)
    before = summary(train.saves(t0)[0], week_offset(t0))
    return Split(log, cut, f, before, real, start, t1 - cut + 1.0)


def compare(real: dict[str, float], rep: Replicates) -> list[dict]:
    """Per statistic: the generated mean and 95 % range, and whether the real figure is in."""
    runs = pd.DataFrame([summary(s, rep.start_s) for s in rep.runs])
    rows = []
    for stat in STATISTICS:
        lo, hi = runs[stat].quantile([0.025, 0.975])
        rows.append(
            {
                "statistic": stat,
                "real": real[stat],
                "generated_mean": runs[stat].mean(),
                "generated_lo": lo,
                "generated_hi": hi,
                "inside": bool(lo <= real[stat] <= hi),
            }
        )
    return rows


def held_out(
    log: EditLog, reps: int = 200, seed: int = 1, gof_sims: int = 200
) -> tuple[pd.DataFrame, Fit]:
    """The validation table: per statistic and process, the real first two thirds' and last
    third's figures, the generated mean and 95 % range, whether the real figure is inside,
    and the log's own drift over the split (``drift.drift_test``'s p-value, over
    ``drift.permutations(reps)`` dealings of its weeks). The runs hold the test period's
    article count (every article the log has shown by the period's end), not the training
    period's: a growing help centre has more articles to edit later."""
    sp = split_log(log, seed, gof_sims)
    return held_out_rows(sp, reps, seed), sp.fit


def held_out_rows(sp: Split, reps: int, seed: int) -> pd.DataFrame:
    n_perm = drift.permutations(reps)
    p = drift.drift_test(sp.log, sp.split_s, n_perm, seed)
    rows = []
    for rep in replicate(sp.fit, sp.log.n_articles, sp.span_s, sp.start_s, reps, seed):
        for r in compare(sp.real, rep):
            stat = r["statistic"]
            rows.append(
                {"statistic": stat, "process": rep.process, "real_train": sp.real_train[stat]}
                | r
                | {"drift_p": p[stat], "permutations": n_perm}
            )
    return pd.DataFrame(rows)


BurstRuns = dict[str, np.ndarray]
"""Per process (and the stretched calibrated one): B and M of each run, reps × 2."""


def burst_runs(
    shape: EditShape, log: EditLog, reps: int, seed: int, stretch: float | None = None
) -> BurstRuns:
    """The runs the burst table reads: ``reps`` of each process over the log's span, and of
    the calibrated process with its sessions stretched ``stretch`` times (default: the
    stretch fitted to the log's B, the real-shape panel's burst arm). They need the shape
    alone, so a long log's calibrate runs them beside the fit's bootstrap. The stretch's
    runs that are the table's too are made once."""
    kept: Kept = {}
    if stretch is None:
        stretch = burst_stretch(shape, log, kept)
    return {
        **coefficients_over_log(shape, log, reps, seed, kept=kept),
        f"calibrated, sessions ×{stretch:g}": coefficients_over_log(
            stretch_sessions(shape, stretch), log, reps, seed, ("calibrated",)
        )["calibrated"],
    }


def burstiness_table(
    log: EditLog,
    f: Fit,
    reps: int = 50,
    seed: int = 1,
    stretch: float | None = None,
    runs: BurstRuns | None = None,
) -> pd.DataFrame:
    """B and M (per-article means) of the log, with its bootstrap interval, and of each
    process fitted to the whole log, with the range over ``reps`` runs over the log's span
    (``burst_runs``, or the ``runs`` made already)."""
    est = f.table.set_index("quantity")
    rows = []
    for coef in ("B", "M"):
        name = "burstiness B (log)" if coef == "B" else "memory M (log)"
        rows.append(("log", coef, *est.loc[name, ["estimate", "ci_low", "ci_high"]]))
    reps_of = burst_runs(f.shape, log, reps, seed, stretch) if runs is None else runs
    for process, values in reps_of.items():
        for j, coef in enumerate(("B", "M")):
            v = values[:, j][np.isfinite(values[:, j])]
            lo, hi = np.quantile(v, [0.025, 0.975]) if len(v) else (np.nan, np.nan)
            rows.append((process, coef, float(v.mean()) if len(v) else np.nan, lo, hi))
    return pd.DataFrame(rows, columns=["source", "coefficient", "estimate", "ci_low", "ci_high"])


def gof_table(f: Fit) -> pd.DataFrame:
    chosen = f.shape.popularity_family
    return pd.DataFrame(
        [
            {
                "family": g.family,
                "params": " ".join(f"{p:.4g}" for p in g.params),
                "ks_distance": g.ks,
                "p_value": g.p_value,
                "aic": g.aic,
                "chosen": g.family == chosen,
            }
            for g in f.gof
        ]
    )


def figure(log: EditLog, f: Fit, seed: int = 1) -> Figure:
    """Rank plot, re-save gap CDF and hourly profile: the log against one run of each process
    over the log's span."""
    from matplotlib.figure import Figure

    t0 = float(log.epoch_s[0])
    real, start = log.saves(t0)
    span = float(log.epoch_s[-1]) - t0 + 1.0
    runs = {
        r.process: r.runs[0] for r in replicate(f, log.n_articles, span, week_offset(t0), 1, seed)
    }
    fig = Figure(figsize=(13, 4), layout="constrained")
    ax_rank, ax_gap, ax_hour = fig.subplots(1, 3)
    series = {"log": real, **runs}
    styles = {"log": "k-", "calibrated": "C0--", "write-up (volume only)": "C3:"}
    for name, s in series.items():
        c = popfit.ranked(np.bincount(s.rank[s.kind == 0]))
        ax_rank.loglog(np.arange(1, len(c) + 1), c, styles[name], label=name)
        g = np.sort(sessions.resave_gaps(s.rank, s.time_s))
        g = np.maximum(g, 1.0)
        ax_gap.semilogx(g, np.arange(1, len(g) + 1) / len(g), styles[name], label=name)
        hour = ((start + s.time_s) // 3600 % 24).astype(int)
        ax_hour.plot(np.bincount(hour, minlength=24) / len(s), styles[name], label=name)
    ax_rank.set(xlabel="edit rank", ylabel="body edits", title="Edit popularity")
    ax_gap.set(
        xlabel="gap to the article's previous save (log scale)",
        ylabel="share of re-saves ≤ gap",
        title="Re-save gaps",
    )
    ticks = {1: "1 s", 60: "1 min", 3600: "1 h", DAY_S: "1 day", 30 * DAY_S: "30 days"}
    ax_gap.set_xticks(list(ticks), list(ticks.values()))
    for x, name in ((600, "10 min"), (3600, "1 h"), (DAY_S, "1 day")):
        ax_gap.axvline(x, color="0.75", lw=0.8)
        ax_gap.text(x, 0.97, f" {name}", fontsize=7, color="0.4", va="top", rotation=90)
    ax_hour.set(
        xlabel="hour of the day (UTC)", ylabel="share of saves in that hour", title="Hourly profile"
    )
    ax_rank.set(xlabel="article's rank by body edits (log scale)", ylabel="body edits (log scale)")
    ax_rank.legend()
    fig.suptitle(
        f"The fitted process follows the log's popularity, re-save gaps and hours; the "
        f"write-up's does not ({Path(log.source).name} against one seeded run of each over "
        "the log's span)"
    )
    return fig
