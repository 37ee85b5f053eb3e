"""Transcendental functions and sums whose results do not depend on the CPU.

The rule, for every value that decides a draw, a count or a written figure:

- no numpy vector kernel of a transcendental function (``np.exp``, ``np.log``,
  ``np.expm1``, ``np.log1p``, ``np.power`` and ``**`` with a non-integer exponent on float
  arrays, and the like). numpy picks those kernels by the CPU it finds (baseline, AVX2,
  AVX-512, ...), and they differ in the last bits: ``np.arange(1, n + 1) ** -0.9`` is not
  the same array under AVX-512 as under AVX2. An optimiser fed such values turns last bits
  into differences at its tolerance (the fifth digit of a fitted exponent), and a bisection
  or a sort can turn them into a different draw.
- no BLAS product (``np.dot``, ``@``, ``np.corrcoef``): OpenBLAS picks its kernel by CPU too,
  and kernels add in different orders.
- no order left to a sorting kernel: ``np.argpartition`` returns its k smallest in an order
  its (CPU-dispatched) selection kernel decides, and a non-stable ``argsort`` orders ties so;
  sort what is kept with ``kind="stable"`` (the bulk publishes' articles, in
  sim.calibrate.generate, came out in another order under AVX2 than under the baseline).

Instead, the functions here compute each value one way on every CPU. ``exp`` is Cephes'
``exp2`` (S. L. Moshier's, as SciPy's ``scipy.special.exp2`` ships it, BSD-3-Clause) written
out in numpy's correctly rounded ``+ - * /``, ``floor`` and ``ldexp``: exp(x) = 2^(x·log2 e),
within a few ulps of the exact value, and bit for bit what ``scipy.special.exp2`` gives (its
operations, each rounded on its own, leave no multiply-add for a compiler to fuse).
``expm1`` is Cephes' too: its rational form on [-0.5, 0.5], the C library's ``exp`` minus 1
beyond. ``log`` is the C library's ``log`` element by element (Python's ``math.log``).
A process that has loaded scipy.special (the calibration's optimisers do), or a call with more
than ``LOOP_MAX`` values, takes its compiled scalar loops of the same C functions
(``xlogy(1, x)``, ``expm1``); any other call goes through Python's ``math`` module: the same
values (``tests/test_exactmath.py`` checks it bit for bit), without scipy.special's 0.2 s load
that a command taking a few thousand values (``import``'s stale-by-age table) need not pay.
``dot`` adds its products with ``math.fsum``, which rounds the exact sum once, so the order
cannot matter.
Elementwise ``+ - * /`` and ``sqrt`` are correctly rounded by IEEE 754 on every CPU, and
numpy's own sums (``sum``, ``cumsum``, ``mean``) add in an order fixed by numpy's code, not by
the CPU; they need no help.

The closed forms of ``sim.theory`` are the one exception: they take millions of
exponentials, so they use numpy's kernels and round their results (``rounded``, below).

What this leaves: the C library's scalar functions are glibc's on the machines that made
``results/``. glibc may pick another build of some of them on an x86-64 CPU without FMA, and
another C library has its own; each is within about an ulp of the exact value, so such a
machine could still differ in a rare last bit (not tested here: every machine of this
project has FMA). ``tests/test_cpu_levels.py`` runs the schedule draw,
the calibration fit with its bootstrap and days of every experiment under each CPU level
numpy offers on the machine and asserts byte-identical rows.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")


LOG2_E = 1.4426950408889634
"""log2(e), the float nearest it."""


LOOP_MAX = 100_000
"""Values a call takes one by one through Python's ``math`` (about 0.15 µs each, against
0.01 µs in scipy.special's loops) rather than load scipy.special (0.2 s, once)."""

_EXP2_P = (2.30933477057345225087e-2, 2.02020656693165307700e1, 1.51390680115615096133e3)
_EXP2_Q = (2.33184211722314911771e2, 4.36821166879210612817e3)
_EXPM1_P = (1.2617719307481059087798e-4, 3.0299440770744196129956e-2, 9.9999999999999999991025e-1)
_EXPM1_Q = (
    3.0019850513866445504159e-6,
    2.5244834034968410419224e-3,
    2.2726554820815502876593e-1,
    2.0000000000000000000897e0,
)
"""Cephes' coefficients of exp2 (P/Q, with Q's leading 1 implied) and of expm1."""


def _compiled(values: int) -> Any | None:
    """scipy.special, for its compiled loops, if this process has loaded it or the call has
    more than ``LOOP_MAX`` values; None: take them one by one through Python's math."""
    if values <= LOOP_MAX and "scipy.special" not in sys.modules:
        return None
    from scipy import special  # waits for a load another thread has under way

    return special


def _each(fn: Callable[[float], float], x: np.ndarray | float) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    out = np.fromiter(map(fn, a.ravel().tolist()), dtype=float, count=a.size)
    return out.reshape(a.shape)


def _poly(x: np.ndarray, coef: tuple[float, ...], leading_one: bool = False) -> np.ndarray:
    """Cephes' polevl (p1evl with ``leading_one``): Horner's rule, a rounding per step."""
    y = x + coef[0] if leading_one else np.full_like(x, coef[0])
    for c in coef[1:]:
        y = y * x + c
    return y


def exp2(x: np.ndarray | float) -> np.ndarray:
    """2 ** x, as Cephes computes it: 2^n · (1 + 2fP(f²)/(Q(f²) − fP(f²))), n = ⌊x + ½⌋."""
    a = np.asarray(x, dtype=float)
    inside = (a >= -1024.0) & (a <= 1024.0)  # NaN is neither
    f = np.where(inside, a, 0.0)
    n = np.floor(f + 0.5)
    f = f - n
    ff = f * f
    p = f * _poly(ff, _EXP2_P)
    with np.errstate(over="ignore"):  # 2^1024 is inf, as the C function gives it
        out = np.ldexp(
            1.0 + np.ldexp(p / (_poly(ff, _EXP2_Q, leading_one=True) - p), 1), n.astype(np.int32)
        )
    return np.where(inside, out, np.where(a > 0, np.inf, np.where(a < 0, 0.0, a)))[()]


def exp(x: np.ndarray | float) -> np.ndarray:
    return exp2(np.asarray(x, dtype=float) * LOG2_E)


def _exp_less_one(v: float) -> float:
    try:
        return math.exp(v) - 1.0
    except OverflowError:  # the C function's result is inf
        return math.inf


def expm1(x: np.ndarray | float) -> np.ndarray:
    """e^x − 1: Cephes' rational form where |x| ≤ ½, the C library's exp(x) − 1 elsewhere."""
    a = np.asarray(x, dtype=float)
    near = np.abs(a) <= 0.5
    beyond = ~near & ~np.isnan(a)
    special = _compiled(int(np.count_nonzero(beyond)))
    if special is not None:
        return special.expm1(a)
    f = np.where(near, a, 0.0)
    ff = f * f
    r = f * _poly(ff, _EXPM1_P)
    r = r / (_poly(ff, _EXPM1_Q) - r)
    out = np.where(near, r + r, a)  # NaN stays NaN
    out[beyond] = np.fromiter(map(_exp_less_one, a[beyond].tolist()), float)
    return out[()]


def _log_or_nan(v: float) -> float:
    return math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan)


def log(x: np.ndarray | float) -> np.ndarray:
    """Natural log; 0 gives -inf, a negative number NaN (as numpy's)."""
    a = np.asarray(x, dtype=float)
    special = _compiled(a.size)
    if special is not None:
        return special.xlogy(1.0, a)
    return _each(_log_or_nan, a)[()]


def power(x: np.ndarray | float, y: float) -> np.ndarray:
    """x ** y for a scalar exponent y and x >= 0, as exp(y log x) (1 where y is 0)."""
    a = np.asarray(x, dtype=float)
    if float(y) == 0.0:
        return np.ones_like(a)
    return exp(float(y) * log(a))


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """Sum of the products of two vectors, rounded once (exact, so order-free)."""
    return math.fsum((np.asarray(a, dtype=float) * np.asarray(b, dtype=float)).tolist())


SIGNIFICANT = 6
"""Digits the closed forms are rounded to as they leave ``sim.theory``: they are averages of
millions of numpy exponentials (too many to take one by one), so they may differ across CPUs
in about the 15th digit; six digits are far inside what any comparison with the simulation
can resolve (its 95 % intervals are 1e-3 wide at best), and a rounding can then flip only for
a value within about 1e-15 of a boundary between two six-digit numbers."""


def significant(value: Any, digits: int = SIGNIFICANT) -> Any:
    """``value`` with every float in it (dicts, lists, tuples and arrays too) rounded to
    ``digits`` significant digits, correctly (by Python's decimal formatting)."""
    if isinstance(value, dict):
        return {k: significant(v, digits) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(significant(v, digits) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return _each(lambda v: float(format(v, f".{digits - 1}e")), value)
    if isinstance(value, float | np.floating):
        return float(format(float(value), f".{digits - 1}e"))
    return value


def rounded(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator: the function's result passed through ``significant``."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return significant(fn(*args, **kwargs))

    return wrapper
