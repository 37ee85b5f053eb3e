"""Simulated advice run to a stated precision: as many seeded days as the figures need.

A sparse edit log puts one or two saves in a simulated day, and a day in which no cited
article changes measures no unnoticed time at all; a fixed count of days then decides
nothing. So days are run in batches (one per worker), the same seeds for every process
compared, until the chosen option's mean unnoticed time is known to a stated 95 %
half-width and at least a stated number of cited articles changed, or a cap on days is
reached; every figure is printed with its interval and the days it rests on. Every budget
counts days, never seconds, and the batches are the same whatever the worker count, so the
same inputs give the same days, figures and pick on any machine under any load; a time
limit (``Precision.max_seconds``) only stops a run, which then decides nothing
(``TimeLimit``).

Intervals are over seeds (a day is the unit), with Student's t for the few days a sparse
log affords: a mean unnoticed time is a ratio (unnoticed seconds over changed citations,
pooled over days), its interval by the delta method and only once MIN_DAYS_CHANGED days
saw a change (one day's bulk publish, noticed at one check, has no spread to show); a
cost a day is a mean over days, a share (stale, rejected) a pooled ratio in [0, 1]. The check
intervals swept are those from a quarter of the target up (``swept_intervals``): a
shorter one costs more and is needed only if none of them meets the target, which the
advice then says; the 1-minute checks were most of a day's work. An option is chosen
only if its interval's upper end meets the target (a recommendation must meet its target
with margin); two choices differ beyond noise when the paired (same seeds) difference of
their costs on the process that matters excludes zero.

Figures rest on the days they need (``run_sparse``, `advise --edit-log`): the costs a day
on the first days, every one run in full, until each option's cost is known to a stated
share of its mean; the unnoticed times on every day. A later day whose drawn schedule puts
no save inside the day changes no article, so every option's citations there change zero
times for zero unnoticed seconds: it counts as such a day and is not simulated. A later
day that has a save runs only the methods whose unnoticed times are still read: re-read
notices a change at the same check as the poll with its cursor kept (tested), so once its
cost is above the poll's at every interval beyond noise (paired, on the cost days) it is
not run again, and its unnoticed time rests on the days it ran. No figure reads the poll
restarted from the oldest citation, so it is not run at all. Some 320 lines: the precision
loop and the options table it judges after every batch are one stopping rule.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from sim.advise import Costs
from sim.advise.closedform import METHODS as ADVISED
from sim.model import methods
from sim.params import Params
from sim.server.reads import count
from sim.stats import mean_interval, ratio_interval

NO_CHECKS = pd.DataFrame(columns=["seed", "check", "method", "calls", "result_chars"])
"""The hourly checker's rows of a day run without it."""
NO_DETECTIONS = pd.DataFrame(
    {
        c: pd.Series(dtype=float)
        for c in ("seed", "method", "interval_s", "read_s", "changed_s", "detected_s")
    }
)
"""The detections of days in which no cited article changed (a small KB's quiet days)."""
NO_CITATIONS = pd.DataFrame(
    {c: pd.Series(dtype=float) for c in ("seed", "answer", "final_status", "final_kind", "read_s")}
)
"""The citations of days on which no question found a published article."""
MIN_DAYS_CHANGED = 5
"""Days with a changed cited article an unnoticed-time interval needs."""
MIN_COST_DAYS = 4
"""Days run in full at least: the costs a day rest on them."""
MIN_BATCH = 2
"""Days in the first batch; a batch then doubles the days done (never a worker count or a
time: the batches, and with them where the days stop, are the same on any machine)."""
SWEPT_METHODS = tuple(m for m in ADVISED if m in methods.BY_NAME and methods.BY_NAME[m].swept)
"""The interval sweep's methods a figure here reads: the advised ones it runs."""


@dataclass(frozen=True)
class Precision:
    half_width_min: float = 5.0
    """95 % half-width wanted on the chosen option's mean unnoticed minutes."""
    min_changed: int = 30
    """Changed cited articles (citations whose article changed while held) wanted at least."""
    max_days: int = 60
    max_seconds: float | None = None
    """A safety stop, not a budget: past this many seconds after `started` (the advice's
    start: reading and fitting the log count too) no further batch is started and the run
    raises ``TimeLimit``, so a slow machine gets no advice rather than other advice."""
    started: float = field(default_factory=time.monotonic)
    cost_share: float = 0.05
    """95 % half-width wanted on the chosen option's cost a day, as a share of its mean (or
    half a call's cost, if more); days are run in full until then, MIN_COST_DAYS at least."""


class TimeLimit(Exception):
    """The time limit (``Precision.max_seconds``) ran out before the days were done: nothing
    is decided, since a pick from fewer days would depend on the machine's speed."""

    def __init__(self, want: Precision, days: int) -> None:
        super().__init__(
            f"--max-seconds {want.max_seconds:g}: the time limit ran out after "
            f"{count(days, 'simulated day')}, before the days asked for were done; nothing "
            "was decided (a pick from fewer days would depend on this machine's speed). Give "
            "a larger --max-seconds, or none, or fewer days with --max-days."
        )


def stop_if_late(want: Precision, days: int) -> None:
    """Raise ``TimeLimit`` when the safety stop has passed and more days are due."""
    if want.max_seconds is not None and time.monotonic() - want.started > want.max_seconds:
        raise TimeLimit(want, days)


@dataclass
class Sample:
    """The days of one process so far: exposure rows, staleness and CAS rows per seed."""

    params: Params
    rows: list[pd.DataFrame] = field(default_factory=list)
    stale: list[pd.DataFrame] = field(default_factory=list)
    cas: list[pd.DataFrame] = field(default_factory=list)
    cost_days: int | None = None
    """Seeds 1..cost_days were run in full, and the costs rest on them; None: every day."""
    quiet: list[int] = field(default_factory=list)
    """Seeds after the cost days with no save inside the day: not simulated, every
    option's changed citations and unnoticed seconds there are zero."""

    @property
    def exposure(self) -> pd.DataFrame:
        return pd.concat(self.rows, ignore_index=True)

    @property
    def costed(self) -> pd.DataFrame:
        """The exposure rows of the days the costs rest on."""
        r = self.exposure
        return r if self.cost_days is None else r[r["seed"] <= self.cost_days]

    @property
    def days(self) -> int:
        return int(self.exposure["seed"].nunique()) + len(self.quiet)


def swept_intervals(target_min: float, day_s: float = math.inf) -> tuple[float, ...]:
    """The study's check intervals (seconds) from a quarter of the target up, those the
    day holds (none: a day shorter than the shortest, where only push is weighed)."""
    from sim.study.experiments import SWEEP_INTERVALS_S

    up = tuple(t for t in SWEEP_INTERVALS_S if t >= target_min * 60 / 4) or SWEEP_INTERVALS_S[-1:]
    return (
        tuple(t for t in up if t <= day_s) or tuple(t for t in SWEEP_INTERVALS_S if t <= day_s)[-1:]
    )


def options(sample: Sample, costs: Costs) -> pd.DataFrame:
    """Per method and interval: mean unnoticed minutes and cost a day, with intervals, and
    the calls, notifications, characters and tokens a day the cost is made of."""
    r = day_costs(sample.exposure, costs)
    r = r[r["method"].isin(ADVISED)]
    zeros = np.zeros(len(sample.quiet))
    out = []
    for (method, interval_s), g in r.groupby(["method", "interval_s"], sort=True):
        g = g.sort_values("seed")
        u = ratio_interval(
            np.concatenate([g["unnoticed_s"].fillna(0).to_numpy(), zeros]),
            np.concatenate([g["changed"].fillna(0).to_numpy(), zeros]),
            MIN_DAYS_CHANGED,
        )
        costed = g if sample.cost_days is None else g[g["seed"] <= sample.cost_days]
        c = mean_interval(costed["cost"].to_numpy())
        out.append(
            {
                "method": method,
                "interval_min": interval_s / 60,
                "days": len(g) + len(zeros),
                "cost_days": len(costed),
                "changed": float(g["changed"].fillna(0).sum()),
                "unnoticed_min": u.mean / 60,
                "unnoticed_lo": _floor(u.lo / 60),
                "unnoticed_hi": u.hi / 60,
                "calls": float(costed["calls"].mean()),
                "notifications": float(costed["notifications"].mean()),
                "chars": float(costed["result_chars"].mean()),
                "tokens": float(costed["result_chars"].mean()) / costs.chars_per_token,
                "cost": c.mean,
                "cost_lo": _floor(c.lo),
                "cost_hi": c.hi,
            }
        )
    return pd.DataFrame(out)


def _floor(lo: float) -> float:
    """An interval's lower end kept at 0 or above (minutes and costs are not negative);
    NaN (no interval) stays NaN."""
    return lo if math.isnan(lo) else max(0.0, lo)


def day_costs(rows: pd.DataFrame, costs: Costs) -> pd.DataFrame:
    """Exposure rows with each day's cost of each option."""
    return rows.assign(
        cost=(rows["calls"] + rows["notifications"]) * costs.per_call
        + rows["result_chars"] / 1000 * costs.per_1k_chars
    )


def cost_known(table: pd.DataFrame, target_min: float, want: Precision, costs: Costs) -> bool:
    """The chosen option's cost a day known to the share of its mean asked for, or to half
    a call's cost where that is more (a 4-hour poll costs a call or two a day)."""
    c = choice(table, target_min)
    if c is None:
        return True  # no option is chosen: no cost is given
    half = c["cost_hi"] - c["cost"]
    return bool(half <= max(want.cost_share * abs(c["cost"]), costs.per_call / 2))


def reread_dominated(sample: Sample, costs: Costs) -> bool:
    """On the cost days, re-read costs more than the poll (cursor kept) at every interval,
    beyond noise (paired over the days)."""
    r = day_costs(sample.costed, costs)
    by = r.pivot_table(index="seed", columns=["method", "interval_s"], values="cost")
    intervals = sorted({t for m, t in by.columns if m == "reread"})
    if not intervals:
        return True
    for t in intervals:
        if ("poll", t) not in by.columns:
            return False
        if not mean_interval((by[("reread", t)] - by[("poll", t)]).to_numpy()).lo > 0:
            return False
    return True


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
    if c is not None and c["method"] != "push" and math.isnan(c["unnoticed_hi"]):
        return False
    if c is None or c["method"] == "push":  # nothing periodic meets it: is that sure?
        periodic = table[table["method"] != "push"]
        return bool((periodic["unnoticed_lo"] > target_min).all())
    return bool(c["unnoticed_hi"] - c["unnoticed_min"] <= want.half_width_min)


def more_days(table: pd.DataFrame, target_min: float, want: Precision, done: int) -> int:
    """Days beyond `done` the chosen option's half-width and the count of changed cited
    articles need, by the square-root law and the rate so far (a bound to grow a batch by,
    not a promise); 0 when neither is known yet."""
    c = choice(table, target_min)
    need = 0
    changed = float(table["changed"].max()) if len(table) else 0.0
    if changed > 0 and changed < want.min_changed:
        need = math.ceil(done * want.min_changed / changed)
    if c is not None and c["method"] != "push" and not math.isnan(c["unnoticed_hi"]):
        half = c["unnoticed_hi"] - c["unnoticed_min"]
        need = max(need, math.ceil(done * (half / want.half_width_min) ** 2))
    return max(0, need - done)


def run(
    processes: dict[str, Params],
    with_cas: bool,
    costs: Costs,
    target_min: float,
    want: Precision,
    workers: int = 2,
    fixed_days: int = 0,
    say: Callable[[str], object] = print,
    cas_experiment: str = "cas_curve",
    first_seed: int = 1,
) -> tuple[dict[str, Sample], str]:
    """Days in batches on seeds 1, 2, ... for every process until precise (or `fixed_days`
    exactly); the samples and why it stopped. Every process's days of a batch run in one
    pool; a batch doubles the days done so far (MIN_BATCH first), whatever the workers. The
    CAS day is `cas_experiment`: the 13-delay curve, or 'cas' at the process's own edit
    delays. Seeds start at `first_seed` (a checking set's, ``sim.advise.checking``). Raises
    ``TimeLimit`` where the safety stop passes before the days are done."""
    from sim.study.experiments import Request, frames_of, run_all
    from sim.study.exposure import exposure_rows
    from sim.study.metrics import edit_rows, staleness_by_seed

    samples = {name: Sample(p) for name, p in processes.items()}
    # the exposure day with the swept intervals only, run as the base experiment
    # and without the write-up's hourly checker, which no figure here reads (a third of a day)
    exposed = {
        n: replace(
            s.params,
            push=True,
            sweep_intervals_s=swept_intervals(target_min, s.params.day_s),
            run_checker=False,
        )
        for n, s in samples.items()
    }
    done = 0
    cap = fixed_days or want.max_days
    while True:
        upto = min(done + max(MIN_BATCH, done), cap)
        seeds = tuple(range(first_seed + done, first_seed + upto))
        requests = [Request((p,), seeds, ("staleness",)) for p in exposed.values()]
        if with_cas:
            requests += [Request((s.params,), seeds, (cas_experiment,)) for s in samples.values()]
        runs = run_all(requests, workers, False)
        for i, (name, s) in enumerate(samples.items()):
            f = replace(frames_of(runs[i][0]), checks=NO_CHECKS)
            if f.detections.empty:
                f = replace(f, detections=NO_DETECTIONS)
            if f.citations.empty:
                f = replace(f, citations=NO_CITATIONS)
            s.rows.append(exposure_rows(exposed[name], f).rows)
            s.stale.append(staleness_by_seed(f.citations).reset_index())
            if with_cas:
                edits = frames_of(runs[len(samples) + i][0])
                if not edits.edits.empty:  # none when no question found a published article
                    s.cas.append(edit_rows(edits))
        done = upto
        spent = time.monotonic() - want.started
        tables = {n: options(s, costs) for n, s in samples.items()}
        changed = ", ".join(
            f"{n} {int(t['changed'].max()) if len(t) else 0}" for n, t in tables.items()
        )
        say(
            f"advise: {count(done, 'simulated day')} in {spent:.0f} s; changed cited articles: "
            f"{changed}"
        )
        if done >= cap:
            why = "the days asked for were run" if fixed_days else "the cap on days was reached"
            return samples, why
        if not fixed_days and all(precise(t, target_min, want) for t in tables.values()):
            return samples, "the precision asked for was reached"
        stop_if_late(want, done)


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
