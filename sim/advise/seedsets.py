"""The write-up's day pick made on two disjoint seed sets, and the first set's pick checked on
the second: a pick chosen and checked on the same seeds is those seeds' (10 seeds chose every
30 min; on 50 others every 60 min met the target by its interval alone, at 29.1 min).

Each set runs the advisor's simulated day (``sampled.run``'s: the check intervals from a
quarter of the target up, push, no hourly checker; watchers only read, so an option's rows
are those it has in the exposure day) on SEEDS seeds: set A seeds 1..N, set B
SET_B_OFFSET+1..SET_B_OFFSET+N. N is fixed before the runs, never grown on where the
estimates fall (optional stopping, ``sim.study.seedrule``). An option meets the target by
the advisor's margin rule (``closedform.meets``: its 95 % interval's upper end at least
MODEL_MARGIN under the target, the interval for the seeds' noise, the share for the model's
error); the pick is the cheapest that does, push needing none.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from sim.advise import Costs, sampled
from sim.advise.closedform import meets
from sim.params import Params
from sim.stats import mean_interval
from sim.study.experiments import PointRuns, Request, frames_of
from sim.study.exposure import EXPOSURE_RECORDS, exposure_rows
from sim.study.realshape import ADVICE_TARGET_MIN

TARGET_MIN = ADVICE_TARGET_MIN
"""The target the sets pick for: the first page's advice example's."""
SEEDS = 50
"""Seeds a set: fixed in advance. At 50 seeds the 95 % half-width of every 60 min's unnoticed
time is about 1 min (10 seeds: 2), under half the margin (1.5 min at a 30-min target), so an
option near the margin's line is clearly over it or clearly under."""
SET_B_OFFSET = 1000
"""Set B's seeds start past it: no seed of set A (1..N, N ≤ 1000) is in set B."""
COLUMNS = ["seed_set", "seed", "method", "interval_s", "changed", "unnoticed_s"]
COLUMNS += ["calls", "notifications", "result_chars"]
"""The per-seed rows kept: what an option's unnoticed time and cost a day are made of."""
TABLE = {
    "unnoticed_min": "mean_unnoticed_min",
    "unnoticed_lo": "mean_unnoticed_min_ci_lo",
    "unnoticed_hi": "mean_unnoticed_min_ci_hi",
    "calls": "calls_per_day",
    "calls_lo": "calls_per_day_ci_lo",
    "calls_hi": "calls_per_day_ci_hi",
    "cost": "cost_per_day",
    "cost_lo": "cost_per_day_ci_lo",
    "cost_hi": "cost_per_day_ci_hi",
}
"""``sampled.options``' columns as the table names them."""


def set_seeds(seeds: list[int]) -> dict[str, list[int]]:
    """Set A's seeds (`seeds`, from 1..SET_B_OFFSET) and set B's (each plus the offset)."""
    if not seeds or min(seeds) < 1 or max(seeds) > SET_B_OFFSET:
        raise ValueError(
            f"seed sets: set A's seeds must lie in 1..{SET_B_OFFSET} (set B's are each plus "
            f"{SET_B_OFFSET}); received {seeds[:3]}...{seeds[-1:]}. Give fewer seeds a set."
        )
    return {"A": list(seeds), "B": [SET_B_OFFSET + s for s in seeds]}


def day_params(base: Params, target_min: float) -> Params:
    """The advisor's simulated day (``sampled.run``'s)."""
    swept = sampled.swept_intervals(target_min, base.day_s)
    return replace(base, push=True, sweep_intervals_s=swept, run_checker=False)


def request(base: Params, seeds: list[int], target_min: float) -> Request:
    """Both sets' days: set A on `seeds`, set B on each plus SET_B_OFFSET."""
    both = tuple(s for ss in set_seeds(seeds).values() for s in ss)
    return Request((day_params(base, target_min),), both, ("staleness",), EXPOSURE_RECORDS)


def seed_rows(base: Params, target_min: float, runs: PointRuns) -> pd.DataFrame:
    """Per set, seed and advised option: changed citations, unnoticed seconds and costs."""
    frames = replace(frames_of(runs[0]), checks=sampled.NO_CHECKS)
    r = exposure_rows(day_params(base, target_min), frames).rows
    r = r[r["method"].isin(sampled.ADVISED)]
    r = r.assign(seed_set=np.where(r["seed"] > SET_B_OFFSET, "B", "A"))
    return r[COLUMNS].sort_values(["seed_set", "seed"], kind="stable").reset_index(drop=True)


def pick(options: pd.DataFrame, target_min: float) -> pd.Series | None:
    """The cheapest option that meets the target by the margin rule (push needs none)."""
    ok = options[(options["method"] == "push") | meets(options["unnoticed_hi"], target_min)]
    return None if ok.empty else ok.loc[ok["cost"].idxmin()]


def _options(rows: pd.DataFrame, costs: Costs) -> pd.DataFrame:
    """``sampled.options`` on one set's rows, with the calls' interval beside their mean."""
    t = sampled.options(sampled.Sample(Params(), [rows.drop(columns="seed_set")]), costs)
    calls = {
        (m, s / 60): mean_interval(g["calls"].to_numpy())
        for (m, s), g in rows.groupby(["method", "interval_s"])
    }
    keys = list(zip(t["method"], t["interval_min"], strict=True))
    return t.assign(calls_lo=[calls[k].lo for k in keys], calls_hi=[calls[k].hi for k in keys])


def table(rows: pd.DataFrame, costs: Costs, target_min: float) -> pd.DataFrame:
    """results/advise_pick_seedsets.csv: every option on each set with its intervals and
    whether it meets the target by the margin rule; `picked` marks each set's own pick,
    `picked_on_a` set A's pick in both sets (on B: its check on seeds that did not choose it)."""
    out = []
    for name, g in rows.groupby("seed_set", sort=True):
        t = _options(g, costs)
        t["meets_target"] = (t["method"] == "push") | meets(t["unnoticed_hi"], target_min)
        chosen = pick(t, target_min)
        t["picked"] = False
        if chosen is not None:
            t.loc[chosen.name, "picked"] = True
        out.append(t.assign(seed_set=name, seed_range=f"{g['seed'].min()}–{g['seed'].max()}"))
    both = pd.concat(out, ignore_index=True)
    a = both[(both["seed_set"] == "A") & both["picked"]]
    on_a = set(zip(a["method"], a["interval_min"], strict=True))
    keys = zip(both["method"], both["interval_min"], strict=True)
    both["picked_on_a"] = [k in on_a for k in keys]
    both["target_min"] = target_min
    head = ["seed_set", "seed_range", "target_min", "method", "interval_min", "days", "changed"]
    tail = ["meets_target", "picked", "picked_on_a"]
    return both[[*head, *TABLE, *tail]].rename(columns=TABLE)
