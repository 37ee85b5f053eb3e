"""What every command's flags share: the parser's one-line usage errors, bounded numbers,
and the check that a command's optional extra is installed."""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from sim.prog import PROG

__all__ = ["PROG"]  # usage lines and errors name the command as the user started it


class Parser(argparse.ArgumentParser):
    """Bad flags get one line naming the flag and what it takes, and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def usage_error(message: str) -> NoReturn:
    """A usage error of the command line as a whole (not of one command's flags)."""
    Parser(prog=PROG).error(message)


def bounded(kind: type[int] | type[float], lo: float, hi: float) -> Callable[[str], Any]:
    def convert(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:  # NaN fails this too
            noun, fmt = ("an integer", ",") if kind is int else ("a number", "g")
            raise argparse.ArgumentTypeError(
                f"expected {noun} from {lo:{fmt}} to {hi:{fmt}}; got {text!r}"
            )
        return value

    return convert


def a_path(text: str) -> Path:
    """A path flag's value: refused at once when the file system cannot take the name (a
    part longer than its limit, a loop of links), which every later use would meet as an
    error of its own, mid-run."""
    try:
        os.lstat(text)
    except OSError as e:
        if e.errno in (errno.ENAMETOOLONG, errno.ELOOP):
            why = os.strerror(e.errno).lower()
            shown = f"{text[:60]!r}{'…' if len(text) > 60 else ''}"
            raise argparse.ArgumentTypeError(
                f"{why}: {shown} ({len(text):,} characters); name "
                + ("a shorter path" if e.errno == errno.ENAMETOOLONG else "another path")
            ) from None
    return Path(text)


MAX_SEEDS = 100_000
"""Seeds a command runs at most: more than any interval needs, fewer than would never end."""
WORKERS = bounded(int, 1, 256)
"""--workers: local processes."""

_SCHEDULER = re.compile(r"(?:[a-z]+://)?(?:\[[0-9a-fA-F:]+\]|[^\s:/\[\]]+):\d{1,5}")


def scheduler(text: str) -> str:
    """--scheduler: a Dask scheduler's address, checked before any day runs."""
    if not _SCHEDULER.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"expected a Dask scheduler's address HOST:PORT, e.g. tcp://host:8786; got {text!r}"
        )
    return text


def output_file(parser: argparse.ArgumentParser, flag: str, path: Path, force: bool) -> None:
    """An output file the command may write, checked before it runs: a file name in a folder
    that exists, and no file there already unless --force says to replace it."""
    if path.is_dir() or not path.name:
        parser.error(f"{flag} {str(path)!r}: a folder, not a file; name a file")
    if not path.resolve().parent.is_dir():
        parser.error(f"{flag} {path}: its folder does not exist; create it or choose another")
    if path.exists() and not force:
        parser.error(f"{flag} {path}: the file exists; pass --force to replace it")


def extra(parser: argparse.ArgumentParser, name: str, e: ModuleNotFoundError) -> NoReturn:
    """A command whose optional dependencies are not installed: one line saying which."""
    parser.error(
        f"needs the {name!r} extra ({e.name} is not installed):"
        f" pip install 'stale-citations-sim[{name}]'"
    )


def needs(parser: argparse.ArgumentParser, name: str, *modules: str) -> None:
    """Before a command that imports an extra's packages: each found, or one line."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            extra(parser, name, ModuleNotFoundError(name=module))


def target_flag(parser: argparse.ArgumentParser) -> None:
    """--max-unnoticed-min, the target every piece of advice is made for (advise, backtest)."""
    parser.add_argument(
        "--max-unnoticed-min",
        type=bounded(float, 0, 1e6),
        default=30.0,
        help="target: mean minutes a change to a cited article goes unnoticed "
        "(default: %(default)s)",
    )
