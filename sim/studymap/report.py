"""The map in `make reproduce`: its tables (in the order they are built, each a pure function
of the per-seed rows, the tables before it and the bundled logs); its figures are
`sim/results/figtable.py`'s entries and REPORT.md's section `sim/report/map_section.py`'s."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import pandas as pd

from sim.calibrate.logs import PANEL, EditLog, read_log
from sim.params import Params
from sim.studymap import tables
from sim.studymap.grid import SAVES

Tables = dict[str, pd.DataFrame]
Make = Callable[[Params, dict[str, pd.DataFrame], Tables], pd.DataFrame]


@lru_cache(maxsize=1)
def panel_logs() -> dict[str, EditLog]:
    """The three shared help centres' logs, bundled with the package."""
    return {name: read_log(path) for name, path in PANEL.items()}


def writeup_rate(base: Params) -> float:
    return tables.per_article_day(base, base.n_saves)


def _rates(base: Params, t: Tables) -> list[float]:
    logs = t["map_logs"].drop_duplicates("log")["edits_per_article_day"].tolist()
    top = tables.per_article_day(base, max(max(v) for v in SAVES.values()))
    axis = tables.rate_axis(logs, top)
    return sorted({*axis.tolist(), writeup_rate(base), *logs})


def _cas_intensities(base: Params, t: Tables) -> list[float]:
    grid = sorted({tables.per_article_day(base, n) for v in SAVES.values() for n in v})
    return sorted({*grid, writeup_rate(base)})


TABLES: tuple[tuple[str, Make], ...] = (
    ("map_logs", lambda base, rows, t: tables.logs_table(panel_logs())),
    (
        "map_agreement",
        lambda base, rows, t: tables.agreement(
            base, rows["map_stale"], rows["map_cas"], rows["break_even"]
        ),
    ),
    ("map_stale_by_citation", lambda base, rows, t: tables.by_citation(base, rows["map_stale"])),
    ("map_stale", lambda base, rows, t: tables.stale_map(_rates(base, t))),
    ("map_cas", lambda base, rows, t: tables.cas_map(_cas_intensities(base, t))),
    ("map_break_even", lambda base, rows, t: tables.break_even_map(base)),
    ("map_break_even_points", lambda base, rows, t: tables.break_even_points(t["map_break_even"])),
    ("map_break_even_settings", lambda base, rows, t: tables.break_even_settings(base)),
)
