"""Who decides `advise --db`: the simulated days, or the closed forms where they cannot.

On a quiet KB (a save a week) a simulated day rarely changes a cited article, so the days
the cap on days affords give no periodic option an interval, and a recommendation that
must meet its target with margin would fall to push by default. The closed forms of
``sim.theory`` (Poisson saves at the same volume over a uniform day, sizes measured by
real calls on the KB) need no days: they decide then, the output says so, and every
option the simulation did give an interval is checked against them (the closed form's
unnoticed time inside the simulated interval or not; a fitted edit process is burstier
than Poisson, so the check can fail, and then it says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from sim.advise import Costs, Sizes, advise, sampled
from sim.params import Params

CHECK_COLUMNS = [
    "method",
    "interval_min",
    "mean_unnoticed_min",
    "unnoticed_lo",
    "unnoticed_hi",
    "inside",
]
"""A check's JSON: the option, the closed form's minutes, the simulated interval, in it?"""


@dataclass(frozen=True)
class ClosedForms:
    """The closed forms' table on the KB's process, their choice and the sizes used."""

    params: Params
    table: pd.DataFrame
    choice: pd.Series | None
    sizes: Sizes


def simulation_decides(table: pd.DataFrame, target_min: float) -> bool:
    """The simulated days chose with margin: a periodic option whose interval's upper end
    meets the target, or push because every periodic option misses it beyond noise; not a
    push chosen only because no periodic option has an interval yet."""
    c = sampled.choice(table, target_min)
    if c is None:
        return False
    if c["method"] != "push":
        return True
    periodic = table[table["method"] != "push"]
    return bool(len(periodic)) and bool((periodic["unnoticed_lo"] > target_min).all())


def closed_forms(process: Params, costs: Costs, target_min: float) -> ClosedForms:
    """The closed forms for the KB's day with Poisson saves at its volume (the fitted
    shape's bursts and day profile are not in them)."""
    whole = float(process.n_saves).is_integer()  # else a quiet KB's fraction: a mean
    arrivals = process.arrivals if whole else "poisson"
    poisson = replace(process, save_process="writeup", edit_shape="", arrivals=arrivals)
    result = advise(poisson, costs, target_min)
    return ClosedForms(poisson, result["table"], result["choice"], result["sizes"])


def check_rows(sim: pd.DataFrame, closed: pd.DataFrame) -> pd.DataFrame:
    """Each periodic option with a simulated interval: its closed-form unnoticed minutes
    and whether they lie inside the simulated 95 % interval."""
    periodic = sim[(sim["method"] != "push") & sim["unnoticed_lo"].notna()]
    both = periodic.merge(
        closed[["method", "interval_min", "mean_unnoticed_min"]], on=["method", "interval_min"]
    )
    return both.assign(
        inside=(both["unnoticed_lo"] <= both["mean_unnoticed_min"])
        & (both["mean_unnoticed_min"] <= both["unnoticed_hi"])
    )


def check_line(checks: pd.DataFrame) -> str:
    """Where both ran: how many options' closed-form unnoticed times lie in the simulated
    intervals, and the first that does not."""
    if checks.empty:
        return (
            "Checked against simulation: not possible here, no periodic option has a "
            "simulated interval (not enough days with a change)."
        )
    out = checks[~checks["inside"]]
    line = (
        f"Checked against simulation where both ran: the closed form's unnoticed time lies "
        f"inside the simulated 95 % interval for {int(checks['inside'].sum())} of "
        f"{len(checks)} periodic options"
    )
    if out.empty:
        return line + "."
    r = out.iloc[0]
    return (
        line + f"; not, e.g., at {r['method']} every {r['interval_min']:g} min: closed form "
        f"{r['mean_unnoticed_min']:.1f} min, simulated {r['unnoticed_min']:.1f} "
        f"({r['unnoticed_lo']:.1f}–{r['unnoticed_hi']:.1f}) min (the fitted saves are not "
        "Poisson)."
    )


def decision_line(cf: ClosedForms, sim: pd.DataFrame, target_min: float, why: str) -> str:
    """The closed forms' choice, said as theirs, with the simulated figure at it so far."""
    from sim.advise.text import ci, what

    c = cf.choice
    head = (
        "Decided by the closed forms (Poisson saves at the same volume, "
        f"{cf.params.n_saves:,g} a day; the simulated days, stopped because {why}, chose "
        "nothing with margin): "
    )
    if c is None:
        return head + f"no option meets the target of {target_min:g} min."
    unnoticed = (
        "0 min (noticed as it happens)"
        if c["method"] == "push"
        else f"{c['mean_unnoticed_min']:.1f} min"
    )
    line = (
        f"{head}{what(c)}; a change unnoticed {unnoticed} on average; {c['calls']:,.1f} calls, "
        f"{c['chars']:,.0f} characters, cost {c['cost']:,.1f} a day."
    )
    at = sim[(sim["method"] == c["method"]) & (sim["interval_min"] == c["interval_min"])]
    if c["method"] != "push" and len(at) and not math.isnan(at.iloc[0]["unnoticed_min"]):
        r = at.iloc[0]
        line += (
            f" The simulated days at that option: a change unnoticed "
            f"{ci(r['unnoticed_min'], r['unnoticed_lo'], r['unnoticed_hi'], '.1f')} min"
        )
        if r["unnoticed_min"] > target_min:
            line += f", above the target of {target_min:g} min so far" + _safer(cf, c)
        line += "."
    return line


def _safer(cf: ClosedForms, c: pd.Series) -> str:
    """The next shorter interval of the pick's method, for a process burstier than the
    closed forms' Poisson saves (the simulated figure above the target says so)."""
    same = cf.table[
        (cf.table["method"] == c["method"]) & (cf.table["interval_min"] < c["interval_min"])
    ]
    if same.empty:
        return ""
    s = same.loc[same["interval_min"].idxmax()]
    return (
        f" (the fitted edits are burstier than the closed forms' Poisson saves: every "
        f"{s['interval_min']:g} min, {s['mean_unnoticed_min']:.1f} min in the closed forms at "
        f"cost {s['cost']:,.1f} a day, leaves room)"
    )


def as_options(cf: ClosedForms, costs: Costs) -> pd.DataFrame:
    """The closed forms' table in the simulated options' columns (tokens too)."""
    t = cf.table.rename(columns={"mean_unnoticed_min": "unnoticed_min"})
    return t.assign(
        unnoticed_lo=math.nan, unnoticed_hi=math.nan, tokens=t["chars"] / costs.chars_per_token
    )


def as_json(cf: ClosedForms, checks: pd.DataFrame, costs: Costs) -> dict[str, Any]:
    from sim.advise.closedform_text import _plain

    def plain(row: dict[str, Any]) -> dict[str, Any]:
        return {k: _plain(v) for k, v in row.items()}

    return {
        "saves_per_day": cf.params.n_saves,
        "choice": None if cf.choice is None else plain(cf.choice.to_dict()),
        "rows": [
            plain(r)
            for r in cf.table.assign(tokens=cf.table["chars"] / costs.chars_per_token).to_dict(
                "records"
            )
        ],
        "checks": [plain(r) for r in checks[CHECK_COLUMNS].to_dict("records")],
    }
