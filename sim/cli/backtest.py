"""`python -m sim backtest`: advice made from each edit log up to a year before its end,
held to its last year (sim/advise/backtest.py), a row a site: the table of how often the
advice held. A separate command, not part of reproduce: a fit and the closed forms a log
take seconds each, a minute and more for the atlas's 30 sites."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim.cli.common import bounded, output_file


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    bt = sub.add_parser(
        "backtest",
        help="advice from each edit log's history before its last year, replayed on that year",
    )
    bt.add_argument(
        "logs",
        type=Path,
        nargs="*",
        metavar="LOG.csv",
        help="edit logs in the shared format (default: the three bundled help centres)",
    )
    bt.add_argument(
        "--max-unnoticed-min",
        type=bounded(float, 0.01, 1440),
        default=30.0,
        help="the target: minutes a change to a cited article goes unnoticed on average "
        "(default: %(default)s)",
    )
    bt.add_argument(
        "--out",
        type=Path,
        default=Path("results/advise_backtest.csv"),
        help="the table, a row a site (default: %(default)s)",
    )
    bt.add_argument("--force", action="store_true", help="replace --out if it exists")
    return bt


def run(args: argparse.Namespace, bt: argparse.ArgumentParser) -> int:
    output_file(bt, "--out", args.out, args.force)
    import pandas as pd

    from sim.advise import Costs
    from sim.advise.backtest import table
    from sim.calibrate.logs import PANEL, read_log, write_atomic
    from sim.params import Params

    paths = {p.stem: p for p in args.logs} if args.logs else PANEL
    if len(paths) != len(args.logs or PANEL):
        bt.error("LOG.csv: two logs share a file name (a site is named by its file's); rename one")
    try:
        logs = {site: read_log(p) for site, p in paths.items()}
    except (OSError, ValueError) as e:
        bt.error(f"LOG.csv: {e}")
    rows, share = table(logs, Params(), Costs(), args.max_unnoticed_min)
    write_atomic(args.out, pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    print(f"{args.out}: {share}.")
    return 0
