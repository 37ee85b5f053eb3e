"""The study's four runs per seed, over many seeds, on all local cores.

Every seed runs the same day four ways: the staleness run (Zipf saves), the even
control, the CAS run on the delay ladder, and the CAS run on the log-spaced
delay curve. Random streams are per process, so the four see the same questions
and, where the popularity is the same, the same human saves; they open on one
shared copy of the seed's corpus.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd
from tqdm import tqdm

from sim.model.day import DayResult, run_day
from sim.model.opening import Opening
from sim.model.records import as_row
from sim.params import Params

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
            return replace(base, push=True, sweep_intervals_s=SWEEP_INTERVALS_S)
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


def _rows(result: DayResult, experiment: str) -> dict[str, list[dict]]:
    tag = {"experiment": experiment}
    calls = Counter()
    chars = Counter()
    for c in result.calls:
        key = (c.client_id, c.tool, c.outcome)
        calls[key] += 1
        chars[key] += c.result_chars
    return {
        "days": [{**tag, **as_row(result.day)}],
        "citations": [{**tag, **as_row(r)} for r in result.citations],
        "checks": [{**tag, **as_row(r)} for r in result.checks],
        "edits": [{**tag, **as_row(r)} for r in result.edits],
        "saves": [{**tag, **as_row(r)} for r in result.saves],
        "detections": [{**tag, **as_row(r)} for r in result.detections],
        "cadence": [{**tag, **as_row(r)} for r in result.cadence],
        "calls": [
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
        ],
    }


@functools.lru_cache(maxsize=1)
def _opening(seed: int, n_articles: int) -> Opening:
    """The seed's opening, kept for the process's next run of the same seed: the grids run
    a seed's points one after another (``run_points``), and a day only ever copies it."""
    return Opening.build(seed, n_articles)


def run_seed(base: Params, seed: int, experiments: tuple[str, ...] = EXPERIMENTS) -> dict:
    rows: dict[str, list[dict]] = {}
    opening = _opening(seed, base.n_articles)
    for experiment in experiments:
        params = experiment_params(base, experiment)
        for name, part in _rows(run_day(params, seed, opening), experiment).items():
            rows.setdefault(name, []).extend(part)
    return rows


def _run_seed_args(args: tuple[Params, int, tuple[str, ...]]) -> dict:
    return run_seed(*args)


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
    return StudyFrames.concat(run_points(points, seeds, experiments, workers, progress))


def run_points(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = EXPERIMENTS,
    workers: int | None = None,
    progress: bool = True,
) -> list[StudyFrames]:
    """run_study for each parameter set, all in one pool; one StudyFrames per point."""
    workers = workers or os.cpu_count() or 1
    # seed by seed, every point of a seed in turn: a worker opens each seed's KB once
    jobs = [(p, s, experiments) for s in seeds for p in points]
    if workers == 1 or len(jobs) == 1:
        results = map(_run_seed_args, jobs)
        pool = None
    else:
        pool = ProcessPoolExecutor(max_workers=workers)
        results = pool.map(_run_seed_args, jobs, chunksize=max(1, len(jobs) // (8 * workers)))
    merged: list[dict[str, list[dict]]] = [{} for _ in points]
    try:
        bar = tqdm(results, total=len(jobs), desc="seeds", unit="seed", disable=not progress)
        for i, rows in enumerate(bar):  # each point's rows still come in seed order
            for name, part in rows.items():
                merged[i % len(points)].setdefault(name, []).extend(part)
    finally:
        if pool is not None:
            pool.shutdown()
    return [StudyFrames.from_rows(m) for m in merged]
