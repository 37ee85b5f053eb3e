"""results/coverage/seedrule_coverage.csv from the committed rows:
``python -m sim.results.coverage`` (``sim.report.seedrule_coverage``). It takes about a
CPU-minute, so reproduce does not write it; `make check`'s deep test compares the committed
table with a fresh one."""

from __future__ import annotations

from pathlib import Path

from sim.report.seedrule_coverage import DEEP_REPS, coverage_table
from sim.results import seedrows

NAME = "coverage/seedrule_coverage.csv"
"""In a folder of its own: `make check` compares results/ with a fresh reproduce, which does
not write it, and DATA.md lists the tables reproduce writes."""


def write(results: Path) -> None:
    """The table of the rows in ``results``/seeds, written beside them."""
    table = coverage_table(seedrows.read(results / "seeds"), DEEP_REPS)
    (results / NAME).parent.mkdir(exist_ok=True)
    table.to_csv(results / NAME, index=False, float_format="%.4f")


if __name__ == "__main__":
    write(Path("results"))
