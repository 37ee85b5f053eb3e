"""Verdicts: a band from a verbal figure's wording, z in five-seed standard errors, and
Holm's correction over the figures judged together."""

from __future__ import annotations

import math

import numpy as np

from sim.report.verdicts import judge, p_value
from sim.stats import holm_rejected
from sim.study.reported import REPORTED


def test_a_figure_inside_the_five_seed_range_is_reproduced_and_z_measures_the_gap() -> None:
    values = np.array([0.30, 0.32, 0.34, 0.31, 0.33] * 20)
    mean, sd = values.mean(), values.std(ddof=1)
    inside = judge((0.312, 0.312), values)
    assert inside["verdict"] == "reproduced"
    assert math.isclose(inside["z"], (0.312 - mean) / (sd / math.sqrt(5)))
    far = judge((0.45, 0.45), values)
    assert far["verdict"] == "not reproduced" and not far["borderline"] and far["z"] > 1.96


def test_a_band_counts_from_its_nearest_edge() -> None:
    values = np.array([0.30, 0.32, 0.34, 0.31, 0.33] * 20)
    assert judge((0.25, 0.40), values)["z"] == 0.0
    banded = judge((0.328, 0.45), values)
    assert banded["verdict"] == "reproduced"  # the band meets the five-seed range
    assert 0 < banded["z"] < judge((0.40, 0.40), values)["z"]


def test_verbal_figures_carry_their_bands() -> None:
    bands = {r.key: r.band_text for r in REPORTED if r.band is not None}
    assert bands == {
        "zipf_answers_with_stale_share": "75–85 %",
        "cas_reject_share_5s": "below 1 %",
        "cas_reject_share_3600s": "35–45 %",
        "cas_human_reject_share_3600s": "35–45 %",
    }


def test_holm_rejects_step_down() -> None:
    p = {"a": 0.001, "b": 0.03, "c": 0.04}
    assert holm_rejected(p) == ["a"]  # 0.03 > 0.05 / 2 stops the steps
    assert holm_rejected({"a": 0.001, "b": 0.02}) == ["a", "b"]
    assert math.isclose(p_value(1.959964), 0.05, abs_tol=1e-6)
