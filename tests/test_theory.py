"""The simulation against closed forms.

With ``arrivals='poisson'`` human saves on article i are an exact Poisson process of
rate λᵢ, so given each citation's article and read time the number that go stale
(or the CAS edits that meet a human save) has a known mean and variance. The
tolerance is stated: |observed − expected| ≤ 3.5 standard deviations (a correct
model fails this about once in 2,000 seed sets; the seeds are fixed, so the test is
deterministic).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from sim.experiments import run_study
from sim.params import Params
from sim.popularity import top_share, zipf_weights
from sim.theory import p_changed, p_human_save_before_edit, p_stale_at_day_end

Z_TOLERANCE = 3.5
SEEDS = list(range(1, 21))


def _rates(params: Params, ranks: pd.Series) -> np.ndarray:
    n = params.n_articles
    w = np.full(n, 1 / n) if params.save_popularity == "even" else zipf_weights(n, params.zipf_s)
    return params.n_saves * w[ranks.to_numpy() - 1] / params.day_s


def _z(observed: np.ndarray, p: np.ndarray) -> float:
    return float((observed.sum() - p.sum()) / np.sqrt((p * (1 - p)).sum()))


def test_top10_share_is_the_write_ups_36_7_percent() -> None:
    assert round(top_share(400, 0.9), 3) == 0.367


@pytest.mark.parametrize(
    "params",
    [
        Params(arrivals="poisson"),
        Params(arrivals="poisson", save_popularity="even"),
        Params(arrivals="poisson", zipf_s=0.6, n_saves=600),
        Params(arrivals="poisson", zipf_s=1.2, n_saves=150),
    ],
    ids=["default", "even", "flatter-busier", "steeper-quieter"],
)
def test_stale_citations_match_poisson_freshness(params: Params) -> None:
    f = run_study(params, SEEDS, experiments=("staleness",), workers=2, progress=False)
    c = f.citations
    p = p_changed(_rates(params, c["article_rank"]), params.day_s - c["read_s"].to_numpy())
    assert abs(_z((c["final_status"] != "fresh").to_numpy(), p)) < Z_TOLERANCE


@pytest.mark.parametrize(
    "params", [Params(arrivals="poisson"), Params(arrivals="poisson", zipf_s=0.5)]
)
def test_cas_edits_meet_human_saves_as_poisson_predicts(params: Params) -> None:
    f = run_study(params, SEEDS, experiments=("cas",), workers=2, progress=False)
    first = f.citations[f.citations["slot"] == 0].set_index(["seed", "answer"])["article_rank"]
    e = f.edits.join(first, on=["seed", "answer"])
    window = np.minimum(e["delay_s"], np.maximum(0.0, params.day_s - e["read_s"]))
    p = p_changed(_rates(params, e["article_rank"]), window.to_numpy())
    assert abs(_z(e["human_save_in_window"].to_numpy(), p)) < Z_TOLERANCE


def test_unconditional_forms_are_consistent() -> None:
    p = Params()
    assert p_human_save_before_edit(p, 0) == 0
    ladder = [p_human_save_before_edit(p, d) for d in p.edit_delays_s]
    assert ladder == sorted(ladder)
    even = p_stale_at_day_end(replace(p, save_popularity="even"))
    x = 300 / 400
    assert even[0] == pytest.approx(1 - (1 - np.exp(-x)) / x)
