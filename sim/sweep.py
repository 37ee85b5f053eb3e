"""`python -m sim sweep`: a parameter grid × seeds → one tidy table, one row per run.

Runs on all local cores by default. Given the address of an existing Dask cluster
(``dask.distributed``) it sends the same runs there instead; each run is a pure
function of (params, seed), so the table is the same wherever it ran.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import fields, replace
from typing import Any

import pandas as pd
from tqdm import tqdm

from sim.experiments import StudyFrames, run_seed
from sim.metrics import per_seed
from sim.params import Params

DEFAULT_EXPERIMENTS = ("staleness", "control", "cas")


def grid(base: Params, axes: dict[str, list[Any]]) -> list[Params]:
    """Every combination of the axes' values, each validated as a Params."""
    names = list(axes)
    return [
        replace(base, **dict(zip(names, values, strict=True)))
        for values in itertools.product(*(axes[n] for n in names))
    ]


def parse_axis(text: str) -> tuple[str, list[Any]]:
    """'name=v1,v2,...' with values of the field's type, e.g. 'zipf_s=0,0.5,0.9'."""
    name, sep, values = text.partition("=")
    types = {f.name: type(getattr(Params(), f.name)) for f in fields(Params)}
    if not sep or name not in types:
        raise ValueError(
            f"grid axis {text!r}: expected name=v1,v2,... with name one of {', '.join(types)}"
        )
    kind = types[name]
    if kind is tuple:
        raise ValueError(f"grid axis {name!r}: tuple-valued fields cannot be swept here")
    if kind is bool:
        return name, [v.strip().lower() in ("1", "true", "yes") for v in values.split(",")]
    return name, [kind(v) for v in values.split(",")]


def run_point(params: Params, seed: int, experiments: tuple[str, ...]) -> dict[str, Any]:
    """One run: every parameter as a column, then the headline quantities of that seed."""
    rows = run_seed(params, seed, experiments)
    frames = StudyFrames.from_rows(rows)
    metrics = per_seed(frames).iloc[0].to_dict()
    flat = {k: (str(v) if isinstance(v, tuple) else v) for k, v in params.as_dict().items()}
    return {**flat, **metrics, "seed": seed, "experiments": ",".join(experiments)}


def _run_point_args(args: tuple[Params, int, tuple[str, ...]]) -> dict[str, Any]:
    return run_point(*args)


def sweep(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = DEFAULT_EXPERIMENTS,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> pd.DataFrame:
    # seed by seed, so a local worker opens each seed's KB once (experiments.run_points);
    # the table lists the runs point by point, then seed by seed, wherever they ran
    jobs = [(p, s, experiments) for s in seeds for p in points]
    bar = tqdm(total=len(jobs), desc="runs", unit="run", disable=not progress)
    if scheduler is not None:
        from dask.distributed import Client, as_completed

        with Client(scheduler) as client:
            futures = client.map(_run_point_args, jobs, pure=False)
            for _ in as_completed(futures):
                bar.update()
            rows = client.gather(futures)
    else:
        workers = workers or os.cpu_count() or 1
        if workers == 1:
            rows = []
            for job in jobs:
                rows.append(_run_point_args(job))
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                rows = []
                for row in pool.map(_run_point_args, jobs, chunksize=1):
                    rows.append(row)
                    bar.update()
    bar.close()
    n, m = len(points), len(seeds)
    return pd.DataFrame([rows[k % m * n + k // m] for k in range(len(rows))])
