"""`advise --edit-log`'s days to a precision on a sparse process (sim/advise/sparse.py): a
day not simulated (no save inside it) or run with fewer checks gives the figures the full
day gives, and the run does not depend on the worker count."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from sim import rng
from sim.advise import Costs
from sim.advise.sampled import SWEPT_METHODS, Precision, options
from sim.advise.sparse import day_rows, run_sparse
from sim.calibrate.fit import fit, fit_shape
from sim.calibrate.logs import BUNDLED, read_log
from sim.model.schedule import draw_schedule
from sim.params import Params

SPARSE = Params(
    n_articles=20, n_questions=6, n_saves=1, arrivals="poisson", day_s=2 * 3600.0, push=True
)
EXPOSED = replace(SPARSE, sweep_intervals_s=(900.0, 3600.0), run_checker=False)
KEYS = ["seed", "method", "interval_s"]


def test_a_day_left_out_or_run_light_gives_the_full_days_figures() -> None:
    quiet = light = 0
    for seed in (3, 4):  # a day with 2 saves and one with none
        full = day_rows((EXPOSED, seed, SWEPT_METHODS, True)).set_index(KEYS).sort_index()
        # re-read notices a change at the same check as the poll with its cursor kept
        for t in EXPOSED.sweep_intervals_s:
            a, b = (full.loc[(seed, m, t)].fillna(0) for m in ("reread", "poll"))
            assert (a["changed"], a["unnoticed_s"]) == (b["changed"], b["unnoticed_s"])
        r = day_rows((EXPOSED, seed, ("poll",), False))
        if r is None:  # no save inside the day: nothing changed, for any option
            quiet += 1
            assert draw_schedule(EXPOSED, rng.streams(seed)).day_saves == 0
            assert full["changed"].fillna(0).sum() == 0
            assert full["unnoticed_s"].fillna(0).sum() == 0
            continue
        light += 1
        r = r.set_index(KEYS).sort_index()
        assert set(r.index.get_level_values("method")) == {"poll", "push"}
        pd.testing.assert_frame_equal(r, full.loc[r.index])
    assert quiet and light  # both kinds were seen


@pytest.mark.deep
def test_the_run_does_not_depend_on_the_worker_count_and_states_its_days(deep: bool) -> None:
    """Six days (four run in full, then days without a save left out); 16 under --deep."""
    want = Precision(half_width_min=1e6, min_changed=1, max_days=16 if deep else 6)
    runs = [
        run_sparse({"p": SPARSE}, Costs(), 30.0, want, workers, say=lambda _: None)
        for workers in (1, 2)
    ]
    (one, why), (two, _) = runs
    pd.testing.assert_frame_equal(options(one["p"], Costs()), options(two["p"], Costs()))
    s = one["p"]
    assert s.cost_days >= 4 and s.quiet and min(s.quiet) > s.cost_days
    table = options(s, Costs())
    assert (table["cost_days"] <= s.cost_days).all() and (table["days"] <= s.days).all()
    assert why in ("the precision asked for was reached", "the cap on days was reached")


def test_the_shape_alone_is_the_full_fits_shape(tmp_path: Path) -> None:
    log = tmp_path / "edits.csv"
    log.write_text("".join(BUNDLED.read_text().splitlines(keepends=True)[:500]))
    edits = read_log(log)
    assert fit_shape(edits, gof_sims=20) == fit(edits, boot=0, gof_sims=20).shape
