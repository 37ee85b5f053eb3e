"""Who decides `advise --db`: the simulated days, or the closed forms where they cannot.

On a quiet KB (a save a week) a simulated day rarely changes a cited article, so the days
the cap on days affords give no periodic option an interval, and a recommendation that
must meet its target with margin would fall to push by default. The closed forms of
``sim.theory`` (Poisson saves at the same volume over a uniform day, sizes measured by
real calls on the KB) need no days: they decide then, the output says so, and every
option the simulation did give an interval is checked against them (the closed form's
unnoticed time inside the simulated interval or not; a fitted edit process is burstier
than Poisson, so the check can fail, and then it says so).

A closed form has no interval, and its error against the KB's own saves is measured only
where the days give an interval, so its pick needs a margin of its own: its unnoticed time
at most CLOSED_FORM_MARGIN under the target, and no simulated interval at the option that
reaches above the target (an option at its own edge, 28.8 min against 30, is not
presented as meeting it); an option the days give no interval must come as far under it as
the days measure the forms under their upper ends elsewhere, where that is more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from sim.advise import Costs, Sizes, advise, sampled
from sim.advise.closedform import MODEL_MARGIN
from sim.params import Params
from sim.server.reads import count

CHECK_COLUMNS = [
    "method",
    "interval_min",
    "mean_unnoticed_min",
    "unnoticed_lo",
    "unnoticed_hi",
    "inside",
]
"""A check's JSON: the option, the closed form's minutes, the simulated interval, in it?"""


CLOSED_FORM_MARGIN = MODEL_MARGIN
"""A closed-form pick's unnoticed time must lie this share under the target. The forms are
exact for Poisson saves over a uniform day (the study holds them to its simulated days,
the write-up's day 14.8 against 14.3 min at every 30 min); a KB's saves are neither, and
where the days cannot say by how much the forms err, a stated margin stands in for it (the
simulated picks' own, ``closedform.MODEL_MARGIN``)."""


@dataclass(frozen=True)
class ClosedForms:
    """The closed forms' table on the KB's process, their choice and the sizes used."""

    params: Params
    table: pd.DataFrame
    choice: pd.Series | None
    sizes: Sizes
    target_min: float = math.inf
    """The target the choice was made against."""
    passed_over: tuple[str, ...] = ()
    """Cheaper options under the margin passed over, as their simulated interval reaches
    above the target (said by ``decision_line``)."""
    margin: float = CLOSED_FORM_MARGIN
    """The share under the target a pick the days give no interval must come:
    CLOSED_FORM_MARGIN, or more where the days measure the forms understating their upper
    ends by more at other options (``measured``)."""


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


def closed_forms(
    process: Params, costs: Costs, target_min: float, sizes: Sizes | None = None
) -> ClosedForms:
    """The closed forms for the KB's day with Poisson saves at its volume (the fitted
    shape's bursts and day profile are not in them); ``sizes`` measured once for several
    KBs (a backtest's table), else measured on this one."""
    whole = float(process.n_saves).is_integer()  # else a quiet KB's fraction: a mean
    arrivals = process.arrivals if whole else "poisson"
    poisson = replace(
        process, save_process="writeup", edit_shape="", save_trace=None, arrivals=arrivals
    )
    result = advise(poisson, costs, target_min * (1 - CLOSED_FORM_MARGIN), sizes=sizes)
    return ClosedForms(poisson, result["table"], result["choice"], result["sizes"], target_min)


def checked_choice(cf: ClosedForms, sim: pd.DataFrame) -> ClosedForms:
    """The closed forms' cheapest option under the margin whose simulated interval, where the
    days give one, ends MODEL_MARGIN under the target (a simulated pick's rule): a figure of
    the simulation that may reach the target is not left standing beside a pick said to meet
    it."""
    from sim.advise.text import what

    margin = max(CLOSED_FORM_MARGIN, measured(cf.table, sim))
    t = cf.table[cf.table[["cost", "mean_unnoticed_min"]].notna().all(axis=1)]
    t = t[t["mean_unnoticed_min"] <= cf.target_min * (1 - CLOSED_FORM_MARGIN)]
    at = t.merge(sim[["method", "interval_min", "unnoticed_hi"]], how="left")
    # an option the days give no interval is held to the error they measure elsewhere
    blind = (at["method"] != "push") & at["unnoticed_hi"].isna()
    keep = ~(blind & (at["mean_unnoticed_min"] > cf.target_min * (1 - margin))).to_numpy()
    t, at = t[keep], at[keep].reset_index(drop=True)
    crosses = (at["method"] != "push") & (at["unnoticed_hi"] > cf.target_min * (1 - MODEL_MARGIN))
    keep = ~crosses.to_numpy()
    ok = t[keep]
    choice = None if ok.empty else ok.loc[ok["cost"].idxmin()]
    bound = math.inf if choice is None else choice["cost"]
    cheaper = at[~keep & (at["cost"] < bound).to_numpy()]
    passed = tuple(what(r) for _, r in cheaper.sort_values("cost").iterrows())
    return replace(cf, choice=choice, passed_over=passed, margin=margin)


def measured(closed: pd.DataFrame, sim: pd.DataFrame) -> float:
    """The forms' error against the days where they give an interval: the share m with
    form = (1 − m) × the simulated upper end at the worst periodic option (0 where no
    option has an interval, or the forms lie above every upper end)."""
    if "unnoticed_lo" not in sim or not len(sim):
        return 0.0
    both = sim[(sim["method"] != "push") & sim["unnoticed_lo"].notna()].merge(
        closed[["method", "interval_min", "mean_unnoticed_min"]], on=["method", "interval_min"]
    )
    both = both[both["mean_unnoticed_min"] > 0]
    if both.empty:
        return 0.0
    return max(0.0, float((1 - both["mean_unnoticed_min"] / both["unnoticed_hi"]).max()))


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
    """The closed forms' choice, said as theirs with its margin; a simulated figure at it
    only with its interval and days (a bare simulated mean beside the pick reads as the
    tool contradicting itself)."""
    from sim.advise.text import ci, what

    c = cf.choice
    under = target_min * (1 - CLOSED_FORM_MARGIN)
    measured_said = (
        f"; where the days give an option no interval, {cf.margin:.0%} under it "
        f"({target_min * (1 - cf.margin):.3g} min), the form's error the days measure (that "
        "far under their upper end at worst)"
        if cf.margin > CLOSED_FORM_MARGIN
        else ""
    )
    head = (
        "Decided by the closed forms (Poisson saves at the same volume, "
        f"{cf.params.n_saves:,g} a day; the simulated days, stopped because {why}, chose "
        "nothing with margin): "
    )
    margin = (
        f"a closed form has no interval, so a pick must come {CLOSED_FORM_MARGIN:.0%} under "
        f"the target of {target_min:g} min ({under:g} min) for the form's error against these "
        f"saves{measured_said}, and a simulated interval at it must end there too"
    )
    passed = (
        f" Passed over, though cheaper: {'; '.join(cf.passed_over)} (its simulated 95 % "
        f"interval reaches above {under:g} min)."
        if cf.passed_over
        else ""
    )
    if c is None:
        return f"{head}no option meets the target ({margin}).{passed}"
    unnoticed = (
        "0 min (noticed as it happens)"
        if c["method"] == "push"
        else f"{c['mean_unnoticed_min']:.1f} min ({target_min - c['mean_unnoticed_min']:.1f} "
        f"min under the target; {margin})"
    )
    line = (
        f"{head}{what(c)}; a change unnoticed {unnoticed} on average; {c['calls']:,.1f} calls, "
        f"{c['chars']:,.0f} characters, cost {c['cost']:,.1f} a day.{passed}"
    )
    at = sim[(sim["method"] == c["method"]) & (sim["interval_min"] == c["interval_min"])]
    if c["method"] == "push" or at.empty:
        return line
    r = at.iloc[0]
    days = count(int(r["days"]), "simulated day")
    if math.isnan(r["unnoticed_lo"]) or r["unnoticed_lo"] == r["unnoticed_hi"]:
        return line + f" The {days} give that option no interval yet, so no figure of theirs."
    return line + (
        f" The {days} at that option: a change unnoticed "
        f"{ci(r['unnoticed_min'], r['unnoticed_lo'], r['unnoticed_hi'], '.1f')} min."
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
        "margin_share": cf.margin,
        "passed_over": list(cf.passed_over),
        "choice": None if cf.choice is None else plain(cf.choice.to_dict()),
        "rows": [
            plain(r)
            for r in cf.table.assign(tokens=cf.table["chars"] / costs.chars_per_token).to_dict(
                "records"
            )
        ],
        "checks": [plain(r) for r in checks[CHECK_COLUMNS].to_dict("records")],
    }
