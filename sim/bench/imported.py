"""`import` and `advise --db` at a real docs site's size, and `advise --edit-log` on the
shared log, timed end to end as a user runs them (``loops._run``).

The site is ``docsrepo.build``'s generated git repository (1,000 or 10,000 articles, two
commits per article), built in a scratch folder before the clock starts. `import` is
bounded by reading the history (one ``git log``, one ``git cat-file --batch``) and writing
every version's row and event in one transaction; `advise --db` by its simulated days
(a day's cost grows with the questions times the citations held times the checks), and
by --max-seconds, so it is timed both on fixed days (--simulate 2: the cost of a day at
that size) and as a user runs it (the precision loop under its time cap).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from sim.bench.docsrepo import build
from sim.bench.loops import _run
from sim.calibrate.logs import BUNDLED


def import_and_advise_wall(articles: int) -> dict[str, Any]:
    """`python -m sim import` of a generated site, then `advise --db` on it twice."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = build(Path(tmp) / "docs", articles)
        db = str(Path(tmp) / "kb.sqlite")
        advise = [sys.executable, "-m", "sim", "advise", "--db", db]
        return _run(
            [
                ("import", [sys.executable, "-m", "sim", "import", str(repo), "--db", db]),
                ("advise --db, 2 days", [*advise, "--simulate", "2"]),
                ("advise --db (precision loop)", advise),
            ]
        )


def edit_log_wall() -> dict[str, Any]:
    """`python -m sim advise --edit-log` on the shared log, as a user runs it."""
    return _run(
        [("advise --edit-log", [sys.executable, "-m", "sim", "advise", "--edit-log", str(BUNDLED)])]
    )
