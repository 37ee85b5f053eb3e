"""sim.exactmath's functions give scipy.special's values bit for bit, on both of their paths.

Every committed figure was computed with scipy.special's exp2, expm1 and xlogy; exactmath now
writes Cephes' exp2 and expm1 out in numpy's correctly rounded operations and takes the C
library's log through Python's math for small arrays, so these tests are what keeps every
figure's last bit where it was."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from sim import exactmath

EDGES = np.array(
    [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1024.0, -1024.0, 1023.5, -1023.5, -1022.5, -1074.0,
     -1074.5, -1075.0, 709.78, 709.79, 710.0, -745.2, -746.0, 5e-324, -5e-324, 1e-300,
     -1e-300, 2.2250738585072014e-308, np.inf, -np.inf, np.nan]
)  # fmt: skip


def _sample(rng: np.random.Generator, n: int) -> np.ndarray:
    around = np.concatenate([EDGES, np.nextafter(EDGES, np.inf), np.nextafter(EDGES, -np.inf)])
    return np.concatenate(
        [
            around,
            rng.uniform(-1100.0, 1100.0, n),
            rng.uniform(-2.0, 2.0, n),
            rng.normal(0.0, 1e-3, n),
            np.round(rng.uniform(-1100.0, 1100.0, 200)) + 0.5,  # halfway: floor(x + ½) ties
            10.0 ** rng.uniform(-300.0, 300.0, n),
        ]
    )


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where the two agree bit for bit (any NaN matches any NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return (a.view(np.int64) == b.view(np.int64)) | (np.isnan(a) & np.isnan(b))


@pytest.fixture(scope="module")
def values() -> np.ndarray:
    return _sample(np.random.default_rng(20261203), 20_000)


def test_exp_is_scipys_exp2_of_x_log2e_bit_for_bit(values: np.ndarray) -> None:
    for x in (values, -values, values / 700.0):
        assert _same_bits(exactmath.exp2(x), special.exp2(x)).all()
        assert _same_bits(exactmath.exp(x), special.exp2(x * exactmath.LOG2_E)).all()


PATHS = {"python": lambda values: None, "compiled": lambda values: special}
"""exactmath's two ways to the C library's functions, forced: Python's math, scipy's loops."""


@pytest.mark.parametrize("path", PATHS)
def test_expm1_is_scipys_bit_for_bit_on_both_paths(
    values: np.ndarray, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exactmath, "_compiled", PATHS[path])
    for x in (values, -values, values / 1000.0):
        assert _same_bits(exactmath.expm1(x), special.expm1(x)).all()


@pytest.mark.parametrize("path", PATHS)
def test_log_is_scipys_xlogy_bit_for_bit_on_both_paths(
    values: np.ndarray, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exactmath, "_compiled", PATHS[path])
    x = np.concatenate([values, -values])
    assert _same_bits(exactmath.log(x), special.xlogy(1.0, x)).all()


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_float_gives_scipys_value(x: float) -> None:
    for path in PATHS.values():
        with pytest.MonkeyPatch.context() as m:
            m.setattr(exactmath, "_compiled", path)
            assert _same_bits(exactmath.exp2(x), special.exp2(x))
            assert _same_bits(exactmath.expm1(x), special.expm1(x))
            assert _same_bits(exactmath.log(x), special.xlogy(1.0, x))


def test_a_scalar_gives_a_scalar_and_an_array_its_shape() -> None:
    for fn in (exactmath.exp, exactmath.expm1, exactmath.log):
        assert np.ndim(fn(0.25)) == 0 and float(fn(0.25)) == float(fn(np.array([0.25]))[0])
        assert fn(np.full((3, 4), 0.75)).shape == (3, 4)
    assert exactmath.power(np.array([4.0, 9.0]), 0.5).tolist() == [2.0, 3.0]


def test_small_arrays_need_no_scipy() -> None:
    """``import`` and ``advise`` take a few thousand values: scipy.special's 0.2 s load is
    not theirs to pay."""
    code = (
        "import sys, numpy as np; from sim import exactmath as m; "
        "m.power(np.arange(1, 10_001), -0.9); m.expm1(np.linspace(-3, 3, 5000)); "
        "m.exp(np.linspace(-3, 3, 5000)); print(sorted(k for k in sys.modules if 'scipy' in k))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
