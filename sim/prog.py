"""The command line as the user started it, for every message that tells them what to run
next: the layers below the command line (the importer, the advisor) name it too."""

from __future__ import annotations

import sys
from pathlib import Path

PROG = "stale-citations" if Path(sys.argv[0]).stem == "stale-citations" else "python -m sim"
"""The console script's name, or the module's invocation."""
