"""The real-shape study's pure steps: per-seed rows to tables, recomputable from rows alone;
and one small end-to-end run whose rows carry every arm and figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim import stats
from sim.advise.choice import advised_choice
from sim.calibrate.fit import fit
from sim.calibrate.logs import BUNDLED, read_log
from sim.params import Params
from sim.report import realshape_effects, realshape_section
from sim.study import realshape, realshape_panel


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
    t = realshape_effects.realshape_table(_rows(values)).set_index("arm")
    cal = t.loc["calibrated"]
    assert cal["mean"] == pytest.approx(np.mean(values["calibrated"]))
    paired = stats.mean_interval(np.subtract(values["calibrated"], values["writeup"]))
    assert (cal["diff_mean"], cal["diff_ci_lo"], cal["diff_ci_hi"]) == pytest.approx(
        (paired.mean, paired.lo, paired.hi)
    )
    assert np.isnan(t.loc["writeup", "diff_mean"])  # the reference of the others
    moves = realshape_effects.moves_table(realshape_effects.realshape_table(_rows(values)))
    row = moves.set_index("figure").loc["stale_share"]
    assert row["moved_most_by"] == "popularity" and row["p_holm"] < 0.05


def _ablation(moves: dict[str, list[float]]) -> pd.DataFrame:
    """Rows of the write-up, every feature off and each feature's arm at off + its move."""
    off = [0.30, 0.32, 0.31, 0.35, 0.33]
    values = {"writeup": off, "counterparts": off}
    for arm in realshape.ABLATION:
        values[arm] = list(np.add(off, moves.get(arm, [0.0] * len(off))))
    return _rows(values)


def test_the_largest_move_named_is_one_holms_correction_keeps() -> None:
    """A large noisy move is passed over for a smaller one the correction keeps; with none
    kept, none is named."""
    noisy = [0.30, -0.20, 0.40, -0.10, 0.10]
    steady = [0.011, 0.009, 0.010, 0.010, 0.012]
    moves = realshape_effects.moves_table(
        realshape_effects.realshape_table(_ablation({"+bursts": noisy, "+popularity": steady}))
    ).set_index("figure")
    assert moves.loc["stale_share", "moved_most_by"] == "popularity"
    assert moves.loc["stale_share", "family_moves"] == len(realshape.ABLATION)
    alone = realshape_effects.moves_table(
        realshape_effects.realshape_table(_ablation({"+bursts": noisy}))
    )
    row = alone.set_index("figure").loc["stale_share"]
    assert row["moved_most_by"] == "none" and np.isnan(row["diff_mean"])
    assert row["p_holm"] >= 0.05


def test_the_grids_columns_are_on_the_seeds_every_arm_ran() -> None:
    """The calibrated arm runs more seeds; on the paired table two columns subtract to the
    paired difference."""
    values = {
        "writeup": [0.30, 0.32, 0.31, 0.35, 0.10, 0.90],
        "calibrated": [0.20, 0.25, 0.21, 0.26, 0.80, 0.05],
        "counterparts": [0.29, 0.33, 0.30, 0.36],
    }
    t = realshape_effects.paired_table(_rows(values)).set_index("arm")
    assert set(t["seeds"]) == {4}
    for arm in ("calibrated", "counterparts"):
        assert t.loc[arm, "mean"] - t.loc["writeup", "mean"] == pytest.approx(
            t.loc[arm, "diff_mean"]
        )
    whole = realshape_effects.realshape_table(_rows(values)).set_index("arm")
    assert whole.loc["calibrated", "seeds"] == 6


def test_a_seed_without_a_value_is_left_out_of_that_figure() -> None:
    rows = _rows(
        {"writeup": [0.5, np.nan, 0.7], "calibrated": [0.4, 0.6, 0.5]}, "title_caught_share"
    )
    t = realshape_effects.realshape_table(rows).set_index("arm")
    assert t.loc["writeup", "seeds"] == 2 and t.loc["calibrated", "seeds"] == 3
    assert t.loc["calibrated", "diff_mean"] == pytest.approx(np.mean([0.4 - 0.5, 0.5 - 0.7]))


SMALL_DAY = Params(n_articles=100, n_questions=12, n_saves=100)
"""A day small enough for these tests of the runs' structure (their rows, tables, sections
and figures, not their figures' values): a third of the write-up's saves halves its CPU,
which the humans' saves took most of, and a quarter of its articles (the KB the day opens,
indexes and searches) takes a third off the panel's runs; the panel's four seeds still give
39 of the calibrated arm's 42 figures an equal-volume interval (37 at 400 articles, 39 at
400 articles and 300 saves)."""


def test_a_small_run_gives_every_arm_and_figure_and_the_section_renders(tmp_path) -> None:
    shape = fit(read_log(BUNDLED), boot=0, gof_sims=10).shape
    base = SMALL_DAY
    arms = tuple(a for a in realshape.ARMS if a.name in ("writeup", "calibrated", "counterparts"))
    rows = realshape.realshape_runs(
        base, advised_choice(base), shape, [1, 2], workers=1, progress=False, arms=arms
    )
    assert list(rows.columns) == ["arm", "seed", "figure", "value"]
    assert len(rows) == len(arms) * 2 * len(realshape.FIGURES)
    table = realshape_effects.realshape_table(rows, arms)
    # the tables come back from committed rows alone
    path = tmp_path / "realshape_rows.csv"
    rows.to_csv(path, index=False, float_format="%.10g")
    again = realshape_effects.realshape_table(pd.read_csv(path), arms)
    pd.testing.assert_frame_equal(again, table, check_exact=False, rtol=1e-8)
    # the write-up's day holds exactly n_saves; the calibrated one n_saves on average
    saves = rows[rows["figure"] == "saves"].set_index(["arm", "seed"])["value"]
    assert (saves.loc["writeup"] == base.n_saves).all()
    setting = realshape.setting(base, shape, advised_choice(base), pd.DataFrame())
    assert setting["window"].split()[0] in realshape.WEEKDAY_NAMES[:5]
    text = realshape_section.section_text(table, realshape_effects.moves_table(table), 2, setting)
    assert f"({setting['window']} UTC)" in text
    assert "| citations stale or gone at day end |" in text


def test_the_panel_runs_every_log_and_says_what_holds_across_it(tmp_path) -> None:
    base = SMALL_DAY
    arms = tuple(a for a in realshape.ARMS if a.name in ("writeup", "calibrated"))
    request = realshape.panel_request(base, advised_choice(base), [1, 2, 3, 4], arms)
    assert len(request.points) == 1 + len(realshape_panel.panel_shapes())  # the write-up's once
    [runs] = realshape.run_all([request], workers=1, progress=False)
    rows = realshape.panel_rows(base, advised_choice(base), runs, arms)
    assert list(rows.columns) == ["log", "arm", "seed", "figure", "value"]
    assert list(dict.fromkeys(rows["log"])) == list(realshape.PANEL)
    table = realshape_effects.realshape_table(rows, arms)
    # each log's table is that log's rows alone; the write-up's arm is the same on each
    for log in realshape.PANEL:
        own = realshape_effects.realshape_table(rows[rows["log"] == log].drop(columns="log"), arms)
        got = table[table["log"] == log].drop(columns="log").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, own)
    w = table[(table["arm"] == "writeup") & (table["figure"] == "stale_share")]["mean"]
    assert w.nunique() == 1
    saves = table[(table["arm"] == "calibrated") & (table["figure"] == "saves")]["mean"]
    assert saves.nunique() == len(realshape.PANEL)  # each log's arm on its own shape's days
    assert {"eqvol_mean", "eqvol_ci_lo", "eqvol_ci_hi"} <= set(table.columns)
    setting = realshape.setting(
        base, realshape_panel.packaged_shape(), advised_choice(base), realshape_panel.panel_traits()
    )
    assert list(setting["traits"]["log"]) == list(realshape.PANEL)
    text = realshape_section.section_text(table, realshape_effects.moves_table(table), 4, setting)
    assert "**Across a panel of real help centres.**" in text
    for log in realshape.PANEL:
        assert f"| {log} |" in text  # a row of traits per log
    assert "Holds across the panel:" in text and "Depends on the log:" in text
    realshape_section.figure(table).savefig(tmp_path / "shared.png")
    realshape_section.panel_figure(table).savefig(tmp_path / "panel.png")


def test_the_panel_verdict_reads_the_intervals() -> None:
    def cell(mean, lo, hi):
        return pd.Series({"diff_mean": mean, "diff_ci_lo": lo, "diff_ci_hi": hi})

    v = realshape_section.verdict
    assert v([cell(-1, -2, -0.5), cell(-3, -4, -2)]) == "holds: lower on every log"
    assert v([cell(1, 0.5, 2), cell(-3, -4, -2)]) == "reverses with the log"
    assert v([cell(1, 0.5, 2), cell(0.2, -1, 1.4)]).startswith("same direction; beyond noise on 1")
    assert v([cell(1, -0.5, 2), cell(-0.2, -1, 0.4)]).startswith("undecided on every log")
    assert v([cell(1, 0.5, 2), cell(-0.2, -1, 0.4)]) == "depends on the log"


def test_equal_volume_removes_a_difference_that_is_the_volume_s() -> None:
    rng = np.random.default_rng(2)
    dv = pd.Series(rng.normal(0, 50, 40))
    d = pd.Series(0.001 * dv + rng.normal(0, 0.001, 40))  # all of the difference is volume
    eq = realshape_effects.equal_volume(d, dv)
    assert eq["eqvol_ci_lo"] < 0 < eq["eqvol_ci_hi"]
    assert abs(eq["eqvol_mean"]) < 0.002


def test_a_save_at_the_instant_of_the_one_before_waits_no_negative_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bitwarden's shape with sessions ×2, seed 12: saves of one publish share an instant,
    and the clock (a sum of earlier waits) passes it by an ulp; SimPy refuses a wait of
    -1.1e-13 s, which ended the run. The save now waits 0, and the day runs through."""
    import sim.model.humans as humans
    from sim.calibrate.shape import stretch_sessions
    from sim.model.day import run_day
    from sim.study.experiments import experiment_params

    clamped: list[float] = []

    def spy(a: float, b: float) -> float:
        if b < a:
            clamped.append(b)
        return a if a > b else b

    monkeypatch.setattr(humans, "max", spy, raising=False)
    arm = next(a for a in realshape.ARMS if a.name == "calibrated")
    base = Params()
    shape = stretch_sessions(realshape_panel.panel_shape("Bitwarden"), 2.0)  # where it was found
    params = realshape.arm_params(base, arm, shape, advised_choice(base))
    result = run_day(experiment_params(params, "staleness"), 12)
    assert clamped and max(clamped) < 0 and min(clamped) > -1e-9  # an ulp, not a disorder
    assert result.saves


def test_the_first_page_names_only_an_assumed_question_relation_from_the_panel() -> None:
    """The first page picks from the panel only the arms that change how questions relate to
    edits (no log measures it; the logs' features are the map's), by Holm over them."""
    from sim.report.designer import top_real_move
    from sim.report.render import environment

    phrases = environment().get_template("firstpage_phrases.md.j2").module

    values = {
        "writeup": [0.30, 0.32, 0.31, 0.35],
        "calibrated": [0.28, 0.31, 0.29, 0.33],
        "counterparts": [0.29, 0.33, 0.30, 0.36],
        "+popularity": [0.25, 0.28, 0.26, 0.31],
        "calibrated_independent": [0.10, 0.12, 0.11, 0.13],
    }
    m = top_real_move(realshape_effects.realshape_table(_rows(values)), "stale_share")
    assert m["assumption"]["arm"] == realshape_section.LABELS["calibrated_independent"]
    assert set(m["family"]["arm"]) == {"calibrated_independent"}  # features are not picked
    text = str(phrases.assumed(m))  # type: ignore[attr-defined]
    assert "questions independent of edits move it by -18.8 points (" in text
    assert f"the largest of the {len(m['family'])} panel moves" in text
    assert "its interval is not adjusted for the pick" in text


def test_the_paired_table_reuses_the_realshape_table_when_every_arm_ran_the_same_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """realshape_paired.csv is realshape_table of the same rows when no seed is cut (a quick
    run): built once, not twice; with a cut it is paired_table's."""
    from sim.results import tables

    even = _rows({"writeup": [0.30, 0.32, 0.31], "calibrated": [0.20, 0.25, 0.21]})
    uneven = _rows({"writeup": [0.30, 0.32, 0.31, 0.9], "calibrated": [0.20, 0.25, 0.21]})
    built = realshape_effects.realshape_table
    calls = []
    monkeypatch.setattr(
        realshape_effects, "realshape_table", lambda rows: calls.append(len(rows)) or built(rows)
    )
    for rows in (even, uneven):
        calls.clear()
        t = tables.build_tables(Params(), {"realshape": rows}, ("realshape", "realshape_paired"))
        assert calls == ([6] if rows is even else [7, 6])
        pd.testing.assert_frame_equal(t["realshape_paired"], realshape_effects.paired_table(rows))
