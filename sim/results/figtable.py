"""Every figure in results/ and results/notebook/, one entry each: the file, the function
that draws it, the tables (results/<name>.csv) it reads and the page and section that show
it. `make reproduce` draws results/ from ``FIGURES`` and nothing else, results/DATA.md
lists both tables from ``rows``, and tests/test_figtable.py fails on a PNG without an entry
or an entry whose function, CSV or section is not there: a figure is added here or not at
all."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

import pandas as pd
from matplotlib.figure import Figure

from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, read_log
from sim.calibrate.validate import figure as calibration_figure
from sim.params import Params
from sim.report import atlas as atlas_report
from sim.report import breakeven, exposure, figures, gate, openchoices, realshape_section, tornado
from sim.studymap import figures as map_figures
from sim.studymap.report import writeup_rate

Tables = dict[str, pd.DataFrame]
REPORT = "REPORT.md"
NOTEBOOK = "notebooks/explore.py"
"""The notebook's source (jupytext): its figures are traced to it, not rerun."""


@dataclass(frozen=True)
class Entry:
    """One figure. ``draw`` is called with the tables named in ``tables``, in order, then
    what ``extra`` gives (``also`` says what that reads); ``when`` skips a figure whose rows
    a run has not got. A notebook's entry is drawn by the notebook: ``draw`` is the function
    its cell calls (None: the cell draws it with matplotlib itself)."""

    file: str
    draw: Callable[..., Figure] | None
    tables: tuple[str, ...]
    page: str
    section: str
    extra: Callable[[Params, Tables], tuple[object, ...]] | None = None
    also: str = ""
    when: Callable[[Tables], bool] | None = None

    def make(self, base: Params, t: Tables) -> Figure:
        assert self.draw is not None, f"{self.file} is drawn by {self.page}"
        more = self.extra(base, t) if self.extra else ()
        return self.draw(*(t[name] for name in self.tables), *more)

    @property
    def function(self) -> str:
        """module.function of ``draw``."""
        if self.draw is None:
            return ""
        fn = self.draw.func if isinstance(self.draw, partial) else self.draw
        return f"{fn.__module__}.{fn.__qualname__}"


def _rate(base: Params, t: Tables) -> tuple[object, ...]:
    return (writeup_rate(base),)


def _per_hour(base: Params, t: Tables) -> tuple[object, ...]:
    logs = t["map_logs"].drop_duplicates("log").set_index("log")
    return (dict(logs["saves_per_hour"]),)


def _writeup_line(base: Params, t: Tables) -> tuple[object, ...]:
    same = t["map_stale"][t["map_stale"]["relation"] == "same"]
    at = same[(same["edits_per_article_day"] / writeup_rate(base) - 1).abs() < 1e-9]
    return (at.set_index("age_s")["stale_at_age"].sort_index(),)


def _bundled_log(base: Params, t: Tables) -> tuple[object, ...]:
    log = read_log(BUNDLED)
    return log, fit(log, boot=0, shape_only=True)


RATE = "the write-up's edits per article a day (`Params`)"
MAP = "7. The map: your KB's answers"
REAL = "Appendix C. On a real help centre's edits"
FIRST = "The answers on one page"
FIGURES: tuple[Entry, ...] = (
    Entry(
        "atlas.png", atlas_report.figure, ("atlas_sites", "atlas_population"), REPORT, FIRST,
        extra=_writeup_line, also="the map's stale share at the write-up's rate (`map_stale.csv`)",
    ),
    Entry(
        "stale_over_day.png", figures.stale_over_day, ("stale_over_day",), REPORT,
        "1. How fast citations go stale",
    ),
    Entry(
        "check_cost.png", figures.check_cost, ("check_calls_by_check",), REPORT,
        "2. The cost of catching staleness",
    ),
    Entry(
        "cas_by_delay.png", figures.cas_by_delay, ("cas_curve", "cas_by_delay"), REPORT,
        "3. CAS edits with the citation's version, by delay",
    ),
    Entry(
        "break_even.png", breakeven.figure, ("break_even",), REPORT,
        "4. When polling stops being cheaper",
    ),
    Entry("gate.png", gate.figure, ("gate",), REPORT, "5. Waiting for approval"),
    Entry(
        "sensitivity.png", partial(tornado.tornado, figures=list(openchoices.HEADLINE)),
        ("sensitivity",), REPORT, "Appendix B. Which open choices matter",
        also="the headline figures (`sim.report.openchoices.HEADLINE`)",
    ),
    Entry(
        "exposure.png", exposure.figure, ("exposure",), REPORT,
        "6. How long staleness goes unnoticed",
    ),
    Entry("realshape.png", realshape_section.figure, ("realshape",), REPORT, REAL),
    Entry(
        "realshape_panel.png", realshape_section.panel_figure, ("realshape",), REPORT, REAL,
        when=lambda t: "log" in t["realshape"].columns,
    ),
    Entry(
        "map_stale.png", map_figures.stale_figure, ("map_stale", "map_logs"), REPORT, MAP,
        extra=_rate, also=RATE,
    ),
    Entry(
        "map_cas.png", map_figures.cas_figure, ("map_cas", "map_logs"), REPORT, MAP,
        extra=_rate, also=RATE,
    ),
    Entry(
        "map_break_even.png", map_figures.break_even_figure,
        ("map_break_even", "map_break_even_points", "break_even"), REPORT, MAP,
        extra=_per_hour, also="each log's saves an hour (`map_logs.csv`)",
    ),
    Entry(
        "calibration.png", calibration_figure, (), REPORT,
        "The calibration: the real log's edit process", extra=_bundled_log,
        also="the packaged help-centre edit log (`sim/calibrate/logs/help-centre-edits.csv`)"
        " and its fitted shape",
    ),
)  # fmt: skip

NOTEBOOK_FIGURES: tuple[Entry, ...] = (
    Entry(
        "notebook/sensitivity.png", None, ("notebook/sensitivity",), NOTEBOOK,
        "3. Sensitivity of the headline figures",
    ),
    Entry(
        "notebook/break_even.png", breakeven.figure, ("notebook/break_even",), NOTEBOOK,
        "4. Break-even: when does polling stop being cheaper than re-reading?",
    ),
    Entry(
        "notebook/exposure.png", exposure.figure, ("notebook/exposure",), NOTEBOOK,
        "5. How long does a change go unnoticed, and what does noticing sooner cost?",
    ),
    Entry(
        "notebook/edit_fit.png", calibration_figure, (), NOTEBOOK,
        "6. A real help centre's edits",
        also="the edit log `EDIT_LOG` (the packaged help-centre log by default) and its fit",
    ),
    Entry(
        "notebook/realshape.png", realshape_section.figure, ("notebook/realshape_rows",),
        NOTEBOOK, "6. A real help centre's edits",
        also="the arms' effects tabled from those rows (`realshape_effects.realshape_table`)",
    ),
)  # fmt: skip


def draw(base: Params, t: Tables) -> Iterator[tuple[str, Figure]]:
    """results/'s figures, each drawn from its entry when it is saved."""
    for e in FIGURES:
        if e.when is None or e.when(t):
            yield e.file, e.make(base, t)


def rows() -> list[dict[str, object]]:
    """What results/DATA.md says of each figure: its file, function, what it reads and
    where it is shown."""
    return [
        {
            "file": e.file,
            "function": e.function,
            "reads": [f"{name}.csv" for name in e.tables],
            "also": e.also,
            "page": e.page,
            "section": e.section,
        }
        for e in (*FIGURES, *NOTEBOOK_FIGURES)
    ]
