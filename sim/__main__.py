"""`python -m sim`: the command line (sim/cli/); `main` and `entry` are its."""

from __future__ import annotations

import sys

from sim.cli import entry, main

__all__ = ["entry", "main"]

if __name__ == "__main__":
    sys.exit(entry())
