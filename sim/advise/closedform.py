"""`python -m sim advise`: which way of catching stale citations, and how often.

Given a KB and its traffic, and what a call and a character cost, it picks the method
(re-read every cited article, poll the event log with the cursor kept, or push) and the
check interval that keep the mean time a change goes unnoticed under a target at the
least cost. Closed forms first (``sim.theory``), with result sizes measured by real tool
calls: on a KB of the given size at the start of the day, and, for re-reads of an article
that just changed (poll and push), over one simulated day of the same parameters.
``--simulate N`` runs N seeded days and puts the simulated figures beside them; then a
method whose closed-form interval misses the target in simulation steps to the next
shorter interval until it meets it, and the choice is made on the simulated costs.
What it prints is ``closedform_text``. Over 300 lines: the sizes' measurement (a process
forked beside the tabulation), the closed forms and their check against simulated days are
one computation whose parts share the same options table.
"""

from __future__ import annotations

import multiprocessing
import statistics
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sim import theory
from sim.kb.store import KBStore
from sim.model import methods
from sim.model.day import run_day
from sim.model.opening import DAY_START_US, KB_ID, Opening
from sim.params import Params
from sim.pools import ending_with_caller, local_pool
from sim.server import resources
from sim.server.tools import KBServer, structured_json

if TYPE_CHECKING:
    import pandas as pd

    from sim.study.experiments import StudyFrames
    from sim.study.exposure import ExposureRows

# pandas and the study's runner are imported where the closed forms are tabulated, after
# the sizes' process has forked, so that the two processes import them in parallel.
_T = TypeVar("_T")

METHODS = ("reread", "poll", "push")
"""The methods advised on. Each has its own closed forms (``closed_form_counts``,
``closed_form``: per-method formulas from ``sim.theory``), so they are named here rather
than read off the registry; a method added to the registry is advised on once its formulas
are. Push is not a check of the registry (``sim.model.push``)."""
LABELS = {m: methods.BY_NAME[m].short for m in METHODS if m in methods.BY_NAME} | {
    "push": "push (subscribe)"
}
"""How the advice names them: the registry's short names, and push."""


@dataclass(frozen=True)
class Costs:
    per_call: float = 1.0
    """What one tool call or notification costs (any unit)."""
    per_1k_chars: float = 0.1
    """What 1,000 characters of results cost (same unit)."""
    chars_per_token: float = 4.0
    """Characters a token, to state the characters as tokens (a rule of thumb; no cost)."""


@dataclass(frozen=True)
class Sizes:
    """Characters of results, measured by real calls on a KB of the study's corpus."""

    read: float
    page: float
    event: float
    notification: float
    read_changed: float
    """A re-read of an article just changed, averaged over a simulated day (changed
    articles are the edited, longer ones): what poll and push re-read."""


SIZE_DAY_MAX_QUESTIONS = 10_000
"""Questions at most on the day that measures a just-changed article's read (10 million took
minutes). Which articles change and are re-read depends on that day, so the bound is part of
the measured sizes, not only a limit on time: a bound of 1,000 moved the characters a day
printed at 3,000 and 20,000 questions by 0.3–0.8 %."""


def measured_sizes(params: Params, seed: int = 1) -> Sizes:
    """Start-of-day sizes from real calls; the changed-article read from one day's push,
    both on one opening of the seed's corpus (the calls on a copy of it)."""

    n_articles = params.n_articles
    clock = [DAY_START_US]

    def tick() -> int:
        clock[0] += 1_000
        return clock[0]

    opening = Opening.build(seed, n_articles, params.corpus_db, params.corpus_queries)
    store, specs = KBStore.copy_of(opening.store, tick), opening.specs
    session = KBServer(store, tick).connect("advisor", [KB_ID])
    sample = [s.article_id for s in specs[: min(50, n_articles)]]
    reads = [
        session.call("read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": a}).chars
        for a in sample
    ]
    head = store.head_sequence(KB_ID)
    poll = {"resource_type": "knowledge_base", "resource_id": KB_ID, "after_sequence": head}
    empty = session.call("poll_resource_events", poll).chars
    for i in range(100):
        a = specs[i % len(specs)].article_id
        store.save(KB_ID, a, store.article_state(KB_ID, a).content + " Edited.")
    full = session.call("poll_resource_events", poll).chars
    quiet = replace(
        params,
        n_questions=min(params.n_questions, SIZE_DAY_MAX_QUESTIONS),
        push=True,
        run_checker=False,
        agent_edits=False,
        sweep_intervals_s=(),
    )
    day = run_day(quiet, seed, opening)
    changed = [
        c.result_chars
        for c in day.calls
        if c.client_id == "push" and c.tool == "read_knowledge_article"
    ]
    return Sizes(
        read=statistics.median(reads),
        page=empty,
        event=(full - empty) / 100,
        notification=len(structured_json({"uri": resources.uri(KB_ID, sample[0])})),
        read_changed=statistics.mean(changed) if changed else statistics.median(reads),
    )


def in_background(work: Callable[..., _T], *args: Any) -> Callable[[], _T]:
    """Start work(*args) in a forked process (its result comes back pickled, the same
    value) and return what waits for it. Where the platform cannot fork, or another thread
    runs (a fork copies no thread, but any lock one held), it runs now instead."""
    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        value = work(*args)
        return lambda: value
    pool = local_pool(1, fork=True)  # a worker that ends with this process
    future = pool.submit(work, *args)

    def result() -> _T:
        # the process and the pool's thread end before anything else forks; at once on a
        # Ctrl-C
        with ending_with_caller(pool):
            return future.result()

    return result


@dataclass(frozen=True)
class Counts:
    """The closed forms' expected counts, which need no result sizes: per check interval
    (seconds) the mean and p95 unnoticed time, poll pages, re-read and poll reads and
    events paged; and push's subscribes and notifications."""

    per_interval: list[tuple[float, dict[str, float]]]
    push: dict[str, float]


def closed_form_counts(params: Params) -> Counts:
    from sim.study.experiments import SWEEP_INTERVALS_S

    per_interval = []
    for interval in SWEEP_INTERVALS_S:
        p = replace(params, check_interval_s=interval, run_checker=True)
        unnoticed = theory.unnoticed_time(params, interval)
        pages = theory.poll_pages_per_day(params, interval)
        if params.stop_checking_known_stale:  # as the simulation: push's stopping rule
            stopped = theory.stopped_check_calls(params, interval)
            reread, poll_reads = stopped["reread_reads"], stopped["poll_reads"]
        else:
            checks = theory.expected_check_calls(p)
            reread = sum(c["reread_calls"] for c in checks)
            poll_reads = sum(c["poll_calls"] - c["poll_pages"] for c in checks)
        events = params.n_saves * (p.n_checks * interval / params.day_s)
        per_interval.append(
            (
                interval,
                {
                    "mean_s": unnoticed["mean_s"],
                    "p95_s": unnoticed["p95_s"],
                    "pages": pages,
                    "reread": reread,
                    "poll_reads": poll_reads,
                    "events": events,
                },
            )
        )
    return Counts(per_interval, theory.push_counts(params))


def closed_form(
    params: Params, sizes: Sizes, costs: Costs, counts: Counts | None = None
) -> pd.DataFrame:
    """Each method's calls, characters, unnoticed time and cost a day, per check interval."""
    import pandas as pd

    counts = closed_form_counts(params) if counts is None else counts
    rows = []
    for interval, c in counts.per_interval:
        pages, reread, poll_reads, events = c["pages"], c["reread"], c["poll_reads"], c["events"]
        common = {"interval_min": interval / 60, "notifications": 0.0}
        common |= {
            "mean_unnoticed_min": c["mean_s"] / 60,
            "p95_unnoticed_min": c["p95_s"] / 60,
        }
        rows.append({"method": "reread", **common, "calls": reread, "chars": reread * sizes.read})
        rows.append(
            {
                "method": "poll",
                **common,
                "calls": pages + poll_reads,
                "chars": pages * sizes.page
                + events * sizes.event
                + poll_reads * sizes.read_changed,
            }
        )
    push = counts.push
    n = push["notifications"]
    rows.append(
        {
            "method": "push",
            "interval_min": 0.0,
            "notifications": n,
            "mean_unnoticed_min": 0.0,
            "p95_unnoticed_min": 0.0,
            "calls": push["subscribes"] + 2 * n,
            "chars": 2 * (push["subscribes"] + n) + n * (sizes.notification + sizes.read_changed),
        }
    )
    table = pd.DataFrame(rows)
    table["cost"] = (table["calls"] + table["notifications"]) * costs.per_call + table[
        "chars"
    ] / 1000 * costs.per_1k_chars
    return table


def simulated(
    params: Params,
    seeds: int,
    workers: int | None = None,
    frames: StudyFrames | ExposureRows | None = None,
    costs: Costs | None = None,
) -> pd.DataFrame:
    """The same rows from N seeded days: the exposure runs of the report (given, or run), with
    the 95 % intervals (over seeds) of the minutes a change goes unnoticed and of the calls
    and characters a day, so that no simulated figure is printed without its interval."""
    from sim.stats import mean_interval, ratio_interval

    costs = Costs() if costs is None else costs
    from sim.study.experiments import run_study
    from sim.study.exposure import ExposureRows, exposure_rows, exposure_table

    if frames is None:
        frames = run_study(params, list(range(1, seeds + 1)), ("exposure",), workers, False)
    taken = frames.seeds(list(range(1, seeds + 1)))
    data = taken if isinstance(taken, ExposureRows) else exposure_rows(params, taken)
    t = exposure_table(params, data)
    t = t[t["method"].isin(METHODS)]
    spans = {}
    for (method, interval_s), g in data.rows.groupby(["method", "interval_s"]):
        u = ratio_interval(g["unnoticed_s"].to_numpy() / 60, g["changed"].to_numpy())
        cost = mean_interval(
            (
                (g["calls"] + g["notifications"]) * costs.per_call
                + g["result_chars"] / 1000 * costs.per_1k_chars
            ).to_numpy()
        )
        spans[method, interval_s / 60] = (u.lo, u.hi, cost.lo, cost.hi)
    keys = list(zip(t["method"], t["interval_min"], strict=True))
    none = (np.nan,) * len(SIM_SPANS)
    for i, name in enumerate(SIM_SPANS):
        t = t.assign(**{name: [spans.get(k, none)[i] for k in keys]})
    return t.rename(
        columns={
            "calls_per_day": "sim_calls",
            "notifications_per_day": "sim_notifications",
            "chars_per_day": "sim_chars",
            "mean_unnoticed_min": "sim_mean_unnoticed_min",
        }
    )[
        [
            "method",
            "interval_min",
            "sim_calls",
            "sim_notifications",
            "sim_chars",
            "sim_mean_unnoticed_min",
            *SIM_SPANS,
        ]
    ]


SIM_SPANS = ("sim_unnoticed_lo_min", "sim_unnoticed_hi_min", "sim_cost_lo", "sim_cost_hi")
"""The simulated figures' 95 % interval ends (over seeds): minutes unnoticed, cost a day."""

MODEL_MARGIN = 0.10
"""A simulated pick's 95 % interval must end this share under the target: the interval
covers the seeds' noise, the share the model's error (the closed forms' margin too,
``closed.CLOSED_FORM_MARGIN``). Without it the pick was the seed count's: on 10 seeds every
60 min reached past 30 min, on 50 others it ended at 29.9 min, a pick at its own edge."""


def meets(upper: Any, target_min: float) -> Any:
    """Whether a simulated 95 % interval's upper end meets the target with margin (at most
    MODEL_MARGIN under it); a number or a column of them."""
    return upper <= target_min * (1 - MODEL_MARGIN)


def advise(
    params: Params,
    costs: Costs,
    max_unnoticed_min: float,
    simulate: int = 0,
    workers: int | None = None,
    frames: StudyFrames | ExposureRows | None = None,
    sizes: Sizes | None = None,
) -> dict[str, Any]:
    """Every method's cheapest interval under the target, and the overall choice; with
    `frames`, the simulated columns come from those exposure runs instead of new ones, and
    with `sizes` (``measured_sizes`` of the same parameters) the sizes are not measured
    again, so several targets or costs cost one measurement. Else the sizes are measured in
    a second process while this one computes the closed forms."""
    sizes_measured = in_background(measured_sizes, params) if sizes is None else lambda: sizes
    with np.errstate(all="ignore"):  # an overflow at extreme rates shows as NaN, named below
        counts = closed_form_counts(params)
        measured = sizes_measured()
        table = closed_form(params, measured, costs, counts)
    computed = table[["cost", "mean_unnoticed_min"]].notna().all(axis=1)
    not_computed = sorted(set(table.loc[~computed, "method"]) - set(table.loc[computed, "method"]))
    meets = table[computed & (table["mean_unnoticed_min"] <= max_unnoticed_min)]
    best = meets.loc[meets.groupby("method")["cost"].idxmin()].sort_values("cost")
    if simulate:
        sim = simulated(params, simulate, workers, frames, costs)
        table = table.merge(sim, on=["method", "interval_min"], how="left")
        table["sim_cost"] = (
            table["sim_calls"] + table["sim_notifications"]
        ) * costs.per_call + table["sim_chars"] / 1000 * costs.per_1k_chars

        best = validated(table, best, max_unnoticed_min)
    choice = best.iloc[0] if len(best) else None
    return {
        "sizes": measured,
        "table": table,
        "best": best,
        "choice": choice,
        "seeds": simulate,
        "not_computed": not_computed,
    }


def validated(table: pd.DataFrame, best: pd.DataFrame, target_min: float) -> pd.DataFrame:
    """Each method's closed-form pick checked in simulation: where the simulated time a change
    goes unnoticed does not meet the target with margin (its 95 % interval's upper end over
    seeds above MODEL_MARGIN under it: ``meets``), the next shorter interval, until one does
    (none: the method drops out). Ordered by simulated cost; `closed_form_every` and
    `sim_miss_min` say what was stepped over and by how much its upper end missed."""
    import pandas as pd

    rows = []
    for _, pick in best.iterrows():
        g = table[table["method"] == pick["method"]]
        g = g[g["interval_min"] <= pick["interval_min"]].sort_values(
            "interval_min", ascending=False
        )
        # push notices at once: its interval is nil, whatever the seeds
        upper = g["sim_unnoticed_hi_min"].fillna(g["sim_mean_unnoticed_min"])
        ok = g[meets(upper, target_min)]
        if len(ok):
            rows.append(
                ok.iloc[0].to_dict()
                | {
                    "closed_form_every": pick["interval_min"],
                    "sim_miss_min": max(0.0, upper.iloc[0] - target_min * (1 - MODEL_MARGIN)),
                }
            )
    if not rows:
        return best.iloc[0:0]
    return pd.DataFrame(rows).sort_values("sim_cost")
