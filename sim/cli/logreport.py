"""`python -m sim log-report`: the cost table of a call log (sim/server/logreport.py)."""

from __future__ import annotations

import argparse

from sim.cli.common import a_path


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    lr = sub.add_parser("log-report", help="the cost table of a call log (serve --call-log)")
    lr.add_argument("file", type=a_path, help="a call log: one JSON line per tool call")
    lr.add_argument("--json", action="store_true", help="rows as JSON instead of a table")
    return lr


def run(args: argparse.Namespace, lr: argparse.ArgumentParser) -> int:
    from sim.server.calllog import BadLogLine
    from sim.server.describe import terminal
    from sim.server.logreport import report

    try:
        text = report(args.file, args.json)
    except OSError as e:
        lr.error(f"{terminal(args.file)}: cannot read it ({e.strerror})")
    except BadLogLine as e:
        lr.error(f"{terminal(args.file)}: not a call log of this project: {terminal(e)}")
    print(text)  # a closed output pipe is entry's to say, not a fault of the log
    return 0
