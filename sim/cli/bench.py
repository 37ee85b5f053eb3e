"""`python -m sim bench`: the speed figures into results/bench.json and results/SPEED.md
(sim/bench/suite.py); the timed loops' names are the choices of --only."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.bench.loops import LOOPS
from sim.cli.common import a_path, bounded


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    bench = sub.add_parser(
        "bench", help="speed figures into results/bench.json and results/SPEED.md"
    )
    bench.add_argument("--out", type=a_path, default=Path("results"))
    bench.add_argument(
        "--repeats", type=bounded(int, 1, 1_000), default=5, help="runs per timed figure"
    )
    bench.add_argument(
        "--factors",
        type=bounded(int, 1, 1_000),
        nargs="+",
        default=[1, 10, 100],
        help="day sizes to scale to, as multiples of the default day",
    )
    bench.add_argument(
        "--no-loops",
        action="store_true",
        help="leave out the timed loops: `make reproduce`, `make test`, `make check`, advise "
        "(about 30 minutes); the HTTP load table (a minute) is kept",
    )
    bench.add_argument(
        "--only",
        nargs="+",
        choices=list(LOOPS),
        default=None,
        help="time only these loops again, into the existing bench.json (it says which)",
    )
    return bench


def run(args: argparse.Namespace, bench: argparse.ArgumentParser) -> int:
    from sim.bench.suite import main as bench_main

    # SPEED.md is rewritten wherever --out holds one (a copy in a scratch folder too);
    # the README's line only by a bench into results/
    speed = args.out / "SPEED.md"
    in_place = args.out == Path("results") and speed.exists()
    bench_main(
        args.out,
        speed if speed.exists() else None,
        args.repeats,
        tuple(args.factors),
        loops=not args.no_loops,
        only=args.only,
        front_readme=Path("README.md") if in_place else None,
    )
    print(f"wrote {args.out}/bench.json", file=sys.stderr)
    return 0
