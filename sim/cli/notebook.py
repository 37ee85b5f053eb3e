"""`python -m sim notebook`: run notebooks/explore.ipynb headless (sim/notebook.py), its
parameters overridden with -p, and save it with its outputs."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from sim.cli.common import PROG, a_path, extra

SQLITE = b"SQLite format 3\x00"
"""The first bytes of every SQLite database file, a KB among them."""
ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""A terminal colour code."""


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    nbp = sub.add_parser(
        "notebook",
        help="run notebooks/explore.ipynb (on its own parameters, or -p NAME=VALUE), saving it"
        " with its outputs",
    )
    nbp.add_argument(
        "--path",
        type=a_path,
        default=Path("notebooks/explore.py"),
        help="the notebook's .py in the repository's checkout (not in the installed package;"
        " default: notebooks/explore.py, from the checkout's root)",
    )
    nbp.add_argument(
        "-p",
        "--parameter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a value of the parameters cell, e.g. -p SEEDS=5 -p ZIPF_S=1.2 (repeatable)",
    )
    nbp.add_argument(
        "--out",
        type=a_path,
        default=None,
        help="folder of its tables and figures (default: results/notebook on its own"
        " parameters, notebook-out with -p or --db)",
    )
    nbp.add_argument(
        "--ipynb",
        type=a_path,
        default=None,
        help="where the executed notebook goes (default: the .ipynb paired with --path on its"
        " own parameters, OUT/explore.ipynb with -p or --db)",
    )
    nbp.add_argument(
        "--db",
        type=a_path,
        default=None,
        metavar="kb.sqlite",
        help="an imported KB (python -m sim import writes one): section 7 shows its advice",
    )
    return nbp


def _check_outputs(nbp: argparse.ArgumentParser, out: Path, ipynb: Path) -> None:
    """Before any cell runs: --out a folder (or none yet), and --ipynb a notebook file name
    in a folder that exists (or is --out) that holds no file other than a notebook."""
    if out.exists() and not out.is_dir():
        nbp.error(f"--out {out}: a file, not a folder; name a folder for the tables and figures")
    if ipynb.suffix != ".ipynb" or ipynb.is_dir():
        nbp.error(f"--ipynb {ipynb}: expected a file name ending in .ipynb")
    if not (ipynb.resolve().parent.is_dir() or ipynb.resolve().parent == out.resolve()):
        nbp.error(f"--ipynb {ipynb}: its folder does not exist; create it or choose another")
    if ipynb.exists():
        try:
            cells = json.loads(ipynb.read_bytes()).get("cells")
        except (OSError, ValueError, AttributeError):
            cells = None
        if not isinstance(cells, list):
            nbp.error(f"--ipynb {ipynb}: exists and is not a notebook; name a new file")


def run(args: argparse.Namespace, nbp: argparse.ArgumentParser) -> int:
    """notebook: run it with its parameters overridden, save its outputs and the executed
    .ipynb; on its own parameters, into results/notebook and the committed .ipynb."""
    try:
        from nbclient.exceptions import CellExecutionError

        from sim import notebook
    except ModuleNotFoundError as e:
        extra(nbp, "notebook", e)
    if args.path.suffix != ".py":
        nbp.error(
            f"--path {args.path}: expected the notebook's .py (jupytext's percent format),"
            " e.g. notebooks/explore.py"
        )
    if not args.path.is_file():
        nbp.error(
            f"--path: {args.path} is not a file; the notebook is in the repository's checkout,"
            " not the installed package: run from the checkout's root, or give --path"
            " CHECKOUT/notebooks/explore.py"
        )
    if args.db is not None and not args.db.is_file():
        nbp.error(f"--db: {args.db} is not a file (python -m sim import writes one)")
    if args.db is not None:
        with args.db.open("rb") as f:
            if f.read(len(SQLITE)) != SQLITE:
                nbp.error(f"--db: {args.db} is not a KB file (python -m sim import writes one)")
    try:
        values = notebook.overrides(args.parameter, notebook.defaults(args.path))
    except notebook.ParameterError as e:
        nbp.error(str(e))
    own = not values and args.db is None
    out = args.out or Path("results/notebook" if own else "notebook-out")
    ipynb = args.ipynb or (args.path.with_suffix(".ipynb") if own else out / "explore.ipynb")
    _check_outputs(nbp, out, ipynb)
    out.mkdir(parents=True, exist_ok=True)
    here = args.path.resolve().parent
    # relative to the notebook when under this checkout, so the saved .ipynb names no machine
    shown = Path(os.path.relpath(out.resolve(), here))
    inside = out.resolve().is_relative_to(here.parent)
    values = {**values, "OUT_DIR": str(shown if inside else out.resolve())}
    if args.db is not None:
        values["KB_DB"] = str(args.db.resolve())
    try:
        nb = notebook.execute(args.path.resolve(), values, progress=True)
    except CellExecutionError as e:
        text = ANSI.sub("", str(e)).strip()  # the kernel colours its traceback
        last = text.splitlines()[-1] if text else type(e).__name__
        print(f"{PROG} notebook: error: a cell failed: {last}", file=sys.stderr)
        return 1
    notebook.save(nb, ipynb)
    print(f"ran {args.path} into {ipynb}; its tables and figures are in {out}", file=sys.stderr)
    return 0
