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
        help="every part on a sixtieth of its seeds (at least 2) and the costliest grids on a"
        " named subset of their points (sim/results/quick.py), each page marked as a quick"
        " run: every table and figure in about a minute, into quick-results/ or --out",
    )
    rep.add_argument(
        "--from-rows",
        action="store_true",
        help="no simulation: rebuild every table, figure and text of --out (and the README) "
        "from the per-seed rows already in its seeds/ (after a change to a page or a "
        "parameter's description; make docs)",
    )
    rep.add_argument(
        "--only",
        nargs="+",
        metavar="EXPERIMENT",
        default=None,
        help="run only these experiments (names in sim/results/seedrows.py EXPERIMENTS), "
        "rewrite only their per-seed rows in --out's seeds/ and rebuild every page from the "
        "rows: what a new check method or a changed experiment needs (make rows)",
    )
    return rep


def _only(names: list[str], out: Path) -> tuple[str, ...]:
    """--only's experiments, checked before any day runs: known, each once, and the other
    experiments' rows already in out/seeds/ (the pages are built from them)."""
    from sim.results.reproduce import SEEDS_DIR
    from sim.results.seedrows import BY_NAME, EXPERIMENTS

    for name in names:
        if name not in BY_NAME:
            usage_error(
                f"--only: {name!r} is not an experiment; expected some of {', '.join(BY_NAME)}"
            )
        if names.count(name) > 1:
            usage_error(f"--only: {name} given twice; name each experiment once")
    missing = [
        f"{p}.csv"
        for e in EXPERIMENTS
        if e.name not in names  # a new experiment's rows are made by its first --only
        for p in e.parts
        if not (out / SEEDS_DIR / f"{p}.csv").is_file()
    ]
    if missing:
        usage_error(
            f"--only: {out}/{SEEDS_DIR} lacks {missing[0]}"
            f"{f' and {len(missing) - 1} more rows files' if len(missing) > 1 else ''};"
            " --only rewrites some experiments' rows and builds the pages from all of them:"
            " run python -m sim reproduce first, or name its folder with --out"
        )
    return tuple(names)


def run(args: argparse.Namespace, rep: argparse.ArgumentParser) -> int:
    from sim.results.reproduce import (
        CAS_SEEDS,
        SEEDS_DIR,
        STALENESS_SEEDS,
        rebuild,
        reproduce,
        rerun,
    )

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
    if args.only is not None:
        if args.quick or args.from_rows:
            usage_error(
                f"--only: not with {'--quick' if args.quick else '--from-rows'}; --only reruns"
                " the named experiments at the study's seeds, then rebuilds every page from"
                " the rows as --from-rows does"
            )
        names = _only(args.only, args.out)
        rerun(
            args.out,
            names,
            args.seeds or STALENESS_SEEDS,
            args.cas_seeds or CAS_SEEDS,
            args.workers,
            readme_path=readme if in_place else None,
            scheduler=args.scheduler,
        )
        print(
            f"rewrote the rows of {', '.join(names)} in {args.out}/{SEEDS_DIR} and rebuilt"
            f" {args.out}/ from them",
            file=sys.stderr,
        )
        return 0
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
