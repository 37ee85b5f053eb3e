"""The command line: `python -m sim COMMAND`, one module per command.

Each command module has ``add_parser(sub)`` (its flags) and ``run(args, parser)`` (what it
does, its heavy imports inside, so that building the parser stays cheap). calibrate's flags
are in ``calibrate_flags``, its work in ``calibrate``; `import` is ``import_`` (a keyword).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from types import ModuleType

from sim.cli import (
    advise,
    backtest,
    bench,
    calibrate_flags,
    export,
    import_,
    logreport,
    notebook,
    reproduce,
    serve,
    sweep,
)
from sim.cli.common import PROG, Parser

DESCRIPTION = (  # what --help says first, the list of commands
    "Command line: `python -m sim reproduce | notebook | sweep | bench | serve | log-report |\n"
    "advise | backtest | calibrate | import | export`."
)

AddParser = Callable[[argparse._SubParsersAction], argparse.ArgumentParser]
Run = Callable[[argparse.Namespace, argparse.ArgumentParser], int]


def _command(module: ModuleType) -> tuple[AddParser, Run]:
    return module.add_parser, module.run


def _calibrate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """calibrate's work, imported only when it runs: numpy, pandas and the fit would slow
    every other command's start (serve's most)."""
    from sim.cli.calibrate import run

    return run(args, parser)


# In the order `python -m sim --help` lists them.
COMMANDS: dict[str, tuple[AddParser, Run]] = {
    "reproduce": _command(reproduce),
    "bench": _command(bench),
    "sweep": _command(sweep),
    "notebook": _command(notebook),
    "serve": _command(serve),
    "log-report": _command(logreport),
    "advise": _command(advise),
    "backtest": _command(backtest),
    "calibrate": (calibrate_flags.add_parser, _calibrate),
    "import": _command(import_),
    "export": _command(export),
}


def entry(argv: list[str] | None = None) -> int:
    """What `python -m sim` runs: the command line, and Ctrl-C ended in one line and status
    130, not a traceback (as is a file the system refused mid-run, status 1); `serve` ends
    on Ctrl-C while it starts (its flags, its imports, the corpus) as on one while serving:
    status 0, nothing said."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        return main(argv)
    except KeyboardInterrupt:
        if argv[:1] == ["serve"]:
            return 0
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; say so once, no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would fail again
        print(
            f"{PROG}: the output was closed by its reader before the command ended "
            "(anything after that point was not printed)",
            file=sys.stderr,
        )
        return 1
    except OSError as e:  # a file or folder refused mid-run (permissions, a full disk)
        where = f": {e.filename!r}" if e.filename is not None else ""
        print(
            f"{PROG}: error: {e.strerror or e}{where} (the command stopped there)", file=sys.stderr
        )
        return 1


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run its command; its exit status."""
    parser = Parser(prog=PROG, description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    parsers = {name: add(sub) for name, (add, _) in COMMANDS.items()}
    args = parser.parse_args(argv)
    _, run = COMMANDS[args.command]
    return run(args, parsers[args.command])
