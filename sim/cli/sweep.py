"""`python -m sim sweep`: a parameter grid × seeds into two tidy tables (sim/study/sweep.py),
locally or on a Dask cluster: one row per run (`--out`), and one row per run, check method
and interval (`--methods-out`), where a method added to the registry shows up."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sim.cli.common import MAX_SEEDS, WORKERS, a_path, bounded, needs, output_file, scheduler


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    sw = sub.add_parser("sweep", help="a parameter grid × seeds into two tidy tables")
    sw.add_argument(
        "axes",
        nargs="+",
        metavar="name=v1,v2,...",
        help="a swept parameter and its values, e.g. zipf_s=0,0.5,0.9",
    )
    sw.add_argument(
        "--seeds", type=bounded(int, 1, MAX_SEEDS), default=10, help="seeds 1..N per grid point"
    )
    sw.add_argument(
        "--experiments",
        nargs="+",
        default=None,
        help="runs per seed among staleness control cas cas_curve exposure (default:"
        " staleness control cas; staleness cas with save_process=calibrated)",
    )
    sw.add_argument(
        "--out", type=a_path, default=Path("sweep.csv"), help="CSV file to write, a row per run"
    )
    sw.add_argument(
        "--methods-out",
        type=a_path,
        default=None,
        help="CSV file to write, a row per run, check method and interval"
        " (default: --out's name with _methods, e.g. sweep_methods.csv)",
    )
    sw.add_argument(
        "--force", action="store_true", help="replace an existing --out or --methods-out file"
    )
    sw.add_argument("--workers", type=WORKERS, default=None, help="local processes (default: all)")
    sw.add_argument(
        "--scheduler",
        type=scheduler,
        default=None,
        help="address of a running Dask scheduler, e.g. tcp://host:8786",
    )
    return sw


def run(args: argparse.Namespace, sw: argparse.ArgumentParser) -> int:
    from sim.params import Params
    from sim.study.sweep import experiments_for, grid, parse_axis, sweep

    try:
        axes: dict[str, list[Any]] = {}
        for name, values in map(parse_axis, args.axes):
            if name in axes:
                raise ValueError(
                    f"grid axis {name}: given twice; give its values once, e.g. {name}=a,b"
                )
            axes[name] = values
        points = grid(Params(), axes)
        experiments = experiments_for(points, args.experiments and tuple(args.experiments))
    except ValueError as e:
        sw.error(str(e))
    if args.scheduler is not None:
        needs(sw, "dask", "distributed")
    methods_out = args.methods_out or args.out.with_name(f"{args.out.stem}_methods.csv")
    if methods_out.resolve() == args.out.resolve():
        sw.error(f"--methods-out: expected a file other than --out; received {methods_out}")
    for flag, path in (("--out", args.out), ("--methods-out", methods_out)):
        output_file(sw, flag, path, args.force)
    if args.experiments is None:
        print(f"runs per seed: {' '.join(experiments)}", file=sys.stderr)
    tables = sweep(
        points,
        list(range(1, args.seeds + 1)),
        experiments,
        args.workers,
        args.scheduler,
    )
    tables.runs.to_csv(args.out, index=False)
    tables.methods.to_csv(methods_out, index=False)
    print(f"wrote {len(tables.methods)} method rows to {methods_out}", file=sys.stderr)
    print(f"wrote {len(tables.runs)} runs to {args.out}", file=sys.stderr)
    return 0
