"""`import` and `advise --db` at a real docs site's size, and `advise --edit-log` on the
shared log, timed end to end as a user runs them (``process.run_steps``).

The site is ``docsrepo.build``'s generated git repository (1,000 or 10,000 articles, two
commits per article), built in a scratch folder before the clock starts. `import` is
bounded by reading the history (one ``git log``, one ``git cat-file --batch``) and writing
every version's row and event in one transaction; `advise --db` by its simulated days
(a day's cost grows with the questions times the citations held times the checks), and
by --max-seconds, so it is timed both on fixed days (--simulate 2: the cost of a day at
that size) and as a user runs it (the precision loop under its time cap).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from sim.bench.docsrepo import build
from sim.bench.process import MAKE_ENV, ROOT, run_steps
from sim.calibrate.logs import BUNDLED


def import_and_advise_wall(articles: int) -> dict[str, Any]:
    """`python -m sim import` of a generated site, then `advise --db` on it twice."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = build(Path(tmp) / "docs", articles)
        db = str(Path(tmp) / "kb.sqlite")
        advise = [sys.executable, "-m", "sim", "advise", "--db", db]
        return run_steps(
            [
                ("import", [sys.executable, "-m", "sim", "import", str(repo), "--db", db]),
                ("advise --db, 2 days", [*advise, "--simulate", "2"]),
                ("advise --db (precision loop)", advise),
            ]
        )


def edit_log_wall() -> dict[str, Any]:
    """`python -m sim advise --edit-log` on the shared log, as a user runs it (bounded by
    its --max-seconds, 25 s, or by the precision, whichever comes first), then the same
    with --json once more for what it stopped on and each process's choice with its days
    and interval (the time of that second run is not the loop's)."""
    command = [sys.executable, "-m", "sim", "advise", "--edit-log", str(BUNDLED)]
    timed = run_steps([("advise --edit-log", command)])
    done = subprocess.run(
        [*command, "--json"], cwd=ROOT, env=MAKE_ENV, capture_output=True, text=True
    )
    if done.returncode != 0:
        return timed | {"passed": False, "failure": done.stderr[-2_000:]}
    out = json.loads(done.stdout)
    keep = (
        "method",
        "interval_min",
        "days",
        "changed",
        "unnoticed_min",
        "unnoticed_lo",
        "unnoticed_hi",
        "cost",
        "cost_lo",
        "cost_hi",
    )
    choices = {
        n: None if c is None else {k: c.get(k) for k in keep} for n, c in out["choices"].items()
    }
    return timed | {"stopped": out["stopped"], "choices": choices}
