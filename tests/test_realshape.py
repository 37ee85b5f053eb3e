"""The real-shape study's pure steps: per-seed rows to tables, recomputable from rows alone;
and one small end-to-end run whose rows carry every arm and figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, read_log
from sim.params import Params
from sim.report import realshape, realshape_section
from sim.report.stats import interval


def _rows(values: dict[str, list[float]], figure: str = "stale_share") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"arm": arm, "seed": seed, "figure": figure, "value": v}
            for arm, vs in values.items()
            for seed, v in enumerate(vs, start=1)
        ]
    )


def test_table_means_and_seed_paired_differences() -> None:
    values = {
        "writeup": [0.30, 0.32, 0.31, 0.35],
        "calibrated": [0.20, 0.25, 0.21, 0.26],
        "counterparts": [0.29, 0.33, 0.30, 0.36],
        "+popularity": [0.19, 0.24, 0.22, 0.25],
        "+bursts": [0.29, 0.34, 0.30, 0.36],
        "+bulk": [0.31, 0.33, 0.31, 0.37],
        "+profile": [0.29, 0.33, 0.30, 0.36],
    }
    t = realshape.realshape_table(_rows(values)).set_index("arm")
    cal = t.loc["calibrated"]
    assert cal["mean"] == pytest.approx(np.mean(values["calibrated"]))
    paired = interval(np.subtract(values["calibrated"], values["writeup"]))
    assert (cal["diff_mean"], cal["diff_ci_lo"], cal["diff_ci_hi"]) == pytest.approx(
        (paired.mean, paired.lo, paired.hi)
    )
    assert np.isnan(t.loc["writeup", "diff_mean"])  # the reference of the others
    moves = realshape.moves_table(realshape.realshape_table(_rows(values)))
    row = moves.set_index("figure").loc["stale_share"]
    assert row["moved_most_by"] == "popularity" and row["significant"]


def test_a_seed_without_a_value_is_left_out_of_that_figure() -> None:
    rows = _rows(
        {"writeup": [0.5, np.nan, 0.7], "calibrated": [0.4, 0.6, 0.5]}, "title_caught_share"
    )
    t = realshape.realshape_table(rows).set_index("arm")
    assert t.loc["writeup", "seeds"] == 2 and t.loc["calibrated", "seeds"] == 3
    assert t.loc["calibrated", "diff_mean"] == pytest.approx(np.mean([0.4 - 0.5, 0.5 - 0.7]))


def test_a_small_run_gives_every_arm_and_figure_and_the_section_renders(tmp_path) -> None:
    shape = fit(read_log(BUNDLED), boot=0, gof_sims=10).shape
    base = Params(n_questions=12)
    arms = tuple(a for a in realshape.ARMS if a.name in ("writeup", "calibrated", "counterparts"))
    rows = realshape.realshape_runs(base, shape, [1, 2], workers=1, progress=False, arms=arms)
    assert list(rows.columns) == ["arm", "seed", "figure", "value"]
    assert len(rows) == len(arms) * 2 * len(realshape.FIGURES)
    table = realshape.realshape_table(rows, arms)
    # the tables come back from committed rows alone
    path = tmp_path / "realshape_rows.csv"
    rows.to_csv(path, index=False, float_format="%.10g")
    again = realshape.realshape_table(pd.read_csv(path), arms)
    pd.testing.assert_frame_equal(again, table, check_exact=False, rtol=1e-8)
    # the write-up's day holds exactly n_saves; the calibrated one n_saves on average
    saves = rows[rows["figure"] == "saves"].set_index(["arm", "seed"])["value"]
    assert (saves.loc["writeup"] == base.n_saves).all()
    setting = realshape.setting(base, shape, realshape.advised_choice(base))
    assert setting["window"].split()[0] in realshape.WEEKDAY_NAMES[:5]
    text = realshape_section.section_text(table, realshape.moves_table(table), 2, setting)
    assert f"({setting['window']} UTC)" in text
    assert "| citations stale or gone at day end |" in text
