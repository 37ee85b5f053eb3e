"""What `reproduce --quick` leaves out of the study's grids: a quick run previews every table
and figure on a few seeds, and where a grid's points cost most of its CPU it runs a subset
of them, each named here and on every page it marks.

Measured on one core at a quick run's seeds (``python -m sim bench --only reproduce_quick``
times the whole): the panel's three logs took 46 CPU-s, the break-even grid's 12,000-save
column most of its 26, the 22 readings 16, the backtest's 44 sites 7 and the map's
3,000-save days most of its 6. Each subset leaves every table rows to show (`make check`
builds every page of a quick run, on the pool and on a Dask cluster).
"""

from __future__ import annotations

from sim.study.readings import ReadingKey
from sim.study.realshape import ARMS as PANEL_ARMS
from sim.study.realshape import SHARED_LOG
from sim.studymap.forms import Relation

LOGS: tuple[str, ...] = (SHARED_LOG,)
"""The panel on its first log only (the write-up's arms run once and are shared anyway)."""
ARMS = tuple(
    a
    for a in PANEL_ARMS
    if a.name in ("writeup", "calibrated", "counterparts", "+popularity", "+bursts")
)
"""The panel's arms from the write-up's to the calibrated shape with two of its features
(popularity, bursts) moved one at a time; the bulk and profile features and the five arms
that match or cluster one feature are the full run's."""

MAP_SAVES: dict[Relation, tuple[int, ...]] = {"same": (3, 300), "independent": (300,)}
"""The map's grid at the quietest point and the write-up's rate (the full run's six points
run 3 to 3,000 saves a day; the 3,000-save days cost most)."""

RANKINGS = {"same": "the same", "independent": "an independent"}

GATE_MEDIANS_S: tuple[float, ...] = (10.0, 120.0)
"""The write gate's approval latencies: the shortest and the one the conditions grid and
the recommendation use (the full run's five: 10 s to 30 min)."""

BREAK_EVEN_AXES: dict[str, list] = {"n_saves": [300, 3000], "n_questions": [10, 40, 120]}
"""The break-even grid without its 1,000- and 12,000-save columns (a day's cost grows with
its saves: those two were four fifths of the grid's saves)."""

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
    + " saves a day only",
    "gate": "the write gate at approval medians of "
    + ", ".join(f"{m:g} s" for m in GATE_MEDIANS_S)
    + " only",
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
