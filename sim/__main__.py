"""Command line: `python -m sim reproduce | bench`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _at_least_5(text: str) -> int:
    n = int(text)
    if n < 5:
        raise argparse.ArgumentTypeError(f"expected 5 or more (the write-up's seeds 1–5); got {n}")
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("reproduce", help="run the study and write results/")
    rep.add_argument("--out", type=Path, default=Path("results"))
    rep.add_argument(
        "--seeds", type=_at_least_5, default=None, help="staleness runs on seeds 1..N (default 150)"
    )
    rep.add_argument(
        "--cas-seeds", type=_at_least_5, default=None, help="CAS runs on seeds 1..N (default 300)"
    )
    rep.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    bench = sub.add_parser("bench", help="speed figures into results/bench.json and the README")
    bench.add_argument("--out", type=Path, default=Path("results"))
    bench.add_argument("--repeats", type=int, default=5, help="runs per timed figure")
    bench.add_argument(
        "--factors",
        type=int,
        nargs="+",
        default=[1, 10, 100],
        help="day sizes to scale to, as multiples of the default day",
    )
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        from sim.reproduce import CAS_SEEDS, STALENESS_SEEDS, reproduce

        readme = Path("README.md")
        in_place = args.out == Path("results") and readme.exists()
        reproduce(
            args.out,
            args.seeds or STALENESS_SEEDS,
            args.cas_seeds or CAS_SEEDS,
            args.workers,
            readme_path=readme if in_place else None,
        )
        print(f"wrote {args.out}/REPORT.md and its tables and figures", file=sys.stderr)
    elif args.command == "bench":
        from sim.bench import main as bench_main

        readme = Path("README.md")
        in_place = args.out == Path("results") and readme.exists()
        bench_main(args.out, readme if in_place else None, args.repeats, tuple(args.factors))
        print(f"wrote {args.out}/bench.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
