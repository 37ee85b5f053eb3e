"""Held-out validation, the burst coefficients of log and models, and the calibration's
tables and figure for the reproduction.

Held out: the shape is fitted on the first two thirds of the log's history (by time) and
generates the last third's span many times; each statistic of the real last third is
inside or outside the generated runs' 95 % range. The write-up's process -- independent
Poisson saves, Zipf(0.9) over the articles, uniform in time, one article per publish --
gets the same test with only its volume fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from sim.calibrate import popfit, sessions
from sim.calibrate.fit import Fit, fit
from sim.calibrate.generate import CAL_STREAMS, DAY_S, FEATURES, Saves, generate
from sim.calibrate.logs import BUNDLED, EditLog, read_log, week_offset
from sim.calibrate.stats import STATISTICS, summary

PROCESSES = {"calibrated": frozenset(FEATURES), "write-up (volume only)": frozenset()}
"""Each process as the generator's features: all real features, or none (the write-up's)."""
TRAIN_SHARE = 2 / 3


@dataclass(frozen=True)
class Replicates:
    """Many seeded runs of one process over one window."""

    process: str
    runs: list[Saves]
    start_s: float


def replicate(
    f: Fit, n_articles: int, span_s: float, start_s: float, reps: int, seed: int
) -> list[Replicates]:
    """``reps`` runs of each process at the fitted volume; run i of every process uses seed
    (seed, i), so the two processes are compared on matched seeds."""
    out = []
    for name, features in PROCESSES.items():
        runs = []
        for i in range(reps):
            children = np.random.SeedSequence([seed, i]).spawn(len(CAL_STREAMS))
            rngs = {s: np.random.default_rng(c) for s, c in zip(CAL_STREAMS, children, strict=True)}
            runs.append(
                generate(
                    f.shape,
                    n_articles,
                    f.shape.log_saves_per_day,
                    span_s,
                    rngs,
                    features,
                    start_s=start_s,
                )
            )
        out.append(Replicates(name, runs, start_s))
    return out


def held_out(
    log: EditLog, reps: int = 200, seed: int = 1, gof_sims: int = 200
) -> tuple[pd.DataFrame, Fit]:
    """The validation table: per statistic and process, the real first two thirds' and last
    third's figures (their difference is the log's own drift), the generated mean and 95 %
    range, and whether the real figure is inside. The runs hold the test period's article
    count (every article the log has shown by the period's end), not the training period's:
    a growing help centre has more articles to edit later."""
    t0, t1 = float(log.epoch_s[0]), float(log.epoch_s[-1])
    split = t0 + TRAIN_SHARE * (t1 - t0)
    train, test = log.window(t0, split), log.window(split, np.inf)
    f = fit(train, window_s=split - t0, boot=0, gof_sims=gof_sims, seed=seed)
    start = week_offset(split)
    real = summary(test.saves(split)[0], start)
    before = summary(train.saves(t0)[0], week_offset(t0))
    rows = []
    for rep in replicate(f, log.n_articles, t1 - split + 1.0, start, reps, seed):
        runs = pd.DataFrame([summary(s, start) for s in rep.runs])
        for stat in STATISTICS:
            lo, hi = runs[stat].quantile([0.025, 0.975])
            rows.append(
                {
                    "statistic": stat,
                    "process": rep.process,
                    "real_train": before[stat],
                    "real": real[stat],
                    "generated_mean": runs[stat].mean(),
                    "generated_lo": lo,
                    "generated_hi": hi,
                    "inside": bool(lo <= real[stat] <= hi),
                }
            )
    return pd.DataFrame(rows), f


def burstiness_table(log: EditLog, f: Fit, reps: int = 50, seed: int = 1) -> pd.DataFrame:
    """B and M (per-article means) of the log, with its bootstrap interval, and of each
    process fitted to the whole log, with the range over ``reps`` runs over the log's span."""
    t0 = float(log.epoch_s[0])
    est = f.table.set_index("quantity")
    rows = []
    for coef in ("B", "M"):
        name = "burstiness B (log)" if coef == "B" else "memory M (log)"
        rows.append(("log", coef, *est.loc[name, ["estimate", "ci_low", "ci_high"]]))
    span = float(log.epoch_s[-1]) - t0 + 1.0
    for rep in replicate(f, log.n_articles, span, week_offset(t0), reps, seed):
        values = np.array([sessions.coefficients(s.rank, s.time_s)[:2] for s in rep.runs])
        for j, coef in enumerate(("B", "M")):
            v = values[:, j][np.isfinite(values[:, j])]
            lo, hi = np.quantile(v, [0.025, 0.975]) if len(v) else (np.nan, np.nan)
            rows.append((rep.process, coef, float(v.mean()) if len(v) else np.nan, lo, hi))
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


def calibration_outputs(
    log_path: str | Path | None = None,
    reps: int = 200,
    boot: int = 200,
    seed: int = 1,
) -> tuple[dict[str, pd.DataFrame], Figure]:
    """Tables (fit, gof, burstiness, validation) and the figure for a log (default: the
    bundled help-centre log)."""
    log = read_log(log_path or BUNDLED)
    f = fit(log, boot=boot, gof_sims=boot, seed=seed)
    validation, _ = held_out(log, reps, seed, gof_sims=boot)
    tables = {
        "fit": f.table,
        "gof": gof_table(f),
        "burstiness": burstiness_table(log, f, max(2, reps // 4), seed),
        "validation": validation,
    }
    return tables, figure(log, f, seed)


def figure(log: EditLog, f: Fit, seed: int = 1) -> Figure:
    """Rank plot, re-save gap CDF and hourly profile: the log against one run of each process
    over the log's span."""
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
