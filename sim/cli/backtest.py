"""`python -m sim backtest`: advice made from each edit log up to a year before its end,
held to its last year (sim/advise/backtest.py), a row a site: the table of how often the
advice held. `make reproduce` makes results/advise_backtest.csv the same way for the atlas's
sites (its rows: results/seeds/advise_backtest.csv); this command does it for any logs."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim.cli.common import a_path, output_file, target_flag


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    bt = sub.add_parser(
        "backtest",
        help="advice from each edit log's history before its last year, replayed on that year",
    )
    bt.add_argument(
        "logs",
        type=a_path,
        nargs="*",
        metavar="LOG.csv",
        help="edit logs in the shared format, plain or gzip (default: the atlas's sites)",
    )
    target_flag(bt)
    bt.add_argument(
        "--out",
        type=a_path,
        default=Path("advise_backtest.csv"),
        help="the table, a row a site (default: %(default)s)",
    )
    bt.add_argument("--force", action="store_true", help="replace --out if it exists")
    return bt


def run(args: argparse.Namespace, bt: argparse.ArgumentParser) -> int:
    output_file(bt, "--out", args.out, args.force)
    import pandas as pd

    from sim import atlas
    from sim.advise import Costs
    from sim.advise.backtest import table
    from sim.calibrate.logs import read_log, write_atomic
    from sim.params import Params

    if args.logs:
        paths = {p.name.split(".")[0]: p for p in args.logs}
        if len(paths) != len(args.logs):
            bt.error(
                "LOG.csv: two logs share a file name (a site is named by its file's); rename one"
            )
    else:
        paths = {s.site: s.path for s in atlas.sites()}
    try:
        logs = {site: read_log(p) for site, p in paths.items()}
    except (OSError, ValueError) as e:
        bt.error(f"LOG.csv: {e}")
    rows, share = table(logs, Params(), Costs(), args.max_unnoticed_min)
    write_atomic(args.out, pd.DataFrame(rows).to_csv(index=False, lineterminator="\n"))
    print(f"{args.out}: {share}.")
    return 0
