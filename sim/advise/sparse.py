"""Days to a precision for a sparse edit process (`advise --edit-log`): each figure on the
days it needs (``sim.advise.sampled``'s docstring says which), in one pool of workers.

On the shared log a day holds about one save and four days in five none, so the write-up's
exposure day (every interval's re-read of every held article, nine tenths of its calls)
run on every seed spent the time cap before the precision. Here the first days run in
full until the costs are known; after them a day is simulated only if its drawn schedule
has a save inside the day, and then with only the checks whose unnoticed times are read.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import pandas as pd

from sim import rng
from sim.advise import Costs, sampled
from sim.model.day import Day
from sim.model.schedule import draw_schedule
from sim.params import Params
from sim.pools import ending_with_caller, local_pool
from sim.server.reads import count

EXPOSURE_RECORDS = ("citations", "calls", "detections", "cadence")
"""The record types exposure rows read (of a day without the hourly checker)."""
Task = tuple[Params, int, tuple[str, ...], bool]
"""A day: its parameters, seed, the sweep's methods, and whether it is a cost day (run
even without a save)."""


def day_rows(task: Task) -> pd.DataFrame | None:
    """The day's exposure rows; None for a day after the cost days with no save inside it
    (not simulated: nothing changes in it)."""
    from sim.study.experiments import _opening, _rows, frames_of
    from sim.study.exposure import exposure_rows

    params, seed, methods, full = task
    if not full and draw_schedule(params, rng.streams(seed), seed).day_saves == 0:
        return None
    day = type("SweepDay", (Day,), {"sweep_methods": methods})(
        params, seed, _opening(seed, params.n_articles, params.corpus_db, params.corpus_queries)
    )
    f = frames_of([_rows(day.run(), "staleness", EXPOSURE_RECORDS)])
    f = replace(f, checks=sampled.NO_CHECKS)
    if f.detections.empty:
        f = replace(f, detections=sampled.NO_DETECTIONS)
    if f.citations.empty:
        f = replace(f, citations=sampled.NO_CITATIONS)
    return exposure_rows(params, f).rows


REREAD_DAYS = 2
"""Cost days run with the re-read before it may be found dominated by the poll (the
first batch): a re-read of every held article at every check of every interval is most
of a full day's work, and on a sparse log it costs some hundred times the poll."""


LIGHT_BATCH = 4
"""Days in a batch after the cost days at least (a count of days, not of workers: the
batches, and with them where the days stop, are the same on any machine)."""


def day_pool(workers: int) -> ProcessPoolExecutor | None:
    if workers == 1 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    return local_pool(workers, fork=True)  # workers that end with this process


def run_sparse(
    processes: dict[str, Params],
    costs: Costs,
    target_min: float,
    want: sampled.Precision,
    workers: int = 2,
    fixed_days: int = 0,
    say: Callable[[str], object] = print,
) -> tuple[dict[str, sampled.Sample], str]:
    """Seeds 1, 2, ... for every process, in batches, until every process's unnoticed times
    and its chosen option's cost are precise (or `fixed_days` seeds exactly, all in full);
    the samples and why it stopped. Results do not depend on the worker count or the
    machine's speed: a day is a pure function of its task, the rows are taken in the tasks'
    order, and the batches are counted in days (LIGHT_BATCH). Raises ``sampled.TimeLimit``
    where the safety stop passes before the days are done."""
    runs = {
        n: _Runs(
            replace(
                p,
                push=True,
                sweep_intervals_s=sampled.swept_intervals(target_min, p.day_s),
                run_checker=False,
            )
        )
        for n, p in processes.items()
    }
    samples = {n: sampled.Sample(p, cost_days=0) for n, p in processes.items()}
    cap = fixed_days or want.max_days
    pool = day_pool(workers)
    with ending_with_caller(pool):  # its workers killed if this is left by an exception
        while True:
            plan = {n: r.next(cap, fixed_days) for n, r in runs.items()}
            plan = {n: p for n, p in plan.items() if p[1]}
            if not plan:
                why = "the days asked for were run" if fixed_days else "the cap on days was reached"
                return samples, why
            # by seed, a seed's processes in one chunk: a worker opens the seed's KB once
            named = sorted(
                (
                    (seed, n, (runs[n].params, seed, runs[n].light, f))
                    for n, (f, seeds) in plan.items()
                    for seed in seeds
                ),
                key=lambda x: x[0],
            )
            tasks = [t for _, _, t in named]
            names = [n for _, n, _ in named]
            chunk = len(plan)
            rows = list(
                pool.map(day_rows, tasks, chunksize=chunk) if pool else map(day_rows, tasks)
            )
            for task, r, n in zip(tasks, rows, names, strict=True):
                runs[n].add(task[1], task[3], r)
            for n, r in runs.items():
                r.fill(samples[n], costs)
            spent = time.monotonic() - want.started
            tables = {n: sampled.options(s, costs) for n, s in samples.items()}
            for n, r in runs.items():
                r.judge(tables[n], target_min, want, costs)
            say(progress_line(samples, tables, spent))
            if fixed_days:
                continue
            if all(r.unnoticed_known and r.cost_known for r in runs.values()):
                return samples, "the precision asked for was reached"
            sampled.stop_if_late(want, max(s.days for s in samples.values()))


class _Runs:
    """One process's days so far: rows by seed, which were run in full, which were quiet."""

    def __init__(self, params: Params) -> None:
        self.params = params
        """The exposure day's parameters."""
        self.rows: dict[int, pd.DataFrame] = {}
        self.quiet: set[int] = set()
        self.cost_days = 0
        self.done = 0
        self.light: tuple[str, ...] = sampled.SWEPT_METHODS
        self.unnoticed_known = False
        self.cost_known = False
        self.more = 0
        """Days the unnoticed times' precision needs beyond those run, by the square-root
        law (0: not known yet; the batch then doubles the days)."""

    def next(self, cap: int, fixed: int) -> tuple[bool, list[int]]:
        """The next batch: (in full?, seeds). Full days extend the prefix the costs rest
        on (a seed run light before is run again in full: the same day, with every check);
        light days extend the sample of unnoticed times."""
        if (
            fixed
            or self.cost_days < sampled.MIN_COST_DAYS
            or (self.unnoticed_known and not self.cost_known)
        ):
            size = REREAD_DAYS if self.cost_days == 0 else max(self.cost_days, 2)
            if self.cost_days < sampled.MIN_COST_DAYS:
                size = max(1, min(size, sampled.MIN_COST_DAYS - self.cost_days))
            return True, list(range(self.cost_days + 1, min(self.cost_days + size, cap) + 1))
        if self.unnoticed_known:
            return False, []
        # the square-root law's days, at least a quarter more (its estimate is a floor on a
        # heavy-tailed log) and at most double
        size = max(LIGHT_BATCH, min(self.done, max(self.more, self.done // 4)))
        return False, list(range(self.done + 1, min(self.done + size, cap) + 1))

    def add(self, seed: int, full: bool, rows: pd.DataFrame | None) -> None:
        self.quiet.discard(seed)
        self.rows.pop(seed, None)
        if rows is None:
            self.quiet.add(seed)
        else:
            self.rows[seed] = rows
        if full:
            self.cost_days = max(self.cost_days, seed)
        self.done = max(self.done, seed)

    def fill(self, sample: sampled.Sample, costs: Costs) -> None:
        sample.rows = [self.rows[k] for k in sorted(self.rows)]
        sample.quiet = sorted(self.quiet)
        sample.cost_days = self.cost_days
        enough = self.cost_days >= REREAD_DAYS
        if "reread" in self.light and enough and sampled.reread_dominated(sample, costs):
            self.light = ("poll",)

    def judge(
        self, table: pd.DataFrame, target_min: float, want: sampled.Precision, costs: Costs
    ) -> None:
        self.unnoticed_known = sampled.precise(table, target_min, want)
        self.more = sampled.more_days(table, target_min, want, self.done)
        self.cost_known = self.cost_days >= sampled.MIN_COST_DAYS and sampled.cost_known(
            table, target_min, want, costs
        )


def progress_line(
    samples: dict[str, sampled.Sample], tables: dict[str, pd.DataFrame], spent: float
) -> str:
    """'advise: calibrated 24 simulated days (4 in full, 13 without a save), 6 changed
    cited articles; ... (29 s)'."""
    parts = []
    for n, s in samples.items():
        t = tables[n]
        changed = int(t["changed"].max()) if len(t) else 0
        parts.append(
            f"{n} {count(s.days, 'simulated day')} ({s.cost_days} in full, {len(s.quiet)} "
            f"without a save), {count(changed, 'changed cited article')}"
        )
    return "advise: " + "; ".join(parts) + f" ({spent:.0f} s)"
