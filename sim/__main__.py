"""Command line: `python -m sim reproduce | bench`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("reproduce", help="run the study and write results/")
    rep.add_argument("--out", type=Path, default=Path("results"))
    rep.add_argument(
        "--seeds",
        type=int,
        default=None,
        help="seeds 1..N for the intervals (default 100; at least 5)",
    )
    rep.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    args = parser.parse_args(argv)
    if args.command == "reproduce":
        from sim.reproduce import DEFAULT_SEEDS, reproduce

        seeds = args.seeds or DEFAULT_SEEDS
        if seeds < 5:
            parser.error(f"--seeds: expected 5 or more (the write-up's seeds 1–5); got {seeds}")
        readme = Path("README.md")
        in_place = args.out == Path("results") and readme.exists()
        reproduce(args.out, seeds, args.workers, readme_path=readme if in_place else None)
        print(f"wrote {args.out}/REPORT.md and its tables and figures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
