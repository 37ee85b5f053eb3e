"""What `reproduce --quick` leaves out of the study's grids: a quick run previews every table
and figure on a few seeds, and where a grid's points cost most of its CPU it runs a subset
of them, each named here and on every page it marks.

Measured on one core at a quick run's seeds (``python -m sim bench --only reproduce_quick``
times the whole): the panel's three logs took 46 CPU-s, the break-even grid's 12,000-save
column most of its 26, the 22 readings 16, the backtest's 44 sites 7 and the map's
3,000-save days most of its 6. A second round (issue 61, same measure, 78 CPU-s in all
before it) found the two exposure days at 12 CPU-s, four fifths of it the methods checked
every 1, 2 and 4 minutes, the gate's conditions grid 7 of its 9, and the readings' second
look 18 more days: the sweep, the conditions and the break-even's questions are cut below,
and the readings start on one seed (``seedrows.quick_floor``). Each subset leaves every
table rows to show (`make check` builds every page of a quick run, on the pool and on a
Dask cluster).
"""

from __future__ import annotations

from sim.study.experiments import SWEEP_INTERVALS_S
from sim.study.gate import CONDITIONS, Condition
from sim.study.readings import ReadingKey
from sim.study.realshape import ARMS as PANEL_ARMS
from sim.study.realshape import SHARED_LOG
from sim.studymap.forms import Relation

LOGS: tuple[str, ...] = (SHARED_LOG,)
"""The panel on its first log only (the write-up's arms run once and are shared anyway)."""
ARMS = tuple(
    a for a in PANEL_ARMS if a.name in ("writeup", "calibrated", "counterparts", "+popularity")
)
"""The panel's arms from the write-up's to the calibrated shape with one of its features
(popularity) moved alone; the bursts, bulk and profile features and the five arms that
match or cluster one feature are the full run's."""

MAP_SAVES: dict[Relation, tuple[int, ...]] = {"same": (3, 300), "independent": (300,)}
"""The map's grid at the quietest point and the write-up's rate (the full run's six points
run 3 to 3,000 saves a day; the 3,000-save days cost most)."""

RANKINGS = {"same": "the same", "independent": "an independent"}

GATE_MEDIANS_S: tuple[float, ...] = (10.0, 120.0)
"""The write gate's approval latencies: the shortest and the one the conditions grid and
the recommendation use (the full run's five: 10 s to 30 min)."""

GATE_CONDITIONS: tuple[Condition, ...] = ((10.0, "independent"), (0.0, "queue"))
"""The conditions grid's points beside the default: a tool latency, and one reviewer working
through a queue (the full run's six cross the latencies with the three reviewers)."""

EXPOSURE_INTERVALS_S: tuple[float, ...] = (480.0, 1800.0, 3600.0, 14400.0)
"""The exposure sweep at 8, 30, 60 and 240 minutes, the advice example's pick among them (the
full run's nine start at 1 minute: the methods checked every 1, 2 and 4 minutes make
seven eighths of the exposure day's tool calls)."""

BREAK_EVEN_AXES: dict[str, list] = {"n_saves": [300, 3000], "n_questions": [10, 120]}
"""The break-even grid without its 1,000- and 12,000-save columns (a day's cost grows with
its saves: those two were four fifths of the grid's saves), at its fewest and most
questions (the report's two ends) without the 40 between."""

READINGS: tuple[ReadingKey, ...] = (
    ("edit_delays_s", "(5.0, 60.0, 3600.0, 7200.0)"),
    ("unpublished_save", "republish"),
    ("agent_edit_targets", "distinct_articles"),
    ("replays", "every_success"),
    ("day_profile", "two_peaks"),
    ("edited_citation", "second"),
    ("humans_after_day_end", "True"),
    ("save_spread", "distinct_articles"),
)
"""One reading of each open choice (one ladder of the eleven): each choice's row and the
first page's moves keep a reading; the other 14 are the full run's."""

SITES_EVERY = 4
"""The backtest on every fourth atlas site (11 of 44): its fits are most of its CPU."""

NOTES: dict[str, str] = {
    "break_even": "the break-even grid at "
    + ", ".join(f"{n:,}" for n in BREAK_EVEN_AXES["n_saves"])
    + " saves and "
    + ", ".join(f"{n:,}" for n in BREAK_EVEN_AXES["n_questions"])
    + " questions a day only",
    "gate": "the write gate at approval medians of "
    + ", ".join(f"{m:g} s" for m in GATE_MEDIANS_S)
    + f" only, {len(GATE_CONDITIONS)} of its {len(CONDITIONS) - 1} other conditions",
    "exposure": "the exposure sweep at "
    + ", ".join(f"{s / 60:g}" for s in EXPOSURE_INTERVALS_S)
    + f" minutes only ({len(EXPOSURE_INTERVALS_S)} of its {len(SWEEP_INTERVALS_S)} intervals)",
    "sensitivity": f"{len(READINGS)} of the readings",
    "realshape": f"the panel on {', '.join(LOGS)} only, {len(ARMS)} of its {len(PANEL_ARMS)} arms",
    "map": "the map's grid at "
    + "; ".join(
        f"{' and '.join(f'{n:,}' for n in ns)} saves a day on {RANKINGS[r]} ranking"
        for r, ns in MAP_SAVES.items()
    )
    + " only",
    "backtest": f"the backtest on every {SITES_EVERY}th atlas site",
}
"""What a quick run's page says each subset left out (``reproduce.quick_mark``)."""
