"""The open choices judged as a second referee would: the delay-ladder family the text
allows, borderline only near the threshold, undecided where the interval straddles it, Holm
over independent tests only, the gone-as-rejection reading against the write-up's own 191
of 600, and a timing reading that moves questions and saves apart."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from sim import rng
from sim.model.schedule import draw_schedule
from sim.params import HOUR_S, LADDER_S, Params
from sim.report.comparison import gone_counted_as_rejection, holm_family
from sim.report.sensitivity import (
    COUNTING,
    can_move,
    full_strength,
    reported_for,
    robustness,
    sensitivity_table,
)
from sim.report.verdicts import judge_estimate
from sim.stats import Z95
from sim.study.ladder import ladder_family, ladder_label
from sim.study.readings import CHOICES, LADDER
from sim.study.reported import RATIOS, REPORTED

BY_KEY = {r.key: r for r in REPORTED}


def test_the_ladder_family_is_every_ladder_the_text_allows_and_holds_the_default() -> None:
    family = ladder_family()
    assert family[0] == LADDER_S and len(set(family)) == len(family) == 12
    for ladder in family:
        assert len(ladder) == 4 and list(ladder) == sorted(ladder)
        assert ladder[0] < 60 and HOUR_S in ladder  # one of seconds, one of an hour
        assert HOUR_S < ladder[3] <= Params().day_s  # the one the arithmetic needs
    minutes = [ladder for ladder in family if 60 <= ladder[1] < HOUR_S]
    assert len(minutes) == 9  # a minutes rung below the hour and a long one above it
    # no rung between seconds and the hour: two long ones (the ladders a referee asked for)
    assert {ladder for ladder in family if ladder[1] == HOUR_S} == {
        (5.0, HOUR_S, 2 * HOUR_S, 4 * HOUR_S),
        (5.0, HOUR_S, 2 * HOUR_S, 8 * HOUR_S),
        (5.0, HOUR_S, 4 * HOUR_S, 8 * HOUR_S),
    }
    assert LADDER.readings == family[1:] and LADDER in CHOICES
    assert ladder_label((5.0, 1800.0, 3600.0, 28800.0)) == "5 s, 30 min, 1 h, 8 h"


def _band_edge_sd(z: float, sd: float = 0.05) -> tuple[tuple[float, float], float]:
    """A point band and a mean z five-seed standard errors below it."""
    return (0.30, 0.30), 0.30 - z * sd / math.sqrt(5)


def test_borderline_is_only_a_near_pass_and_a_far_miss_is_not_borderline() -> None:
    sd = 0.05
    for z, verdict, borderline in (
        (1.0, "reproduced", False),
        (1.8, "reproduced", True),
        (2.5, "not reproduced", False),
        (6.94, "not reproduced", False),
    ):
        band, mean = _band_edge_sd(z, sd)
        v = judge_estimate(band, mean, sd, (mean, mean))
        assert math.isclose(v["z"], z)
        assert (v["verdict"], v["borderline"]) == (verdict, borderline), z


def test_a_verdict_whose_interval_straddles_the_threshold_is_undecided() -> None:
    sd = 0.05
    band, mean = _band_edge_sd(1.9, sd)
    step = 0.2 * sd / math.sqrt(5)  # 0.2 five-seed standard errors
    assert judge_estimate(band, mean, sd, (mean - step, mean + step))["verdict"] == "undecided"
    tight = judge_estimate(band, mean, sd, (mean - step / 10, mean + step / 10))
    assert tight["verdict"] == "reproduced"
    # far from the threshold, a wide interval does not make it undecided
    band, mean = _band_edge_sd(6.0, sd)
    assert judge_estimate(band, mean, sd, (mean - step, mean + step))["verdict"] == (
        "not reproduced"
    )


def test_holm_runs_over_the_independent_tests_only() -> None:
    family = set(holm_family())
    assert {"top10_question_share", "top10_save_share"}.isdisjoint(family)  # model inputs
    assert "cas_replay_share" not in family  # 1 − rejections − gone
    assert "cas_human_reject_share_3600s" not in family  # a second reading of the 1 h figure
    assert {"zipf_answers_with_stale_share", "control_answers_with_stale_share"}.isdisjoint(
        family
    )  # infeasible as reported
    assert {"cas_reject_share", "cas_gone_share", "cas_reject_share_3600s"} <= family
    assert all(BY_KEY[k].rule == "share" for k in family)


def test_gone_counted_as_rejection_is_judged_against_the_write_ups_own_191_of_600() -> None:
    counted = gone_counted_as_rejection()
    assert counted.counts == (191, 600) and math.isclose(counted.value, 191 / 600)
    assert "191 of 600" in counted.as_written
    figure = BY_KEY["cas_reject_share"]
    assert reported_for(COUNTING, figure) == counted
    assert reported_for("default", figure) is figure
    assert reported_for(COUNTING, BY_KEY["cas_gone_share"]) is BY_KEY["cas_gone_share"]
    for r in REPORTED:
        if r.counts is not None:
            assert math.isclose(r.value, r.counts[0] / r.counts[1])


def _synthetic_runs(shift: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Sensitivity runs (default and the counting reading) and a headline on more seeds."""
    g = np.random.default_rng(7)
    columns = {r.key: 0.3 + 0.02 * g.standard_normal(100) for r in REPORTED}
    for key, (num, den) in RATIOS.items():  # the counts seeds 1–5 are pooled from
        columns[den] = np.full(100, 100.0)
        columns[num] = 100 * columns[key]
    headline = pd.DataFrame({"seed": np.arange(1, 101), **columns})
    sens = headline[headline["seed"] <= 30].assign(choice="default", reading="default")
    counted = sens.assign(choice=COUNTING, reading="True")
    counted["cas_reject_share"] += shift
    runs = pd.concat([sens, counted], ignore_index=True).assign(label=lambda d: d["reading"])
    return runs, headline


def test_a_reading_is_the_headline_mean_plus_its_paired_shift() -> None:
    runs, headline = _synthetic_runs(0.0175)
    table = sensitivity_table(runs, headline).set_index(["choice", "figure"])
    row = table.loc[(COUNTING, "cas_reject_share")]
    assert math.isclose(row["shift_from_default"], 0.0175)
    assert math.isclose(row["mean"], headline["cas_reject_share"].mean() + 0.0175)
    assert row["reported"] == gone_counted_as_rejection().as_written
    assert row["seeds"] == 100 and row["shift_seeds"] == 30
    # the counting reading moves one figure only
    assert not table.loc[(COUNTING, "cas_gone_share"), "can_move"]
    assert table.loc[(COUNTING, "cas_gone_share"), "shift_from_default"] == 0.0


def test_full_strength_combines_the_headline_and_the_shift_intervals() -> None:
    g = np.random.default_rng(3)
    headline = 0.3 + 0.05 * g.standard_normal(300)
    default = pd.Series(0.3 + 0.05 * g.standard_normal(60), index=range(1, 61))
    mine = default + 0.01 + 0.01 * pd.Series(g.standard_normal(60), index=range(1, 61))
    v = full_strength((0.4, 0.4), headline, mine, default)
    diff = (mine - default).to_numpy()
    se = math.hypot(headline.std(ddof=1) / math.sqrt(300), diff.std(ddof=1) / math.sqrt(60))
    assert math.isclose(v["mean"], headline.mean() + diff.mean())
    assert math.isclose(v["ci_hi"] - v["ci_lo"], 2 * Z95 * se)
    assert math.isclose(v["sd"], headline.std(ddof=1) * mine.std(ddof=1) / default.std(ddof=1))
    same = full_strength((0.4, 0.4), headline, default, default)  # a reading that changes nothing
    assert math.isclose(same["sd"], headline.std(ddof=1))
    assert math.isclose(same["mean"], headline.mean())


def test_the_shared_seeds_covariance_is_reported_beside_the_interval() -> None:
    """A shift that moves with the default on its seeds widens the combined interval by the
    covariance term 2 cov(h_i, d_i) / N; a constant shift leaves it as it is."""
    g = np.random.default_rng(5)
    headline = 0.3 + 0.05 * g.standard_normal(300)
    default = pd.Series(headline[:60], index=range(1, 61))
    for mine, cov in ((default + 0.02, 0.0), (default * 1.5, 0.5 * default.var(ddof=1))):
        v = full_strength((0.4, 0.4), headline, mine, default)
        half = (v["ci_hi"] - v["ci_lo"]) / 2
        assert math.isclose(v["ci_half_shared"], math.sqrt(half**2 + Z95**2 * 2 * cov / 300))
        assert v["verdict_shared"] in ("reproduced", "not reproduced", "undecided")
    assert v["ci_half_shared"] > half


def _ranks(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Question times, save times, and where each question falls among the saves."""
    s = draw_schedule(params, rng.streams(11))
    return s.question_s, s.save_s, np.searchsorted(s.save_s, s.question_s)


def test_the_shared_clock_keeps_every_question_s_order_against_every_save() -> None:
    q0, s0, order0 = _ranks(Params())
    q1, s1, order1 = _ranks(Params(day_profile="two_peaks"))
    assert not np.allclose(q0, q1) and not np.allclose(s0, s1)
    assert np.array_equal(order0, order1)  # so no day-end staleness figure can move
    assert not can_move("day_profile", "two_peaks", "zipf_stale_share")
    assert can_move("day_profile", "two_peaks", "cas_reject_share")


def test_the_timing_readings_move_questions_and_saves_apart() -> None:
    q0, s0, order0 = _ranks(Params())
    q, s, order = _ranks(Params(day_profile="questions_peak"))
    assert np.array_equal(s, s0) and not np.allclose(q, q0)
    assert not np.array_equal(order, order0)
    q, s, order = _ranks(Params(day_profile="saves_peak"))
    assert np.array_equal(q, q0) and not np.allclose(s, s0)
    assert not np.array_equal(order, order0)
    for reading in ("questions_peak", "saves_peak"):
        assert can_move("day_profile", reading, "zipf_stale_share")
        assert can_move("day_profile", reading, "control_stale_share")


def test_a_reading_that_cannot_move_a_figure_is_not_counted_for_it() -> None:
    runs, headline = _synthetic_runs(0.0)
    table = sensitivity_table(runs, headline)
    comparison = pd.DataFrame({"key": table["figure"].unique(), "verdict": "reproduced"})
    said = robustness(table, comparison)
    assert said["cas_gone_share"] == "no reading can move it"
    assert " of 1 readings" in said["cas_reject_share"]  # the counting reading alone


def test_an_interval_end_below_zero_does_not_make_a_rare_share_undecided() -> None:
    # the 5 s share: almost never rejected; a reading whose own seeds all give 0
    v = judge_estimate((0.0, 0.01), 0.001, 0.0, (-0.001, 0.003))
    assert v["verdict"] == "reproduced"
