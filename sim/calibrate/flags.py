"""The flags of `python -m sim calibrate`, apart from the fit so that building the command
line does not import it (scipy, pandas): only `calibrate` itself runs ``cli``."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim.calibrate.sessions import DEFAULT_SESSION_GAP_S


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    cal = sub.add_parser(
        "calibrate",
        help="fit the edit process to a real edit log (CSV, or --git REPO --path DIR/)",
    )
    cal.add_argument("log", nargs="?", type=Path, help="an edit log CSV in the shared format")
    cal.add_argument("--git", type=Path, metavar="REPO", help="extract the log from this repo")
    cal.add_argument("--path", metavar="DIR/", help="with --git: the folder of markdown articles")
    cal.add_argument("--out", type=Path, default=Path("shape.json"), help="shape file to write")
    cal.add_argument("--log-out", type=Path, help="with --git: also write the extracted CSV")
    cal.add_argument("--json", action="store_true", help="print the fit as JSON, not text")
    cal.add_argument("--boot", type=int, default=200, help="bootstrap resamples (default 200)")
    cal.add_argument("--seed", type=int, default=1, help="seed of the bootstrap (default 1)")
    cal.add_argument(
        "--session-gap-h",
        type=float,
        default=DEFAULT_SESSION_GAP_S / 3600,
        help="a re-save within this many hours continues a session (default 24)",
    )
    return cal
