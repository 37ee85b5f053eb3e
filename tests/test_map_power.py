"""Each map point's margin and power (sim.studymap.tables, sim.stats.detection_power) and
the exact forms' pooled gap (sim.studymap.bias)."""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd

from sim.stats import detection_power, units_for_power
from sim.studymap.bias import form_gap, sign_p
from sim.studymap.tables import MARGIN_FLOOR, MARGINS, POWER, Z_TOLERANCE

RESULTS = Path(__file__).resolve().parents[1] / "results"


def test_power_formula_and_seeds_needed() -> None:
    z80 = NormalDist().inv_cdf(0.8)
    assert math.isclose(detection_power(1.0, 1.0 / (3.5 + z80), 3.5), 0.8, abs_tol=1e-4)
    assert detection_power(0.0, 1.0, 1.96) == 2 * NormalDist().cdf(-1.96)
    assert detection_power(0.1, 0.0, 3.5) == 1.0
    # a mean of 20 units with SE 0.02 and margin 0.01: SE must fall by (3.5+z80)·0.02/0.01
    need = units_for_power(20, 0.01, 0.02, 3.5, 0.8)
    se_then = 0.02 * math.sqrt(20 / need)
    assert detection_power(0.01, se_then, 3.5) >= 0.8
    assert detection_power(0.01, 0.02 * math.sqrt(20 / (need - 1)), 3.5) < 0.8


def test_power_by_simulation() -> None:
    """The normal approximation against 4,000 simulated z tests at a gap of the margin."""
    rng = np.random.default_rng(61)
    se, margin = 0.01, 0.04
    z = (margin + rng.normal(0.0, se, 4000)) / se
    assert abs(float(np.mean(np.abs(z) > 3.5)) - detection_power(margin, se, 3.5)) < 0.025


def test_committed_points_state_margin_power_and_seeds() -> None:
    a = pd.read_csv(RESULTS / "map_agreement.csv")
    rel = a["quantity"].map(MARGINS)
    assert np.allclose(a["margin_rel"], rel)
    assert np.allclose(a["margin"], np.maximum(rel * a["closed_form"].abs(), MARGIN_FLOOR))
    power = [detection_power(m, s, Z_TOLERANCE) for m, s in zip(a["margin"], a["se"], strict=True)]
    assert np.allclose(a["power"], power)
    short = a[a["power"] < POWER]
    assert (short["seeds_for_80_power"] > short["seeds"]).all()
    assert (a[a["power"] >= POWER]["seeds_for_80_power"] <= a["seeds"][a["power"] >= POWER]).all()


def test_sign_test_and_pooled_gap() -> None:
    assert sign_p(0, 10) == 2 / 2**10
    assert sign_p(5, 10) == 1.0
    assert math.isclose(sign_p(13, 16), 2 * sum(math.comb(16, i) for i in range(4)) / 2**16)
    rows = pd.DataFrame(
        {
            "quantity": ["human_save_in_window"] * 3 + ["stale_at_day_end"],
            "closed_form": [0.2, 0.4, 0.001, 0.3],
            "simulated": [0.19, 0.38, 0.0, 0.3],
            "se": [0.01, 0.02, 0.001, 0.01],
            "form_z": [-1.0, -1.0, -1.0, 0.0],
        }
    )
    gap = form_gap(rows).set_index("quantity")
    human = gap.loc["human_save_in_window"]
    assert human["points"] == 2  # the form of 0.001 is below MIN_FORM
    assert math.isclose(human["relative_gap"], -0.05)  # both −5 %, equal weights
    assert human["gap_lo"] < -0.05 < human["gap_hi"]
