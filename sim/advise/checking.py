"""The pick checked on days independent of those that chose it.

The days that pick an option also estimate its unnoticed time, so a pick at the edge of
the target is flattered by the same noise that chose it. Checking days are run on seeds
from ``CHECK_SEED_BASE`` (no seed of the choosing days, which stop at --max-days); with the
history replayed they come from its other blocks (``sim.calibrate.trace``: even blocks
choose, odd ones check), so they share no calendar day with the choosing days. An option
counts as meeting the target only if both its choosing and its checking 95 % intervals lie
under it (push needs neither: it notices each change as it happens); a cheaper option whose
checking interval crosses the target, or has none, is passed over and the output says so.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from sim.advise import Costs, sampled, sparse
from sim.calibrate.trace import CHECK_SEED_BASE
from sim.params import Params
from sim.server.reads import count

KEY = ["method", "interval_min"]


def run(
    process: Params,
    costs: Costs,
    target: float,
    want: sampled.Precision,
    workers: int,
    days: int,
) -> pd.DataFrame:
    """The checking days' unnoticed times: `days` days (as many as chose), run as
    `advise --edit-log`'s light days (``sim.advise.sparse``): a day with no save inside it
    changes nothing and is counted, not simulated; only the poll runs among the periodic
    checks, and re-read's rows are the poll's (it notices at the same checks). No cost
    is read from them."""
    from sim.pools import ending_with_caller

    sampled.stop_if_late(want, days)
    exposed = replace(
        process,
        push=True,
        sweep_intervals_s=sampled.swept_intervals(target, process.day_s),
        run_checker=False,
    )
    seeds = list(range(CHECK_SEED_BASE, CHECK_SEED_BASE + days))
    tasks = [(exposed, seed, ("poll",), False) for seed in seeds]
    pool = sparse.day_pool(workers)
    with ending_with_caller(pool):
        rows = list(pool.map(sparse.day_rows, tasks) if pool else map(sparse.day_rows, tasks))
    ran = [r for r in rows if r is not None]
    quiet = [s for s, r in zip(seeds, rows, strict=True) if r is None]
    sampled.progress(
        f"advise: {count(days, 'independent day')} checking the pick ({len(quiet)} without a "
        "save, not simulated)"
    )
    if not ran:
        out = pd.DataFrame(columns=[*KEY, "days", "unnoticed_min", "unnoticed_lo", "unnoticed_hi"])
    else:
        t = sampled.options(sampled.Sample(process, rows=ran, quiet=quiet), costs)
        out = pd.concat([t, t[t["method"] == "poll"].assign(method="reread")], ignore_index=True)
    out.attrs["days"] = days  # all of them, those without a save too
    return out


def strict(table: pd.DataFrame, check: pd.DataFrame) -> pd.DataFrame:
    """The choosing table with each option's upper end the higher of its choosing and
    checking ones (none where the checking days give none): what a pick must meet."""
    at = table.merge(check[[*KEY, "unnoticed_hi"]], on=KEY, how="left", suffixes=("", "_chk"))
    hi = np.maximum(at["unnoticed_hi"].to_numpy(float), at["unnoticed_hi_chk"].to_numpy(float))
    return table.assign(unnoticed_hi=hi)


def kept(table: pd.DataFrame, strict_table: pd.DataFrame, target: float) -> pd.DataFrame:
    """The choosing table's rows (their own intervals, as printed) less the periodic options
    under the target there whose checking interval crosses it or is missing: the rest are
    what the pick is made among."""
    hi = strict_table["unnoticed_hi"].to_numpy(float)
    under = (table["method"] != "push").to_numpy() & (table["unnoticed_hi"] <= target).to_numpy()
    return table[~(under & ~(hi <= target))]


def passed_over(
    table: pd.DataFrame, check: pd.DataFrame, target: float, pick: pd.Series | None
) -> list[str]:
    """Options the choosing days alone would have taken before the pick, each with why."""
    from sim.advise.text import ci, what

    bound = math.inf if pick is None else float(pick["cost"])
    first = table[(table["method"] != "push") & (table["unnoticed_hi"] <= target)]
    first = first[first["cost"] < bound].sort_values("cost")
    out = []
    for _, r in first.iterrows():
        c = check[(check["method"] == r["method"]) & (check["interval_min"] == r["interval_min"])]
        if c.empty or math.isnan(c.iloc[0]["unnoticed_hi"]):
            why = "the checking days give it no interval"
        else:
            x = c.iloc[0]
            shown = ci(x["unnoticed_min"], x["unnoticed_lo"], x["unnoticed_hi"], ".1f")
            why = f"on the checking days {shown} min, reaching above the target"
        out.append(f"{what(r)} ({why})")
    return out


def line(pick: pd.Series | None, check: pd.DataFrame, target: float) -> str:
    """The pick's unnoticed time on the checking days, with its interval."""
    from sim.advise.text import ci, what

    days = int(check.attrs.get("days", check["days"].max() if len(check) else 0))
    head = f"Checked on {count(days, 'independent day')} (seeds from {CHECK_SEED_BASE:,})"
    if pick is None:
        return f"{head}: no pick to check."
    if pick["method"] == "push":
        return f"{head}: push notices each change as it happens; nothing to check."
    at = check[
        (check["method"] == pick["method"]) & (check["interval_min"] == pick["interval_min"])
    ]
    if at.empty or math.isnan(at.iloc[0]["unnoticed_hi"]):
        return f"{head}: {what(pick)} has no interval there (too few days with a change)."
    x = at.iloc[0]
    met = "under" if x["unnoticed_hi"] <= target else "reaching above"
    return (
        f"{head}: {what(pick)}, a change unnoticed "
        f"{ci(x['unnoticed_min'], x['unnoticed_lo'], x['unnoticed_hi'], '.1f')} min on "
        f"average, {met} the target of {target:g} min."
    )


def lines(
    pick: pd.Series | None, chosen: pd.DataFrame, check: pd.DataFrame, target: float, by_sim: bool
) -> list[str]:
    """The options the checking days passed over, if any, and the pick's check."""
    passed = passed_over(chosen, check, target, pick if by_sim else None)
    said = (
        [
            "Passed over, though cheaper and under the target on the choosing days: "
            + "; ".join(passed)
            + ("" if by_sim else "; so the closed forms decide")
            + "."
        ]
        if passed
        else []
    )
    return [*said, line(pick, check, target)]


def as_json(pick: pd.Series | None, check: pd.DataFrame) -> dict[str, object] | None:
    """The pick's unnoticed time on the checking days (their costs rest on the days with a
    save only, and are not given)."""
    from sim.advise.closedform_text import _plain

    if pick is None or not len(check):
        return None
    at = check[
        (check["method"] == pick["method"]) & (check["interval_min"] == pick["interval_min"])
    ]
    if at.empty:
        return None
    read = [*KEY, "days", "changed", "unnoticed_min", "unnoticed_lo", "unnoticed_hi"]
    return {k: _plain(v) for k, v in at.iloc[0][read].items()}  # no cost is read from them
