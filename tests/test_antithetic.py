"""Antithetic pairs (sim/model/antithetic.py, sim/study/antithetic.py): each member draws as
the model does, the pair's draws mirror each other, and results/variance/antithetic.csv is a
fresh run's table, whose every factor's interval reaches 1 or below, as REPORT.md's
Appendix A says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.model.antithetic import InverseDraws, PairedDay
from sim.params import Params
from sim.popularity import zipf_weights
from sim.results import antithetic as antithetic_results
from sim.results.antithetic import NAME
from sim.study import antithetic
from sim.study.realshape_panel import packaged_shape

RESULTS = Path(__file__).resolve().parents[1] / "results"


def _pair(seed: int) -> tuple[InverseDraws, InverseDraws]:
    return (
        InverseDraws(np.random.default_rng(seed), False),
        InverseDraws(np.random.default_rng(seed), True),
    )


def test_a_pair_draws_u_and_one_minus_u_and_each_keeps_the_weights() -> None:
    u, v = _pair(3)
    a, b = u.uniform(0.0, 8.0, size=1000), v.uniform(0.0, 8.0, size=1000)
    assert np.allclose(a + b, 8.0) and a.min() >= 0.0 and b.max() <= 8.0
    w = np.random.default_rng(1).permutation(zipf_weights(40, 0.9))  # not in weight order
    n = 200_000
    for member in _pair(4):
        counts = np.bincount(member.choice(40, size=n, p=w), minlength=40)
        z = (counts - n * w) / np.sqrt(n * w * (1 - w))
        assert np.abs(z).max() < 4.5, z  # each member draws by the weights
    first, second = (m.choice(40, size=n, p=w) for m in _pair(5))
    rank = np.argsort(np.argsort(-w, kind="stable"), kind="stable")  # 0: the heaviest
    assert np.corrcoef(rank[first], rank[second])[0, 1] < -0.5  # heavy against light


def test_a_draw_that_is_not_an_inversion_is_refused() -> None:
    u, _ = _pair(1)
    for draw in ("random", "integers", "permutation", "poisson", "exponential"):
        with pytest.raises(ValueError, match=f"inversion .* only, not {draw}"):
            getattr(u, draw)
    with pytest.raises(ValueError, match="save_process='calibrated'"):
        PairedDay(Params(save_process="calibrated", edit_shape=packaged_shape()), 1, True)
    with pytest.raises(ValueError, match="with replacement, only"):
        u.choice(10, size=3, replace=False, p=np.full(10, 0.1))
    with pytest.raises(ValueError, match="weighted choice of a count"):
        u.choice(10, size=3)


def test_the_members_questions_and_saves_mirror_each_other_in_time() -> None:
    p = Params(run_checker=False)
    first, second = (PairedDay(p, 7, flip).schedule for flip in (False, True))
    for a, b in ((first.question_s, second.question_s), (first.save_s, second.save_s)):
        assert np.allclose(np.sort(p.day_s - a), b)


def test_the_table_reads_a_known_correlation_from_each_figure() -> None:
    """On made-up per-seed rows whose second member is minus the first plus noise, every
    figure's ρ is the one built in (ratios through their residuals), inside its interval."""
    rng = np.random.default_rng(2)
    n = 400
    first, second = {}, {}
    for f in antithetic.FIGURES:
        for col in antithetic.RATIOS.get(f.key, (f.key,)):
            x = rng.normal(100.0, 10.0, n)
            first[col], second[col] = x, 200.0 - x + rng.normal(0.0, 10.0, n)
    first["cas_reject_share_5s"] = np.zeros(n)  # constant: no correlation to read
    table = antithetic.table(pd.DataFrame(first), pd.DataFrame(second), pd.DataFrame(first))
    assert set(table["key"]) == {f.key for f in antithetic.FIGURES} and (table["pairs"] == n).all()
    assert table["constant"].tolist() == [
        f.key == "cas_reject_share_5s" for f in antithetic.FIGURES
    ]
    assert table.loc[table["constant"], ["rho", "vrf"]].isna().all().all()
    assert (table["study_z"] == 0).all()  # the first member against itself
    table = table[~table["constant"]]
    plain = table[~table["key"].isin(list(antithetic.RATIOS))]
    assert np.allclose(plain["rho"], -1 / np.sqrt(2), atol=0.08)  # cov −100 over 10 × √200
    assert ((table["rho_lo"] <= table["rho"]) & (table["rho"] <= table["rho_hi"])).all()
    assert (table["vrf"] > 1).all() and (table["members_z"].abs() < 4).all()


def test_a_members_row_holds_every_figure_the_table_reads() -> None:
    row = antithetic.seed_rows((Params(), 1, True))
    for f in antithetic.FIGURES:
        assert set(antithetic.RATIOS.get(f.key, (f.key,))) <= set(row.columns), f.key


@pytest.mark.deep
def test_the_committed_table_is_a_fresh_run_and_shows_no_factor_off_one(deep: bool) -> None:
    committed = pd.read_csv(RESULTS / NAME)
    varies = committed[~committed["constant"]]
    # what Appendix A says of them: every factor's interval holds 1
    assert ((varies["vrf_lo"] < 1) & (varies["vrf_hi"] > 1)).all(), committed
    assert committed[["members_z", "study_z"]].abs().max().max() < 3.5  # days of the model
    if deep:
        fresh = antithetic_results.fresh(RESULTS)
        assert committed[["key", "figure", "constant"]].equals(fresh[["key", "figure", "constant"]])
        numbers = committed.select_dtypes("number").columns
        assert np.allclose(committed[numbers], fresh[numbers], atol=1e-4, equal_nan=True)
