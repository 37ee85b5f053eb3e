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
"""

from __future__ import annotations

import gc
import multiprocessing
import statistics
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from sim import theory
from sim.kb.store import KBStore
from sim.model.day import run_day
from sim.model.opening import DAY_START_US, KB_ID, Opening
from sim.params import Params
from sim.server import resources
from sim.server.tools import KBServer, structured_json

if TYPE_CHECKING:
    import pandas as pd

    from sim.experiments import StudyFrames
    from sim.report.exposure import ExposureRows

# pandas and the study's runner are imported where the closed forms are tabulated, after
# the sizes' process has forked, so that the two processes import them in parallel.
_T = TypeVar("_T")

METHODS = ("reread", "poll", "push")
LABELS = {"reread": "re-read all cited", "poll": "poll (cursor kept)", "push": "push (subscribe)"}


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
    fork = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(1, mp_context=fork, initializer=gc.freeze)  # as run_requests
    future = pool.submit(work, *args)

    def result() -> _T:
        try:
            return future.result()
        finally:
            pool.shutdown()  # the process and the pool's thread end before anything else forks

    return result


@dataclass(frozen=True)
class Counts:
    """The closed forms' expected counts, which need no result sizes: per check interval
    (seconds) the mean and p95 unnoticed time, poll pages, re-read and poll reads and
    events paged; and push's subscribes and notifications."""

    per_interval: list[tuple[float, dict[str, float]]]
    push: dict[str, float]


def closed_form_counts(params: Params) -> Counts:
    from sim.experiments import SWEEP_INTERVALS_S

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
) -> pd.DataFrame:
    """The same rows from N seeded days: the exposure runs of the report (given, or run), with
    the 95 % interval's upper end of the minutes a change goes unnoticed (over seeds)."""
    from sim.experiments import run_study
    from sim.report.exposure import ExposureRows, exposure_rows, exposure_table
    from sim.stats import ratio_interval

    if frames is None:
        frames = run_study(params, list(range(1, seeds + 1)), ("exposure",), workers, False)
    taken = frames.seeds(list(range(1, seeds + 1)))
    data = taken if isinstance(taken, ExposureRows) else exposure_rows(params, taken)
    t = exposure_table(params, data)
    t = t[t["method"].isin(METHODS)]
    hi = {
        (method, interval_s / 60): ratio_interval(
            g["unnoticed_s"].to_numpy() / 60, g["changed"].to_numpy()
        ).hi
        for (method, interval_s), g in data.rows.groupby(["method", "interval_s"])
    }
    t = t.assign(
        sim_unnoticed_hi_min=[
            hi.get(k, np.nan) for k in zip(t["method"], t["interval_min"], strict=True)
        ]
    )
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
            "sim_unnoticed_hi_min",
        ]
    ]


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
        sim = simulated(params, simulate, workers, frames)
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
    seeds above it), the next shorter interval, until one does (none: the method drops out).
    Ordered by simulated cost; `closed_form_every` and `sim_miss_min` say what was stepped
    over and by how much its upper end missed."""
    import pandas as pd

    rows = []
    for _, pick in best.iterrows():
        g = table[table["method"] == pick["method"]]
        g = g[g["interval_min"] <= pick["interval_min"]].sort_values(
            "interval_min", ascending=False
        )
        # push notices at once: its interval is nil, whatever the seeds
        upper = g["sim_unnoticed_hi_min"].fillna(g["sim_mean_unnoticed_min"])
        ok = g[upper <= target_min]
        if len(ok):
            rows.append(
                ok.iloc[0].to_dict()
                | {
                    "closed_form_every": pick["interval_min"],
                    "sim_miss_min": max(0.0, upper.iloc[0] - target_min),
                }
            )
    if not rows:
        return best.iloc[0:0]
    return pd.DataFrame(rows).sort_values("sim_cost")


def _upper(row: Any) -> str:
    hi = row.get("sim_unnoticed_hi_min")
    return "" if hi is None or not np.isfinite(hi) else f" (95 % interval up to {hi:.1f} min)"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 10 else f"{x:.1f}"


def render(params: Params, costs: Costs, max_unnoticed_min: float, result: dict[str, Any]) -> str:
    best, choice = result["best"], result["choice"]
    head = (
        f"A KB of {params.n_articles:,} articles, {params.n_saves:,} saves and "
        f"{params.n_questions:,} questions in a {params.day_s / 3600:g}-hour day, "
        f"Zipf {params.zipf_s:g}, "
        f"{params.citations_per_answer} citations an answer; a call or notification costs "
        f"{costs.per_call:g}, 1,000 characters {costs.per_1k_chars:g}. Target: a change to a "
        f"cited article goes unnoticed {max_unnoticed_min:g} min or less on average."
    )
    unranked = _unranked(result)
    if choice is None:
        return "\n".join(x for x in (head, _no_choice(result), unranked) if x)
    when = _when(choice)
    sim = "sim_cost" in best
    seeds = result.get("seeds", 0)
    if sim:
        checked = (
            f"In simulation ({seeds} seeds) it leaves a change unnoticed "
            f"{choice['sim_mean_unnoticed_min']:.1f} min on average"
            + _upper(choice)
            + f" and costs {_fmt(choice['sim_cost'])} a day."
        )
        stepped = [
            f"{LABELS[r['method']]}: the closed form's {r['closed_form_every']:g} min misses the "
            f"target with margin in simulation (its 95 % interval's upper end by "
            f"{r['sim_miss_min']:.1f} min), so {r['interval_min']:g} min"
            for _, r in best.iterrows()
            if r["sim_miss_min"] > 0
        ]
        if stepped:
            checked += " Stepped to a shorter interval: " + "; ".join(stepped) + "."
    else:
        checked = (
            "Not checked in simulation: --simulate N runs N days and steps to a shorter "
            "interval where the simulated time unnoticed does not meet the target with margin."
        )
    lines = [
        head,
        f"Use {LABELS[choice['method']]}, {when}: {_fmt(choice['calls'])} calls, "
        f"{_fmt(choice['notifications'])} notifications and {_fmt(choice['chars'])} characters a "
        f"day, a change unnoticed {choice['mean_unnoticed_min']:.1f} min on average; cost "
        f"{_fmt(choice['cost'])} a day (closed form). {checked}",
        "",
    ]
    cols = ["method", "every", "calls/day", "notif./day", "chars/day", "unnoticed min", "cost"]
    cols += ["sim calls", "sim notif.", "sim chars", "sim unnoticed", "sim cost"] if sim else []
    rows = []
    for _, r in best.iterrows():
        row = [
            LABELS[r["method"]],
            "change" if r["method"] == "push" else f"{r['interval_min']:g} min",
            _fmt(r["calls"]),
            _fmt(r["notifications"]),
            _fmt(r["chars"]),
            f"{r['mean_unnoticed_min']:.1f}",
            _fmt(r["cost"]),
        ]
        if sim:
            row += [
                _fmt(r["sim_calls"]),
                _fmt(r["sim_notifications"]),
                _fmt(r["sim_chars"]),
                f"{r['sim_mean_unnoticed_min']:.1f}",
                _fmt(r["sim_cost"]),
            ]
        rows.append(row)
    widths = [max(len(str(x)) for x in col) for col in zip(cols, *rows, strict=True)]
    for row in (cols, *rows):
        lines.append("  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip())
    lines.append(
        "Each row: the method's cheapest check interval that meets the target"
        + (" with margin in simulation (95 % interval over seeds)." if sim else " (closed form).")
        + (
            " Re-read and poll stop checking an article once its citations are all known"
            " stale, as push unsubscribes."
            if params.stop_checking_known_stale
            else " Re-read and poll check every held citation at every check."
        )
    )
    if unranked:
        lines.append(unranked)
    return "\n".join(lines)


def as_json(
    params: Params, costs: Costs, max_unnoticed_min: float, result: dict[str, Any]
) -> dict[str, Any]:
    choice = result["choice"]
    return {
        "inputs": {
            "articles": params.n_articles,
            "saves_per_day": params.n_saves,
            "questions_per_day": params.n_questions,
            "day_hours": params.day_s / 3600,
            "zipf_s": params.zipf_s,
            "citations_per_answer": params.citations_per_answer,
            "cost_per_call": costs.per_call,
            "cost_per_1k_chars": costs.per_1k_chars,
            "max_unnoticed_min": max_unnoticed_min,
        },
        "sizes_chars": vars(result["sizes"]),
        "choice": None if choice is None else {k: _plain(v) for k, v in choice.items()},
        "verdict": _verdict(result),
        "not_computed": result.get("not_computed", []),
        "rows": [{k: _plain(v) for k, v in r.items()} for r in result["table"].to_dict("records")],
    }


def _plain(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    return None if isinstance(v, float) and v != v else v


def _unranked(result: dict[str, Any]) -> str:
    """The sentence naming methods whose closed form overflowed at these rates, or ''."""
    missing = result.get("not_computed", [])
    if not missing:
        return ""
    names = ", ".join(LABELS[m] for m in missing)
    return (
        f"Not ranked, their closed forms overflowing at these rates (neither recommended nor "
        f"ruled out): {names}."
        if len(missing) > 1
        else f"Not ranked: {names}: its closed form could not be computed at these rates "
        "(numeric overflow), so it is neither recommended nor ruled out."
    )


def _no_choice(result: dict[str, Any]) -> str:
    missing = result.get("not_computed", [])
    if set(LABELS) <= set(missing):
        return "No method can be ranked at these rates: every closed form overflowed."
    push = "" if "push" in missing else "; push notices at once"
    return f"No method meets the target within 1 min – 4 h checks{push}."


def _when(choice: Any) -> str:
    return (
        "on every change" if choice["method"] == "push" else f"every {choice['interval_min']:g} min"
    )


def _verdict(result: dict[str, Any]) -> str:
    choice = result["choice"]
    if choice is None:
        return _no_choice(result)
    return f"Use {LABELS[choice['method']]}, {_when(choice)}."
