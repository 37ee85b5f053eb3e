"""The one statistics module: each interval against its textbook form, Holm's two faces
agreeing, and the t/normal rule at its edge."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from sim import stats


def test_a_mean_over_few_units_takes_students_t_and_many_the_normal_quantile() -> None:
    rng = np.random.default_rng(3)
    for n in (2, 5, 33, 99):
        v = rng.normal(size=n)
        lo, hi = scipy_stats.t.interval(0.95, n - 1, loc=v.mean(), scale=scipy_stats.sem(v))
        got = stats.mean_interval(v)
        assert (got.lo, got.hi) == pytest.approx((lo, hi), rel=1e-12)
    v = rng.normal(size=stats.LARGE_N)
    half = stats.Z95 * v.std(ddof=1) / math.sqrt(len(v))
    assert stats.mean_interval(v).hi - v.mean() == pytest.approx(half, rel=1e-12)
    one = stats.mean_interval([4.0])
    assert one.mean == 4.0 and math.isnan(one.lo) and math.isnan(one.hi)


def test_the_paired_p_is_the_one_sample_t_tests() -> None:
    d = np.array([0.3, -0.1, 0.4, 0.2, 0.5, 0.1])
    assert stats.mean_p(d) == pytest.approx(scipy_stats.ttest_1samp(d, 0.0).pvalue, rel=1e-10)
    assert stats.mean_p(np.zeros(4)) == 1.0 and math.isnan(stats.mean_p([1.0]))


def test_a_ratio_of_sums_equals_its_delta_method_and_needs_units_with_a_denominator() -> None:
    x, y = np.array([3.0, 5, 4, 6, 2]), np.array([2.0, 3, 2, 4, 1])
    r = x.sum() / y.sum()
    se = (x - r * y).std(ddof=1) / y.mean() / math.sqrt(len(x))
    got = stats.ratio_interval(x, y)
    assert got.mean == pytest.approx(r)
    assert got.hi - got.mean == pytest.approx(scipy_stats.t.ppf(0.975, 4) * se, rel=1e-12)
    assert math.isnan(stats.ratio_interval(x, np.zeros(5)).mean)
    assert math.isnan(stats.ratio_interval(x, np.array([1.0, 0, 0, 0, 0])).lo)


def test_a_share_stays_inside_0_1_and_equals_wilson_on_independent_units() -> None:
    n = np.full(20, 50.0)
    k = np.random.default_rng(5).binomial(50, 0.3, 20).astype(float)
    got = stats.share_interval(k, n)
    assert 0 <= got.lo < got.mean < got.hi <= 1
    assert stats.share_interval(np.zeros(20), n).hi > 0  # no event seen: an upper end still
    assert stats.share_interval(n, n).lo < 1


def test_holms_adjusted_p_and_its_rejections_agree() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        p = rng.uniform(0, 0.1, rng.integers(1, 12)).tolist()
        keys = {f"k{i}": v for i, v in enumerate(p)}
        adjusted = dict(zip(keys, stats.holm(p), strict=True))
        assert set(stats.holm_rejected(keys, 0.05)) == {k for k, a in adjusted.items() if a <= 0.05}


def test_a_median_interval_is_two_order_statistics() -> None:
    x = np.arange(1.0, 21.0)
    got = stats.median_interval(x)
    assert got.mean == 10.5 and got.lo in x and got.hi in x and got.lo < 10.5 < got.hi
    assert math.isnan(stats.median_interval(x[:5]).lo)
