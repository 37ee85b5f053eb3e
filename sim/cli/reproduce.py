"""`python -m sim reproduce`: run the study and write results/ (sim/results/reproduce.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.cli.common import MAX_SEEDS, WORKERS, a_path, needs, scheduler, usage_error


def _at_least_5(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 5 <= n <= MAX_SEEDS:
        raise argparse.ArgumentTypeError(
            f"expected a whole number from 5 (the write-up's seeds 1–5) to {MAX_SEEDS:,};"
            f" got {text!r}"
        )
    return n


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    rep = sub.add_parser("reproduce", help="run the study and write results/")
    rep.add_argument(
        "--out",
        type=a_path,
        default=None,
        help="folder (default: results; quick-results with --quick)",
    )
    rep.add_argument(
        "--seeds", type=_at_least_5, default=None, help="staleness runs on seeds 1..N (default 150)"
    )
    rep.add_argument(
        "--cas-seeds", type=_at_least_5, default=None, help="CAS runs on seeds 1..N (default 300)"
    )
    rep.add_argument("--workers", type=WORKERS, default=None, help="processes (default: all cores)")
    rep.add_argument(
        "--scheduler",
        type=scheduler,
        default=None,
        help="run the days on the Dask cluster at this scheduler address, e.g. tcp://host:8786"
        " (same bytes as a local run)",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="every part on a twentieth of its seeds (at least 2), each page marked as a quick"
        " run: every table and figure in about a minute, into quick-results/ or --out",
    )
    rep.add_argument(
        "--from-rows",
        action="store_true",
        help="no simulation: rebuild every table, figure and text of --out (and the README) "
        "from the per-seed rows already in its seeds/ (after a change to a page or a "
        "parameter's description; make docs)",
    )
    return rep


def run(args: argparse.Namespace, rep: argparse.ArgumentParser) -> int:
    from sim.results.reproduce import CAS_SEEDS, SEEDS_DIR, STALENESS_SEEDS, rebuild, reproduce

    if args.scheduler is not None:
        needs(rep, "dask", "distributed")
    readme = Path("README.md")
    args.out = args.out or Path("quick-results" if args.quick else "results")
    in_place = args.out == Path("results") and readme.exists()
    if args.quick and args.out.resolve() == Path("results").resolve():
        usage_error(
            "--quick: a quick run does not overwrite the study's results/; got --out"
            f" {args.out}: give another folder, e.g. --out quick-results"
        )
    if args.from_rows:
        if args.quick:
            usage_error("--from-rows: not with --quick (a quick run's rows are rerun quickly)")
        if not (args.out / SEEDS_DIR).is_dir():
            usage_error(
                f"--from-rows: {args.out}/{SEEDS_DIR} does not exist; run python -m sim "
                "reproduce first (it writes the rows), or name the folder with --out"
            )
        rebuild(args.out, readme if in_place else None)
        print(f"rebuilt {args.out}/ from {args.out}/{SEEDS_DIR}", file=sys.stderr)
        return 0
    reproduce(
        args.out,
        args.seeds or STALENESS_SEEDS,
        args.cas_seeds or CAS_SEEDS,
        args.workers,
        readme_path=readme if in_place and not args.quick else None,
        scheduler=args.scheduler,
        quick=args.quick,
    )
    print(f"wrote {args.out}/REPORT.md and its tables and figures", file=sys.stderr)
    return 0
