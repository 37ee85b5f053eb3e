"""The uniform-instant share is the integral it states, and its interval holds on bursty,
non-stationary synthetic logs (``sim.studymap.coverage``, through ``logs.measured_rows``)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.calibrate.logs import CHANGES
from sim.studymap import coverage, instants, logs
from sim.studymap.forms import DAY_S

COVERS = 0.93
"""What issue 58 asks of the 95 % interval at every setting."""


def _brute_share(log, age: float, draw: str, points: int = 40_000) -> float:
    """The estimand read literally: instants on a fine grid of the span less the age, at each
    the alive articles' weight stale within the age over their whole weight."""
    t0, t1 = log.epoch_s.min(), log.epoch_s.max() - age
    r = t0 + (np.arange(points) + 0.5) * (t1 - t0) / points
    saves = log.kind != CHANGES["add"]
    n = log.n_articles
    weight = np.bincount(log.article[saves], minlength=n) if draw == "popularity" else np.ones(n)
    num, den = np.zeros(points), np.zeros(points)
    for i in range(n):
        mine = log.article == i
        t, kind = log.epoch_s[mine], log.kind[mine]
        end = t.max() if kind[np.argmax(t == t.max())] == CHANGES["delete"] else np.inf
        alive = (r >= t.min()) & (r < end)
        s = np.sort(t[kind != CHANGES["add"]])
        stale = np.searchsorted(s, r + age, "right") > np.searchsorted(s, r, "right")
        num += weight[i] * (alive & stale)
        den += weight[i] * alive
    on = den > 0
    return float((num[on] / den[on]).mean())


def test_the_share_is_the_uniform_instant_integral_on_a_bursty_log() -> None:
    rng = np.random.default_rng(3)
    site = coverage.site(rng)
    log = coverage.bursty_log(site, rng, 365.0, True)
    rows = logs.measured_rows(log, (DAY_S, 30 * DAY_S))
    for r in rows:
        brute = _brute_share(log, r["age_s"], r["draw"])
        assert r["measured"] == pytest.approx(brute, rel=0.01, abs=1e-4), r
        assert r["measured_ci_lo"] <= r["measured"] <= r["measured_ci_hi"]
        assert r["estimand"] == logs.ESTIMAND and r["block_days"] > 0


def test_a_growing_site_s_pooled_share_weights_its_later_years() -> None:
    """Articles saved often only late, when the site is large: the pooled article-time share
    counts those years more than a uniform instant does."""
    rows = [(0.0, "a0", "add")]
    rows += [(10.0 + d, f"b{k}", "add") for k in range(9) for d in (0.0,)]
    rows += [(11.0 + d, f"b{k}", "modify") for k in range(9) for d in range(8)]
    rows += [(20.0, "a0", "modify")]
    from tests.test_studymap import _log

    m = logs.measure(_log(sorted(rows)), (DAY_S,)).set_index("draw")
    assert m.loc["uniform", "pooled"] > m.loc["uniform", "measured"]


def test_the_block_length_grows_with_the_series_memory() -> None:
    rng = np.random.default_rng(0)
    noise = rng.standard_normal(512)
    ar = np.zeros(512)
    for k in range(1, 512):
        ar[k] = 0.9 * ar[k - 1] + noise[k]
    assert instants.block_length(noise) <= 3
    assert instants.block_length(ar) >= 8
    assert instants.block_length(np.ones(64)) == 1


def test_the_interval_covers_the_share_of_bursty_sites_in_a_small_run() -> None:
    """A few CPU-s of the deep test below: one-year regimes with bulk publishes."""
    m = coverage.measured(24, 365.0, True, seed=1)
    held = (m["measured_ci_lo"] <= m["truth"]) & (m["truth"] <= m["measured_ci_hi"])
    assert held.mean() >= 0.85


@pytest.mark.deep
def test_the_interval_covers_the_share_at_every_bursty_setting(deep: bool) -> None:
    """Issue 58: ≥ 93 % at every setting (regimes of three months, one and two years; bulk
    publishes on and off), every age and draw, 400 synthetic logs each: `make check` only
    (about 4 CPU-min)."""
    if not deep:
        pytest.skip(
            "make check (--deep): test_the_interval_covers_the_share_of_bursty_sites_in_a_small_run"
        )
    table = coverage.coverage_table(400)
    assert len(table) == len(coverage.SETTINGS) * len(coverage.AGES_S) * len(logs.DRAWS)
    low = table[table["coverage"] < COVERS]
    assert low.empty, low.to_string()
