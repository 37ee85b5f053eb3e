"""The per-article two-state chains of push and of the stopping rule, solved over a day:
linear with constant rates, so a step is one fixed 2 × 2 matrix per chain (arrays of
chains at once) and a day or a run of checks is its power, taken by repeated squaring."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import numpy as np

_T = TypeVar("_T")


def euler_steps(h: float, interval_s: float) -> dict[float, int]:
    """The Euler steps from one check to the next, {length: how many}: steps of h, the last
    one cut at the check."""
    cut: dict[float, int] = {}
    t = 0.0
    while t < interval_s - 1e-9:
        step = min(h, interval_s - t)
        cut[step] = cut.get(step, 0) + 1
        t += step
    return cut


def held_at_checks(
    r: np.ndarray, lam: np.ndarray, u: float, cut: dict[float, int], checks: int
) -> tuple[np.ndarray, np.ndarray]:
    """Σₖ₌₀ᴷ⁻¹ Mᵏ (1, 0) per chain, M = Πⱼ (I + sⱼB)^nⱼ over the cut steps {sⱼ: nⱼ} and
    B = [[−r − uλ, (1 − u)λ], [r, −λ]] (state: unwatched, watched)."""
    b = ((-r - u * lam, (1 - u) * lam), (r, -lam))
    eye: _Matrix = ((np.ones_like(r), np.zeros_like(r)), (np.zeros_like(r), np.ones_like(r)))
    m = eye
    for s, count in cut.items():
        m = _product(m, _power(_added(eye, _scaled(b, s)), count))
    (_, total) = _chain_power((m, eye), checks)
    return np.asarray(total[0][0]), np.asarray(total[1][0])


def _power(m: _Matrix, k: int) -> _Matrix:
    """mᵏ (k ≥ 1) by repeated squaring."""
    return _repeated(m, k, _product, "_power")


def _repeated(m: _T, k: int, times: Callable[[_T, _T], _T], name: str) -> _T:
    """m combined with itself k times (k ≥ 1) by ``times``, an associative product, by
    repeated squaring: log₂ k squarings and one product per set bit of k."""
    result = None
    left = k
    while left:
        if left & 1:
            result = m if result is None else times(result, m)
        left >>= 1
        if left:
            m = times(m, m)
    if result is None:
        raise ValueError(f"{name}: expected k of 1 or more; received {k}")
    return result


def day_counts(
    r: np.ndarray, lam: np.ndarray, u: float, h: float, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Expected subscribes and notifications over `steps` RK4 steps of length h, per chain.

    The chain is linear with constant rates, so one RK4 step is a fixed matrix
    M = Σₖ₌₀⁴ (hA)ᵏ/k! and the day is M^steps, taken by repeated squaring. With state
    (unsubscribed, subscribed | subscribes, notifications), A = [[B, 0], [G, 0]], so
    M = [[P, 0], [Q, I]]: P = Σₖ (hB)ᵏ/k!, Q = G·Σₖ₌₁⁴ hᵏBᵏ⁻¹/k!, G = diag(r, λ)."""
    b = ((-r - u * lam, (1 - u) * lam), (r, -lam))
    eye: _Matrix = ((1.0, 0.0), (0.0, 1.0))
    power, p, series = eye, eye, _scaled(eye, 0.0)
    for k in range(1, 5):
        series = _added(series, _scaled(power, h**k / math.factorial(k)))  # Σ hᵏBᵏ⁻¹/k!
        power = _product(power, b)
        p = _added(p, _scaled(power, h**k / math.factorial(k)))
    q = ((r * series[0][0], r * series[0][1]), (lam * series[1][0], lam * series[1][1]))
    (_, q_day) = _chain_power((p, q), steps)
    return np.asarray(q_day[0][0]), np.asarray(q_day[1][0])


_Entry = np.ndarray | float
"""A matrix entry: one value per map and article, or a constant (the identity's)."""


_Matrix = tuple[tuple[_Entry, _Entry], tuple[_Entry, _Entry]]


def _product(x: _Matrix, y: _Matrix) -> _Matrix:
    """2 × 2 matrix product, each entry an array (one matrix per map and article)."""
    return (
        (x[0][0] * y[0][0] + x[0][1] * y[1][0], x[0][0] * y[0][1] + x[0][1] * y[1][1]),
        (x[1][0] * y[0][0] + x[1][1] * y[1][0], x[1][0] * y[0][1] + x[1][1] * y[1][1]),
    )


def _added(x: _Matrix, y: _Matrix) -> _Matrix:
    return ((x[0][0] + y[0][0], x[0][1] + y[0][1]), (x[1][0] + y[1][0], x[1][1] + y[1][1]))


def _scaled(x: _Matrix, s: float) -> _Matrix:
    return ((x[0][0] * s, x[0][1] * s), (x[1][0] * s, x[1][1] * s))


def _chain_power(m: tuple[_Matrix, _Matrix], k: int) -> tuple[_Matrix, _Matrix]:
    """[[P, 0], [Q, I]]^k by repeated squaring, as (P, Q): the product of two such matrices
    [[P₁, 0], [Q₁, I]]·[[P₂, 0], [Q₂, I]] is [[P₁P₂, 0], [Q₁P₂ + Q₂, I]]."""

    def times(x: tuple[_Matrix, _Matrix], y: tuple[_Matrix, _Matrix]) -> tuple[_Matrix, _Matrix]:
        return _product(x[0], y[0]), _added(_product(x[1], y[0]), y[1])

    return _repeated(m, k, times, "_chain_power")
