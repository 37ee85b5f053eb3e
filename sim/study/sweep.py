"""`python -m sim sweep`: a parameter grid × seeds → two tidy tables: one row per run (the
per-seed headline quantities), and one row per run, check method and interval (the long
form of ``sim.study.methodrows``, so a method added to the registry shows up there).

Runs on all local cores by default. Given the address of an existing Dask cluster
(``dask.distributed``) it sends the same runs there instead; each run is a pure
function of (params, seed), so the table is the same wherever it ran.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields
from typing import Any

import pandas as pd
from tqdm import tqdm

from sim.params import Params
from sim.study.experiments import (
    EXPERIMENTS,
    PointRuns,
    Request,
    SeedRows,
    StudyFrames,
    run_requests,
    run_seed,
)
from sim.study.methodrows import COLUMNS as METHOD_COLUMNS
from sim.study.methodrows import RECORDS as METHOD_RECORDS
from sim.study.methodrows import method_rows
from sim.study.metrics import PER_SEED_RECORDS, per_seed

DEFAULT_EXPERIMENTS = ("staleness", "control", "cas")
SHAPED_EXPERIMENTS = ("staleness", "cas")
"""The default runs of a grid with a calibrated point: the control ('even' popularity) is
the write-up's process changed, and a calibrated shape decides its own popularity."""


def experiments_for(points: list[Params], asked: tuple[str, ...] | None) -> tuple[str, ...]:
    """The runs per seed: those asked, or the default for these points; a run a point
    cannot take raises ValueError in one line saying what to ask instead."""
    shaped = any(p.save_process == "calibrated" for p in points)
    if asked is None:
        return SHAPED_EXPERIMENTS if shaped else DEFAULT_EXPERIMENTS
    known = (*EXPERIMENTS, "exposure")
    unknown = [e for e in asked if e not in known]
    if unknown:
        raise ValueError(
            f"--experiments: expected some of {', '.join(known)}; received {', '.join(unknown)}"
        )
    if shaped and "control" in asked:
        raise ValueError(
            "--experiments: 'control' (the write-up's saves made even) cannot run with "
            "save_process=calibrated (the shape decides the popularity); drop it, e.g. "
            "--experiments staleness cas"
        )
    return tuple(asked)


def grid(base: Params, axes: dict[str, list[Any]]) -> list[Params]:
    """Every combination of the axes' values, each validated as a Params."""
    names = list(axes)
    return [
        base.with_(**dict(zip(names, values, strict=True)))
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
    words = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
    out = []
    for v in values.split(","):
        try:
            out.append(words[v.strip().lower()] if kind is bool else kind(v))
        except (KeyError, ValueError):
            expected = "true or false" if kind is bool else f"{kind.__name__} values"
            raise ValueError(
                f"grid axis {name}: {v!r} is not a value of {name}; expected {expected},"
                f" e.g. {name}={getattr(Params(), name)}"
            ) from None
    return name, out


SWEEP_RECORDS = tuple(dict.fromkeys((*PER_SEED_RECORDS, *METHOD_RECORDS)))
"""The record types a sweep keeps: the per-seed rows' and the method rows'."""


@dataclass(frozen=True)
class SweepTables:
    """A sweep's two tables, each listing the runs point by point, then seed by seed."""

    runs: pd.DataFrame
    """One row per run: every parameter, the headline quantities, the seed, the runs."""
    methods: pd.DataFrame
    """One row per run, check method and interval: every parameter, then the long form's
    columns (``sim.study.methodrows.COLUMNS``)."""


RunRows = tuple[dict[str, Any], list[dict[str, Any]]]
"""One run's row of each table (the method rows: one per method and interval)."""


def run_point(params: Params, seed: int, experiments: tuple[str, ...]) -> RunRows:
    """One run: its per-seed row and its method rows."""
    rows = run_seed(params, seed, experiments)
    return point_row(params, seed, experiments, rows), point_method_rows(params, rows)


def point_row(
    params: Params, seed: int, experiments: tuple[str, ...], rows: SeedRows
) -> dict[str, Any]:
    """run_point's row from the seed's rows."""
    frames = StudyFrames.from_rows(rows)
    metrics = per_seed(frames).iloc[0].to_dict()
    return {**_flat(params), **metrics, "seed": seed, "experiments": ",".join(experiments)}


def point_method_rows(params: Params, rows: SeedRows) -> list[dict[str, Any]]:
    """One run's method rows: every parameter, then the long form's columns."""
    flat = _flat(params)
    return [
        {**flat, **r} for r in method_rows(params, StudyFrames.from_rows(rows)).to_dict("records")
    ]


def _flat(params: Params) -> dict[str, Any]:
    return {k: (str(v) if isinstance(v, tuple) else v) for k, v in params.as_dict().items()}


def _run_point_args(args: tuple[Params, int, tuple[str, ...]]) -> RunRows:
    return run_point(*args)


def sweep(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = DEFAULT_EXPERIMENTS,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = True,
) -> SweepTables:
    # the tables list the runs point by point, then seed by seed, wherever they ran
    if scheduler is None:  # seed by seed, so a local worker opens each seed's KB once
        request = sweep_request(points, seeds, experiments, SWEEP_RECORDS)
        [(_, runs)] = run_requests([request], workers, progress)
        return _tables(
            [
                (point_row(p, s, experiments, seed_rows), point_method_rows(p, seed_rows))
                for p, point_runs in zip(request.points, runs, strict=True)
                for s, seed_rows in zip(request.seeds, point_runs, strict=True)
            ]
        )
    jobs = [(p, s, experiments) for s in seeds for p in points]
    bar = tqdm(total=len(jobs), desc="runs", unit="run", disable=not progress)
    from dask.distributed import Client, as_completed

    with Client(scheduler) as client:
        futures = client.map(_run_point_args, jobs, pure=False)
        for _ in as_completed(futures):
            bar.update()
        rows = client.gather(futures)
    bar.close()
    n, m = len(points), len(seeds)
    return _tables([rows[k % m * n + k // m] for k in range(len(rows))])


def _tables(runs: list[RunRows]) -> SweepTables:
    method = [r for _, rows in runs for r in rows]
    # with no method checked (e.g. the CAS runs alone) the method table keeps its header
    columns = None if method else [*Params().as_dict(), *METHOD_COLUMNS]
    return SweepTables(
        pd.DataFrame([row for row, _ in runs]), pd.DataFrame(method, columns=columns)
    )


def sweep_request(
    points: list[Params],
    seeds: list[int],
    experiments: tuple[str, ...] = DEFAULT_EXPERIMENTS,
    records: tuple[str, ...] = PER_SEED_RECORDS,
) -> Request:
    return Request(tuple(points), tuple(seeds), experiments, records)


def sweep_rows(request: Request, runs: PointRuns) -> list[dict[str, Any]]:
    """The sweep's rows of a request's runs: point by point, then seed by seed."""
    return [
        point_row(p, s, request.experiments, seed_rows)
        for p, point_runs in zip(request.points, runs, strict=True)
        for s, seed_rows in zip(request.seeds, point_runs, strict=True)
    ]
