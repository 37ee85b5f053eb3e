"""The study's four runs per seed, over many seeds, on all local cores.

Every seed runs the same day four ways: the staleness run (Zipf saves), the even
control, the CAS run on the delay ladder, and the CAS run on the log-spaced
delay curve. Random streams are per process, so the four see the same questions
and, where the popularity is the same, the same human saves; they open on one
shared copy of the seed's corpus. Some 380 lines: the experiments, the frames their days
give and the runner that schedules each distinct day once (locally, on all cores, or on
Dask) share one request type, and a split would cut that contract in two.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from sim.model.day import DayResult, run_day
from sim.model.opening import Opening
from sim.model.records import as_row
from sim.params import Params
from sim.pools import ending_with_caller, local_pool

CURVE_DELAYS_S: tuple[float, ...] = tuple(float(d) for d in np.round(np.geomspace(1, 8 * 3600, 13)))
"""13 log-spaced delays from 1 s to 8 h, whole seconds."""

SWEEP_INTERVALS_S: tuple[float, ...] = tuple(60.0 * m for m in (1, 2, 4, 8, 15, 30, 60, 120, 240))
"""Check intervals of the exposure sweep: 1 min to 4 h, about doubling, the hour included."""

EXPERIMENTS = ("staleness", "control", "cas", "cas_curve")
"""The write-up's four runs; 'exposure' (the Zipf day with the interval sweep and push)
is run on its own."""
WRITEUP_SEEDS = [1, 2, 3, 4, 5]


def experiment_params(base: Params, experiment: str) -> Params:
    match experiment:
        case "staleness":
            return base
        case "control":
            return replace(base, save_popularity="even")
        case "cas":
            return replace(base, agent_edits=True, run_checker=False)
        case "cas_curve":
            return replace(base, agent_edits=True, run_checker=False, edit_delays_s=CURVE_DELAYS_S)
        case "exposure":
            # the base's own sweep where it names one (a quick run's subset), else the study's
            swept = base.sweep_intervals_s or SWEEP_INTERVALS_S
            return replace(base, push=True, sweep_intervals_s=swept)
    raise ValueError(
        f"experiment: expected one of {(*EXPERIMENTS, 'exposure')}; received {experiment!r}"
    )


@dataclass
class StudyFrames:
    """All records of a set of runs, one tidy frame per record type."""

    days: pd.DataFrame
    citations: pd.DataFrame
    checks: pd.DataFrame
    edits: pd.DataFrame
    saves: pd.DataFrame
    calls: pd.DataFrame
    """Tool calls counted per (experiment, seed, client, tool, outcome), with result chars."""
    detections: pd.DataFrame
    cadence: pd.DataFrame

    def seeds(self, seeds: list[int]) -> StudyFrames:
        return StudyFrames(
            *(
                f[f["seed"].isin(seeds)].reset_index(drop=True) if "seed" in f else f
                for f in self.frames()
            )
        )

    def frames(self) -> tuple[pd.DataFrame, ...]:
        return tuple(getattr(self, f.name) for f in fields(self))

    @staticmethod
    def from_rows(rows: dict[str, list[dict]]) -> StudyFrames:
        """Frames from run_seed's rows, one list per record type (missing types are empty)."""
        return StudyFrames(*(pd.DataFrame(rows.get(f.name, [])) for f in fields(StudyFrames)))

    @staticmethod
    def concat(parts: list[StudyFrames]) -> StudyFrames:
        def joined(group: tuple[pd.DataFrame, ...]) -> pd.DataFrame:
            filled = [f for f in group if not f.empty]
            return pd.concat(filled, ignore_index=True) if filled else group[0]

        return StudyFrames(*(joined(g) for g in zip(*(p.frames() for p in parts), strict=True)))


RECORDS = tuple(f.name for f in fields(StudyFrames))
"""Every record type a day gives."""


def _rows(
    result: DayResult, experiment: str, records: tuple[str, ...] = RECORDS
) -> dict[str, list[dict]]:
    """The day's rows of each of `records` (the others are not made)."""
    tag = {"experiment": experiment}
    listed: dict[str, Sequence[object]] = {
        "citations": result.citations,
        "checks": result.checks,
        "edits": result.edits,
        "saves": result.saves,
        "detections": result.detections,
        "cadence": result.cadence,
    }
    out: dict[str, list[dict]] = {}
    for name in records:
        if name == "days":
            out[name] = [{**tag, **as_row(result.day)}]
        elif name == "calls":
            out[name] = _call_rows(result, tag)
        else:
            out[name] = [{**tag, **as_row(r)} for r in listed[name]]
    return out


def _call_rows(result: DayResult, tag: dict[str, str]) -> list[dict]:
    calls: Counter[tuple[str, str, str]] = Counter()
    chars: Counter[tuple[str, str, str]] = Counter()
    for c in result.calls:
        key = (c.client_id, c.tool, c.outcome)
        calls[key] += 1
        chars[key] += c.result_chars
    return [
        {
            **tag,
            "seed": result.seed,
            "client_id": k[0],
            "tool": k[1],
            "outcome": k[2],
            "calls": n,
            "result_chars": chars[k],
        }
        for k, n in sorted(calls.items())
    ]


@functools.lru_cache(maxsize=1)
def _opening(seed: int, n_articles: int, corpus_db: str = "", queries: str = "") -> Opening:
    """The seed's opening, kept for the process's next run of the same seed: every day of
    a seed runs in one task (``run_requests``), and a day only ever copies it."""
    return Opening.build(seed, n_articles, corpus_db, queries)


SeedRows = dict[str, list[dict]]
"""One seed's records, one list of rows per record type (as ``StudyFrames.from_rows`` takes)."""


def run_seed(base: Params, seed: int, experiments: tuple[str, ...] = EXPERIMENTS) -> SeedRows:
    rows: SeedRows = {}
    for day in _seed_days(seed, [(experiment_params(base, e), e) for e in experiments]):
        for name, part in day.items():
            rows.setdefault(name, []).extend(part)
    return rows


DayKey = tuple[Params, str]
"""A day of a seed: its parameters (the experiment's, ``experiment_params``) and the
experiment it is recorded under."""


def _seed_days(
    seed: int, days: list[DayKey], records: list[tuple[str, ...]] | None = None
) -> list[SeedRows]:
    """Each day of one seed, on the seed's opening, with the record types asked of it."""
    return [
        _rows(
            run_day(
                params,
                seed,
                _opening(seed, params.n_articles, params.corpus_db, params.corpus_queries),
            ),
            experiment,
            kept,
        )
        for (params, experiment), kept in zip(days, records or [RECORDS] * len(days), strict=True)
    ]


def _seed_days_args(args: tuple[int, list[DayKey], list[tuple[str, ...]]]) -> list[SeedRows]:
    return _seed_days(*args)


@dataclass(frozen=True)
class Request:
    """Days an experiment needs: every point on every seed, one day per experiment."""

    points: tuple[Params, ...]
    seeds: tuple[int, ...]
    experiments: tuple[str, ...] = EXPERIMENTS
    records: tuple[str, ...] = RECORDS
    """The record types its user reads; a day no request reads another of keeps only these."""

    def days(self, point: Params) -> list[DayKey]:
        return [(experiment_params(point, e), e) for e in self.experiments]


PointRuns = list[list[SeedRows]]
"""Per point of a request, per seed in the request's order: that seed's rows (its days'
rows in the order of the request's experiments, as ``run_seed`` gives them)."""


def run_requests(
    requests: list[Request],
    workers: int | None = None,
    progress: bool = True,
    scheduler: str | None = None,
) -> Iterator[tuple[int, PointRuns]]:
    """Every request's days in one pool, seed by seed (a seed's days in one task, so a worker
    opens each seed's KB once), each distinct day once: requests wanting the same day (same
    parameters, seed and experiment) share its rows. Yields (index, runs) for each request
    as soon as its last seed is in, so its rows can become frames and the day rows no other
    request needs be let go. With ``scheduler`` (a Dask scheduler's address) the seeds' tasks
    run on that cluster instead. Results do not depend on the worker count or the cluster: a
    task is a pure function of its seed and days, and its rows are taken in the tasks' order."""
    days = [[r.days(p) for p in r.points] for r in requests]
    users, kept = _day_users(requests, days)
    by_seed: dict[int, list[DayKey]] = {}
    for s, d in users:
        by_seed.setdefault(s, []).append(d)
    tasks = [
        (s, ds, [tuple(n for n in RECORDS if n in kept[(s, d)]) for d in ds])
        for s, ds in sorted(by_seed.items())
    ]
    done_at: dict[int, list[int]] = {}
    for i, r in enumerate(requests):
        done_at.setdefault(max(r.seeds, default=0), []).append(i)
    no_seeds: Iterator[tuple[int, PointRuns]] = (
        (i, [[] for _ in requests[i].points]) for i in done_at.pop(0, [])
    )
    yield from no_seeds
    workers = workers or os.cpu_count() or 1
    pool = None
    if scheduler is not None:
        results: Iterator[list[SeedRows]] = _on_cluster(scheduler, tasks)
    elif workers == 1 or len(tasks) <= 1:
        results = map(_seed_days_args, tasks)
    else:  # workers that end with this process (sim/pools.py)
        pool = local_pool(min(workers, len(tasks)))
        results = pool.map(_seed_days_args, tasks)
    day_rows: dict[tuple[int, DayKey], SeedRows] = {}
    bar = tqdm(total=len(users), desc="days", unit="day", disable=not progress)
    with ending_with_caller(pool), contextlib.closing(bar):
        for (seed, seed_days, _), rows in zip(tasks, results, strict=True):
            bar.update(len(seed_days))
            day_rows.update({(seed, d): r for d, r in zip(seed_days, rows, strict=True)})
            for i in done_at.get(seed, []):
                yield i, _point_runs(requests[i], days[i], day_rows)
                for key in {(s, d) for s in requests[i].seeds for ds in days[i] for d in ds}:
                    users[key] -= 1
                    if not users[key]:
                        del day_rows[key]


def _on_cluster(scheduler: str, tasks: list) -> Iterator[list[SeedRows]]:
    """The tasks' results from a Dask cluster, in the tasks' order, each as soon as it and
    those before it are in."""
    from dask.distributed import Client  # the optional `dask` extra

    with Client(scheduler) as client:
        futures = client.map(_seed_days_args, tasks, pure=False)
        try:
            for f in futures:
                yield f.result()
                f.release()
        finally:
            client.cancel(futures)


def _day_users(
    requests: list[Request], days: list[list[list[DayKey]]]
) -> tuple[dict[tuple[int, DayKey], int], dict[tuple[int, DayKey], set[str]]]:
    """Each distinct day (seed, key) of the requests: how many requests use it, and the
    record types they read of it."""
    users: dict[tuple[int, DayKey], int] = {}
    kept: dict[tuple[int, DayKey], set[str]] = {}
    for r, point_days in zip(requests, days, strict=True):
        for s in r.seeds:
            for key in dict.fromkeys((s, d) for ds in point_days for d in ds):
                users[key] = users.get(key, 0) + 1
                kept.setdefault(key, set()).update(r.records)
    return users, kept


def distinct_days(requests: list[Request]) -> int:
    """The days run_requests runs for these requests: each distinct day once."""
    return len(_day_users(requests, [[r.days(p) for p in r.points] for r in requests])[0])


def _point_runs(
    r: Request, days: list[list[DayKey]], day_rows: dict[tuple[int, DayKey], SeedRows]
) -> PointRuns:
    out: PointRuns = []
    for point_days in days:
        runs = []
        for s in r.seeds:
            rows: SeedRows = {}
            for d in point_days:
                for name, part in day_rows[(s, d)].items():
                    rows.setdefault(name, []).extend(part)
            runs.append(rows)
        out.append(runs)
    return out


def run_all(
    requests: list[Request],
    workers: int | None = None,
    progress: bool = True,
    scheduler: str | None = None,
) -> list[PointRuns]:
    """run_requests' runs, in the requests' order."""
    got = dict(run_requests(requests, workers, progress, scheduler))
    return [got[i] for i in range(len(requests))]


def study_frames(runs: PointRuns) -> StudyFrames:
    """Every point's frames together, as run_grid gives them."""
    return StudyFrames.concat([frames_of(r) for r in runs])


def frames_of(runs: list[SeedRows]) -> StudyFrames:
    """One point's frames from its seeds' rows, in seed order."""
    merged: SeedRows = {}
    for rows in runs:
        for name, part in rows.items():
            merged.setdefault(name, []).extend(part)
    return StudyFrames.from_rows(merged)


def run_study(
    base: Params,
    seeds: list[int],
    experiments: tuple[str, ...] = EXPERIMENTS,
    workers: int | None = None,
    progress: bool = True,
) -> StudyFrames:
    """Run every experiment for every seed; results do not depend on the worker count."""
    return run_grid([base], seeds, experiments, workers, progress)


def run_grid(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = EXPERIMENTS,
    workers: int | None = None,
    progress: bool = True,
) -> StudyFrames:
    """run_study for several parameter sets in one pool, their records together (they must
    carry what tells the points apart)."""
    [runs] = run_all([Request(tuple(points), tuple(seeds), experiments)], workers, progress)
    return study_frames(runs)


def run_points(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = EXPERIMENTS,
    workers: int | None = None,
    progress: bool = True,
) -> list[StudyFrames]:
    """run_study for each parameter set, all in one pool; one StudyFrames per point."""
    [runs] = run_all([Request(tuple(points), tuple(seeds), experiments)], workers, progress)
    return [frames_of(r) for r in runs]
