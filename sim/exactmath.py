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

Instead, the functions here apply Python's ``math`` functions element by element (the C
library's scalar functions, which numpy's dispatch never touches), and ``dot`` adds its
products with ``math.fsum``, which rounds the exact sum once, so the order cannot matter.
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
import itertools
import math
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import numpy as np

P = ParamSpec("P")
R = TypeVar("R")


def _each(fn: Callable[[float], float], x: np.ndarray | float) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    out = np.fromiter(map(fn, a.ravel().tolist()), dtype=float, count=a.size)
    return out.reshape(a.shape)


def exp(x: np.ndarray | float) -> np.ndarray:
    return _each(math.exp, x)


def expm1(x: np.ndarray | float) -> np.ndarray:
    return _each(math.expm1, x)


def log(x: np.ndarray | float) -> np.ndarray:
    """Natural log; 0 gives -inf (as numpy's), a negative number raises ValueError."""
    a = np.asarray(x, dtype=float)
    if a.size and a.min() > 0:
        return _each(math.log, a)
    return _each(lambda v: -math.inf if v == 0 else math.log(v), a)


def power(x: np.ndarray | float, y: float) -> np.ndarray:
    """x ** y for a scalar exponent y."""
    a = np.asarray(x, dtype=float)
    each = map(math.pow, a.ravel().tolist(), itertools.repeat(float(y)))
    return np.fromiter(each, dtype=float, count=a.size).reshape(a.shape)


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
