"""The real-shape study's effects, from its per-seed rows alone (``sim.study.realshape``):
each arm's figures with the seed-paired difference from its reference (realshape.csv), the
same on the seeds every arm of a log ran (realshape_paired.csv), the feature that moves each
figure most (realshape_moves.csv), and the seed counts in words. The committed rows rebuild
them without a run; ``realshape_tables`` lays them out for the appendix.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim import exactmath
from sim.pages import md
from sim.report.render import render
from sim.stats import mean_interval, mean_p
from sim.study.realshape import ABLATION, ARMS, FIGURES, SEEDS, Arm
from sim.study.realshape_seeds import BY_NAME, HEADLINE_LOOKS, LOOKS
from sim.study.seedrule import SeedRule


def realshape_table(rows: pd.DataFrame, arms: tuple[Arm, ...] = ARMS) -> pd.DataFrame:
    """Per arm and figure (and log, if the rows have one): mean and 95 % CI over seeds, the
    seed-paired difference from the arm's reference with its CI, its seeds and its two-sided
    p (Student's t; seeds fixed in advance, ``realshape_seeds``), and that difference at
    equal day volume (NaN per seed, e.g. a seed with no stale citation for the title
    check's share, is left out of that figure). Intervals by Student's t."""
    if "log" in rows.columns:
        parts = [
            realshape_table(g.drop(columns="log"), arms).assign(log=name)
            for name, g in rows.groupby("log", sort=False)
        ]
        table = pd.concat(parts, ignore_index=True)
        return table[["log", *(c for c in table.columns if c != "log")]]
    wide = rows.pivot_table(index=["figure", "seed"], columns="arm", values="value", dropna=False)
    saves = wide.xs("saves", level="figure") if "saves" in wide.index.get_level_values(0) else None
    out = []
    for figure in FIGURES:
        if figure not in wide.index.get_level_values("figure"):
            continue
        f = wide.xs(figure, level="figure")
        for arm in arms:
            if arm.name not in f:
                continue
            own = mean_interval(f[arm.name].dropna().to_numpy())
            row = {
                "figure": figure,
                "arm": arm.name,
                "reference": arm.reference or "none",
                "seeds": own.n,
                "mean": own.mean,
                "ci_lo": own.lo,
                "ci_hi": own.hi,
            }
            if arm.reference and arm.reference in f:
                d = f[arm.name] - f[arm.reference]
                diff = mean_interval(d.dropna().to_numpy())
                row |= {
                    "diff_mean": diff.mean,
                    "diff_ci_lo": diff.lo,
                    "diff_ci_hi": diff.hi,
                    "diff_seeds": diff.n,
                    "diff_p": mean_p(d.dropna().to_numpy()),
                }
                if saves is not None and figure != "saves":
                    dv = saves[arm.name] - saves[arm.reference]
                    row |= equal_volume(d, dv)
            out.append(row)
    return pd.DataFrame(out)


def paired_table(rows: pd.DataFrame) -> pd.DataFrame:
    """realshape_table on the seeds every arm of a log ran (1..the fewest): the grids whose
    columns are read against each other, so that subtracting two columns gives the paired
    difference in brackets (the headline arms run more seeds than the others)."""
    return realshape_table(rows[paired_seeds(rows)])


def paired_seeds(rows: pd.DataFrame) -> pd.Series:
    """paired_table's rows: each log's seeds up to the fewest any of its arms ran."""
    if "log" not in rows.columns:
        return rows["seed"] <= rows.groupby("arm")["seed"].max().min()
    fewest = rows.groupby(["log", "arm"], sort=False)["seed"].max().groupby(level="log").min()
    return rows["seed"] <= rows["log"].map(fewest)


def equal_volume(diff: pd.Series, volume: pd.Series) -> dict[str, float]:
    """The paired difference at equal day volume: the intercept of the seeds' differences
    regressed on their difference in saves (an arm's day holds its own count of saves; the
    write-up's exactly n_saves), with its 95 % t interval."""
    from scipy import stats

    ok = diff.notna() & volume.notna()
    y, x = diff[ok].to_numpy(dtype=float), volume[ok].to_numpy(dtype=float)
    nan = {"eqvol_mean": np.nan, "eqvol_ci_lo": np.nan, "eqvol_ci_hi": np.nan}
    if len(y) < 4 or not np.ptp(x) > 0:
        return nan
    dx = x - x.mean()  # least squares by exactmath.dot: no BLAS order in a figure
    sxx = exactmath.dot(dx, dx)
    slope = exactmath.dot(dx, y - y.mean()) / sxx
    a = float(y.mean() - slope * x.mean())
    resid = y - (a + slope * x)
    s2 = exactmath.dot(resid, resid) / (len(y) - 2)
    se = math.sqrt(s2 * (1 / len(y) + float(x.mean()) ** 2 / sxx))
    half = float(stats.t.ppf(0.975, len(y) - 2)) * se
    return {"eqvol_mean": a, "eqvol_ci_lo": a - half, "eqvol_ci_hi": a + half}


def moves_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per figure (and log): the real feature whose switching on moves it most (largest
    |difference| from the every-feature-off arm) among those Holm's step-down over every
    feature × figure move of the log keeps at 5 % (``picks``); 'none' where it keeps none,
    with the smallest adjusted p of the figure's moves."""
    from sim.report import picks

    if "log" in table.columns:
        parts = [
            moves_table(g.drop(columns="log")).assign(log=name)
            for name, g in table.groupby("log", sort=False)
        ]
        moves = pd.concat(parts, ignore_index=True)
        return moves[["log", *(c for c in moves.columns if c != "log")]] if len(moves) else moves
    ab = table[table["arm"].isin(ABLATION) & table["diff_mean"].notna()]
    ab = picks.with_holm(ab, "diff_p")
    rows = []
    for figure, g in ab.groupby("figure", sort=False):
        named = picks.ranked(g, "diff_mean")
        top = named.iloc[0] if len(named) else g.loc[g["p_holm"].idxmin()]
        rows.append(
            {
                "figure": figure,
                "moved_most_by": top["arm"].lstrip("+") if len(named) else "none",
                "diff_mean": top["diff_mean"] if len(named) else np.nan,
                "diff_ci_lo": top["diff_ci_lo"] if len(named) else np.nan,
                "diff_ci_hi": top["diff_ci_hi"] if len(named) else np.nan,
                "p_holm": top["p_holm"],
                "family_moves": len(ab),
            }
        )
    return pd.DataFrame(rows)


def seeds_text(table: pd.DataFrame) -> str:
    """The seed counts in words and the seeds each arm ran on each log (from the panel's
    table), for the report."""
    per = table.groupby(["arm", "log"], sort=False)["seeds"].max().unstack("log")
    per = per.reindex([a.name for a in ARMS if a.name in per.index])
    rule = SeedRule(SEEDS, LOOKS)  # a quick run's pages say how far its seeds were scaled down
    head = SeedRule(SEEDS, HEADLINE_LOOKS)
    return render(
        "realshape_seeds.md.j2",
        cap=rule.cap,
        headline_cap=head.cap,
        references=[(a.label, BY_NAME[a.reference].label) for a in ARMS if a.reference],
        table=md(per.astype(int).reset_index()),
    )
