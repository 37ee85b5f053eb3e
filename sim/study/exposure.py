"""How long staleness goes unnoticed, per seed: the exposure runs' rows and their table.

The exposure runs are the write-up's Zipf day with more watchers beside the hourly
checker: every swept check method of the registry (``sim.model.methods``) at every interval
from 1 minute to 4 hours, and push (MCP resource subscriptions). They only read, so the
day itself is the staleness run's. For each citation that changed, the time from its first
change to the moment a method flagged it (or the citation was let go, or the day ended) is
its unnoticed time, summed per seed, method and interval with the costs (calls and
characters from the call log): per-seed rows that the report, the advisor and the notebook
all read (``sim.report.exposure`` draws and words them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from sim import theory
from sim.model import methods
from sim.params import Params
from sim.study import methodrows
from sim.study.experiments import Request, StudyFrames

SEEDS = 10
SWEPT = tuple(m.name for m in methods.SWEPT)
"""The methods checked at every interval of the sweep (the registry's, in its order)."""
HOURLY_ONLY = tuple(m.name for m in methods.METHODS if m.hourly and not m.swept)
"""The methods only the hourly checker runs (every hour: their one interval)."""
METHODS = (*SWEPT, "push", *HOURLY_ONLY)
"""The table's rows: the swept methods, push, then those checked hourly only."""


EXPOSURE_RECORDS = ("citations", "checks", "calls", "detections", "cadence")
"""The record types exposure_rows reads."""


def exposure_request(base: Params, seeds: list[int]) -> Request:
    return Request((base,), tuple(seeds), ("exposure",), EXPOSURE_RECORDS)


GROUP = ["method", "interval_s"]
COST_COLUMNS = methodrows.COST_COLUMNS


@dataclass(frozen=True)
class ExposureRows:
    """The exposure runs as per-seed rows: per seed × method × interval its costs and the
    sums over changed citations (count, unnoticed seconds, never noticed) with the seed's
    citation-seconds held; and the pooled 95th percentiles, which no per-seed sum gives
    (None when a subset of seeds is taken: its percentiles are not known)."""

    rows: pd.DataFrame
    p95: pd.DataFrame | None = None

    def seeds(self, seeds: list[int]) -> ExposureRows:
        return ExposureRows(self.rows[self.rows["seed"].isin(seeds)].reset_index(drop=True))


def exposure_rows(base: Params, frames: StudyFrames) -> ExposureRows:
    """The long form (``sim.study.methodrows``) of one run's frames, and its percentiles."""
    rows = methodrows.method_rows(base, frames).drop(columns="experiment")
    changed = methodrows.unnoticed(base, frames.detections)
    p95 = changed.groupby(GROUP)["unnoticed_s"].quantile(0.95) / 60
    return ExposureRows(rows, p95.rename("p95_unnoticed_min").reset_index())


def exposure_table(base: Params, data: StudyFrames | ExposureRows) -> pd.DataFrame:
    if isinstance(data, StudyFrames):
        data = exposure_rows(base, data)
    r = data.rows
    n_seeds = r["seed"].nunique()
    held_s = r.drop_duplicates("seed")["held_s"].sum()
    s = r.groupby(GROUP)[["changed", "unnoticed_s", "never"]].sum()
    exposure = pd.DataFrame(
        {
            "changed_citations_per_day": s["changed"] / n_seeds,
            "mean_unnoticed_min": s["unnoticed_s"] / s["changed"] / 60,
            "p95_unnoticed_min": np.nan
            if data.p95 is None
            else data.p95.set_index(GROUP)["p95_unnoticed_min"],
            "never_noticed_share": s["never"] / s["changed"],
            "stale_unknown_share": s["unnoticed_s"] / held_s,
        }
    )
    cost = r.groupby(GROUP).agg(
        seeds=("seed", "nunique"),
        checks_per_day=("checks", "mean"),
        calls_per_day=("calls", "mean"),
        poll_calls_per_day=("poll_calls", "mean"),
        notifications_per_day=("notifications", "mean"),
        chars_per_day=("result_chars", "mean"),
    )
    table = cost.join(exposure).reset_index()
    table["messages_per_day"] = table["calls_per_day"] + table["notifications_per_day"]
    forms = {t: theory.unnoticed_time(base, t) for t in table["interval_s"] if t > 0}
    # the closed forms are those of a check that finds every change (an exact one)
    periodic = table["method"].isin([m for m in SWEPT if methods.BY_NAME[m].exact])
    table["theory_mean_unnoticed_min"] = [
        forms[t]["mean_s"] / 60 if p else (0.0 if m == "push" else np.nan)
        for m, t, p in zip(table["method"], table["interval_s"], periodic, strict=True)
    ]
    shares = {t: theory.stale_unknown_share(base, t) for t in forms}
    table["theory_stale_unknown_share"] = [
        shares[t]["stale_unknown_share"] if p else (0.0 if m == "push" else np.nan)
        for m, t, p in zip(table["method"], table["interval_s"], periodic, strict=True)
    ]
    table.insert(2, "interval_min", table["interval_s"] / 60)
    order = {m: i for i, m in enumerate(METHODS)}
    table = table.sort_values(
        ["method", "interval_s"], key=lambda c: c.map(order) if c.name == "method" else c
    )
    return table.drop(columns="interval_s").reset_index(drop=True)


def theory_check(base: Params, table: pd.DataFrame) -> pd.DataFrame:
    """Simulated against closed form where the table has no closed-form column of its own:
    poll pages per day by interval, re-read and poll reads under the stopping rule, and
    push notifications per day."""
    push = theory.push_counts(base)
    rows = []
    for _, r in table[table["method"] == "poll"].iterrows():
        rows.append(
            (
                "poll pages per day",
                r["interval_min"],
                r["poll_calls_per_day"],
                theory.poll_pages_per_day(base, r["interval_min"] * 60),
            )
        )
    if base.stop_checking_known_stale:
        for _, r in table[table["method"] == "reread"].iterrows():
            form = theory.stopped_check_calls(base, r["interval_min"] * 60)
            poll = table[
                (table["method"] == "poll") & (table["interval_min"] == r["interval_min"])
            ].iloc[0]
            rows.append(
                (
                    "re-reads per day, stopping rule",
                    r["interval_min"],
                    r["calls_per_day"],
                    form["reread_reads"],
                )
            )
            rows.append(
                (
                    "poll reads per day, stopping rule",
                    r["interval_min"],
                    poll["calls_per_day"] - poll["poll_calls_per_day"],
                    form["poll_reads"],
                )
            )
    p = table[table["method"] == "push"].iloc[0]
    rows.append(
        ("push notifications per day", 0.0, p["notifications_per_day"], push["notifications"])
    )
    return pd.DataFrame(rows, columns=["quantity", "interval_min", "simulated", "closed_form"])
