"""Per-method results in long form (sim/study/methodrows.py): a row per run, seed, method and
interval, from every record type that holds a method's costs and detections."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sim.model import methods
from sim.params import Params
from sim.study import methodrows
from sim.study.experiments import StudyFrames, run_study

WATCHED = Params(n_articles=80, n_questions=40, n_saves=120, push=True, sweep_intervals_s=(600.0,))


@pytest.fixture(scope="module")
def frames() -> StudyFrames:
    return run_study(WATCHED, [1, 2], ("staleness", "control"), workers=1, progress=False)


def test_every_method_of_every_run_at_each_of_its_intervals(frames: StudyFrames) -> None:
    rows = methodrows.method_rows(WATCHED, frames)
    assert list(rows.columns) == methodrows.COLUMNS
    intervals = {
        m.name: {*(WATCHED.sweep_intervals_s if m.swept else ()), *((3600.0,) if m.hourly else ())}
        for m in methods.METHODS
    } | {"push": {0.0}}
    expected = {
        (e, s, m, t)
        for e in ("staleness", "control")
        for s in (1, 2)
        for m, ts in intervals.items()
        for t in ts
    }
    assert set(rows[methodrows.KEYS].itertuples(index=False, name=None)) == expected
    assert not rows.duplicated(methodrows.KEYS).any()
    # one cost per row, taken from the records that hold it
    hourly = frames.checks[frames.checks["method"] == "reread"]
    at = rows.set_index(methodrows.KEYS)
    for (e, s), g in hourly.groupby(["experiment", "seed"]):
        assert at.loc[(e, s, "reread", 3600.0), "calls"] == g["calls"].sum()
        assert at.loc[(e, s, "reread", 3600.0), "checks"] == len(g)
    assert (rows.loc[rows["method"] == "push", "notifications"] > 0).all()
    # push notices every change at once; an exact check leaves none unnoticed at day's end
    assert (rows.loc[rows["method"] == "push", "unnoticed_s"] < 1e-3).all()
    exact = rows["method"].isin([m.name for m in methods.METHODS if m.exact])
    assert (rows.loc[exact, "never"] == 0).all()


def test_a_day_without_citations_keeps_its_costs_and_leaves_the_sums_unknown(
    frames: StudyFrames,
) -> None:
    empty = frames.detections.iloc[0:0]
    quiet = replace(frames, detections=empty, citations=frames.citations.iloc[0:0])
    rows = methodrows.method_rows(WATCHED, quiet)
    assert len(rows) == len(methodrows.method_rows(WATCHED, frames))
    assert rows[["changed", "unnoticed_s", "never", "held_s"]].isna().all().all()
    assert (rows["calls"] > 0).any()


def test_runs_that_check_nothing_give_no_rows() -> None:
    plain = replace(WATCHED, push=False, sweep_intervals_s=())
    cas = run_study(plain, [1], ("cas",), workers=1, progress=False)
    rows = methodrows.method_rows(WATCHED, cas)
    assert rows.empty and list(rows.columns) == methodrows.COLUMNS


def test_at_the_checkers_interval_the_sweeps_row_is_kept() -> None:
    """The interval sweep at the hour and the hourly checker both run re-read and poll; the
    day records the sweep's detections, so its costs are the row's."""
    hour = replace(WATCHED, push=False, sweep_intervals_s=(3600.0,))
    f = run_study(hour, [1], ("staleness",), workers=1, progress=False)
    rows = methodrows.method_rows(hour, f).set_index("method")
    assert len(rows) == len({m.name for m in methods.METHODS if m.hourly or m.swept})
    swept = f.cadence.set_index("method")
    hourly_reread = f.checks[f.checks["method"] == "reread"]["calls"].sum()
    assert swept.loc["reread", "calls"] < hourly_reread  # the stopping rule: the two differ
    for m in methods.SWEPT:
        assert rows.loc[m.name, "calls"] == swept.loc[m.name, "calls"]
    checked = f.checks[f.checks["method"] == "title_only"]
    assert rows.loc["title_only", "calls"] == checked["calls"].sum()
