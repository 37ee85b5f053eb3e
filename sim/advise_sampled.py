"""Simulated advice run to a stated precision: as many seeded days as the figures need.

A sparse edit log puts one or two saves in a simulated day, and a day in which no cited
article changes measures no unnoticed time at all; a fixed count of days then decides
nothing. So days are run in batches (one per worker), the same seeds for every process
compared, until the chosen option's mean unnoticed time is known to a stated 95 %
half-width and at least a stated number of cited articles changed, or a cap on days or
seconds is reached; every figure is printed with its interval and the days it rests on.

Intervals are over seeds (a day is the unit): a mean unnoticed time is a ratio (unnoticed
seconds over changed citations, pooled over days), its interval by the delta method; a
cost a day, a stale share and a rejected share are means over days. An option is chosen
only if its interval's upper end meets the target (a recommendation must meet its target
with margin); two choices differ beyond noise when the paired (same seeds) difference of
their costs on the process that matters excludes zero.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from sim.advise import LABELS, Costs
from sim.params import Params
from sim.report.stats import Z95, Interval, interval


@dataclass(frozen=True)
class Precision:
    half_width_min: float = 5.0
    """95 % half-width wanted on the chosen option's mean unnoticed minutes."""
    min_changed: int = 30
    """Changed cited articles (citations whose article changed while held) wanted at least."""
    max_days: int = 60
    max_seconds: float = 25.0
    """No new batch of days is started once this much time has gone."""


@dataclass
class Sample:
    """The days of one process so far: exposure rows, staleness and CAS rows per seed."""

    params: Params
    rows: list[pd.DataFrame] = field(default_factory=list)
    stale: list[pd.DataFrame] = field(default_factory=list)
    cas: list[pd.DataFrame] = field(default_factory=list)

    @property
    def exposure(self) -> pd.DataFrame:
        return pd.concat(self.rows, ignore_index=True)


def ratio_interval(num: np.ndarray, den: np.ndarray) -> Interval:
    """ΣU/ΣC over days with its 95 % interval (delta method); NaN when nothing changed."""
    n, total = len(num), float(den.sum())
    if total == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, n)
    r = float(num.sum()) / total
    if n < 2:
        return Interval(r, math.nan, math.nan, math.nan, n)
    resid = num - r * den
    se = math.sqrt(float((resid**2).sum()) / (n * (n - 1))) / (total / n)
    return Interval(r, r - Z95 * se, r + Z95 * se, se * math.sqrt(n), n)


def options(sample: Sample, costs: Costs) -> pd.DataFrame:
    """Per method and interval: mean unnoticed minutes and cost a day, with intervals."""
    r = sample.exposure
    r = r[r["method"].isin(("reread", "poll", "push"))]
    r = r.assign(
        cost=(r["calls"] + r["notifications"]) * costs.per_call
        + r["result_chars"] / 1000 * costs.per_1k_chars
    )
    out = []
    for (method, interval_s), g in r.groupby(["method", "interval_s"], sort=True):
        g = g.sort_values("seed")
        u = ratio_interval(g["unnoticed_s"].fillna(0).to_numpy(), g["changed"].fillna(0).to_numpy())
        c = interval(g["cost"].to_numpy())
        out.append(
            {
                "method": method,
                "interval_min": interval_s / 60,
                "days": len(g),
                "changed": float(g["changed"].fillna(0).sum()),
                "unnoticed_min": u.mean / 60,
                "unnoticed_lo": u.lo / 60,
                "unnoticed_hi": u.hi / 60,
                "cost": c.mean,
                "cost_lo": c.lo,
                "cost_hi": c.hi,
            }
        )
    return pd.DataFrame(out)


def choice(table: pd.DataFrame, target_min: float) -> pd.Series | None:
    """The cheapest option whose unnoticed interval lies under the target (push needs none:
    it notices every change when it happens)."""
    meets = table[(table["method"] == "push") | (table["unnoticed_hi"] <= target_min)]
    if meets.empty:
        return None
    return meets.loc[meets["cost"].idxmin()]


def precise(table: pd.DataFrame, target_min: float, want: Precision) -> bool:
    c = choice(table, target_min)
    if table.empty or table["changed"].max() < want.min_changed:
        return False
    if c is None or c["method"] == "push":  # nothing periodic meets it: is that sure?
        periodic = table[table["method"] != "push"]
        return bool((periodic["unnoticed_lo"] > target_min).all())
    return bool(c["unnoticed_hi"] - c["unnoticed_min"] <= want.half_width_min)


def run(
    processes: dict[str, Params],
    experiments: tuple[str, ...],
    costs: Costs,
    target_min: float,
    want: Precision,
    workers: int = 2,
    fixed_days: int = 0,
    say=print,
) -> tuple[dict[str, Sample], str]:
    """Days in batches on seeds 1, 2, ... for every process until precise (or `fixed_days`
    exactly); the samples and why it stopped."""
    from sim.experiments import run_study
    from sim.metrics import staleness_by_seed
    from sim.report.exposure import exposure_rows
    from sim.report.tables import edit_rows

    samples = {name: Sample(p) for name, p in processes.items()}
    start, done, per_batch = time.monotonic(), 0, 0.0
    while True:
        cap = fixed_days or want.max_days
        seeds = list(range(done + 1, min(done + workers, cap) + 1))
        t0 = time.monotonic()
        for s in samples.values():
            f = run_study(s.params, seeds, experiments, workers, False)
            ex = f.seeds(seeds)
            if "exposure" in experiments:
                s.rows.append(exposure_rows(s.params, _only(ex, "exposure")).rows)
                s.stale.append(staleness_by_seed(_only(ex, "exposure").citations).reset_index())
            if "cas_curve" in experiments:
                s.cas.append(edit_rows(_only(ex, "cas_curve")))
        done = seeds[-1]
        per_batch = time.monotonic() - t0
        spent = time.monotonic() - start
        tables = {n: options(s, costs) for n, s in samples.items()}
        changed = min(int(t["changed"].max()) if len(t) else 0 for t in tables.values())
        say(f"advise: {done} simulated days in {spent:.0f} s; {changed} changed cited articles")
        if fixed_days:
            if done >= fixed_days:
                return samples, f"{fixed_days} days, as asked"
            continue
        if all(precise(t, target_min, want) for t in tables.values()):
            return samples, "the precision asked for was reached"
        if done >= want.max_days:
            return samples, f"the cap of {want.max_days} days was reached before the precision"
        if spent + per_batch > want.max_seconds:
            return samples, (
                f"the time cap ({want.max_seconds:g} s) was reached before the precision"
            )


def _only(f, experiment: str):
    from sim.experiments import StudyFrames

    return StudyFrames(
        *(
            part[part["experiment"] == experiment].reset_index(drop=True)
            if "experiment" in part
            else part
            for part in f.frames()
        )
    )


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def what(c: pd.Series) -> str:
    when = "on every change" if c["method"] == "push" else f"every {c['interval_min']:g} min"
    return f"{LABELS[c['method']]}, {when}"


def option_line(label: str, table: pd.DataFrame, target_min: float) -> str:
    c = choice(table, target_min)
    days = int(table["days"].max()) if len(table) else 0
    changed = int(table["changed"].max()) if len(table) else 0
    head = f"{label} ({days} days, {changed} changed cited articles)"
    if changed == 0:
        return f"{head}: no cited article changed, so no unnoticed time was measured."
    if c is None:
        return f"{head}: no option is known to meet the target."
    unnoticed = (
        "0 min (noticed as it happens)"
        if c["method"] == "push"
        else f"{_ci(c['unnoticed_min'], c['unnoticed_lo'], c['unnoticed_hi'], '.1f')} min"
    )
    return (
        f"{head}: {what(c)}; a change unnoticed {unnoticed} on average; cost "
        f"{_ci(c['cost'], c['cost_lo'], c['cost_hi'], ',.0f')} a day."
    )


def _ci(mean: float, lo: float, hi: float, fmt: str) -> str:
    if math.isnan(lo):
        return f"{mean:{fmt}} (interval needs 2 days or more)"
    return f"{mean:{fmt}} (95 % CI {lo:{fmt}} to {hi:{fmt}})"


def paired_cost_difference(
    sample: Sample, costs: Costs, a: pd.Series, b: pd.Series
) -> Interval | None:
    """Cost a day of option b minus option a on the same days of one process."""
    r = sample.exposure
    r = r.assign(
        cost=(r["calls"] + r["notifications"]) * costs.per_call
        + r["result_chars"] / 1000 * costs.per_1k_chars
    )

    def of(o: pd.Series) -> pd.Series:
        at = r[(r["method"] == o["method"]) & (r["interval_s"] == o["interval_min"] * 60)]
        return at.set_index("seed")["cost"]

    joined = pd.concat([of(a), of(b)], axis=1, join="inner")
    if joined.empty:
        return None
    return interval((joined.iloc[:, 1] - joined.iloc[:, 0]).to_numpy())


def comparison_lines(
    samples: dict[str, Sample], costs: Costs, target_min: float, main: str, other: str
) -> list[str]:
    """How the `other` process's choice fares on the `main` process, by how much the two
    choices differ and whether beyond noise."""
    tables = {n: options(s, costs) for n, s in samples.items()}
    a, b = choice(tables[main], target_min), choice(tables[other], target_min)
    if a is None or b is None:
        return ["The two choices cannot be compared: one process has no choice yet."]
    if a["method"] == b["method"] and (
        a["method"] == "push" or a["interval_min"] == b["interval_min"]
    ):
        return ["The two processes lead to the same choice."]
    t = tables[main]
    at = t[(t["method"] == b["method"]) & (t["interval_min"] == b["interval_min"])].iloc[0]
    diff = paired_cost_difference(samples[main], costs, a, b)
    lines = [f"The choices differ: {what(a)} ({main}) against {what(b)} ({other})."]
    if b["method"] != "push":
        verdict = (
            "misses the target beyond noise"
            if at["unnoticed_lo"] > target_min
            else "meets the target beyond noise"
            if at["unnoticed_hi"] <= target_min
            else "is within noise of the target"
        )
        lines.append(
            f"On the {main} process the {other} choice leaves a change unnoticed "
            f"{_ci(at['unnoticed_min'], at['unnoticed_lo'], at['unnoticed_hi'], '.1f')} min "
            f"(target {target_min:g}): it {verdict}."
        )
    if diff is not None and not math.isnan(diff.lo):
        beyond = "beyond noise" if diff.lo > 0 or diff.hi < 0 else "within noise"
        lines.append(
            f"It costs {_ci(diff.mean, diff.lo, diff.hi, ',.0f')} a day more than the {main} "
            f"choice on the same {diff.n} days: {beyond}."
        )
    return lines
