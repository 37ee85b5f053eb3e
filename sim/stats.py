"""Every interval, paired test and multiplicity correction the study reports, in one place:
the report (the calibration panel's drift tests included), advise and the map take
theirs from here.

The rule for a mean over n independent units (seeds of a study, simulated days of advise):
Student's t quantile with n − 1 degrees of freedom below ``LARGE_N`` units, the normal
quantile from there on (the two differ by under 1.3 % at 100); no interval from one unit
(NaN bounds: the text says "not enough"). One exception, said where it is used: the
report's figures over the study's seeds (``normal_interval``), on which the seed rule that
chose their seeds was set. A pooled ratio ΣX/ΣY over units takes the delta
method with the same quantile, a share of events Wilson's score interval on the effective
count the spread over units allows (so it stays inside [0, 1]), a median the distribution-free
order-statistic interval. A family of tests picked from is corrected by Holm's step-down.
The seed rule (``sim.study.seedrule``) decides how many units a figure gets; these say what they
show.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from sim.exactmath import dot

Z95 = NormalDist().inv_cdf(0.975)
LARGE_N = 100
"""From this many units on, the normal quantile; below it, Student's t."""
SHARE_METHOD = (
    "Wilson score interval on the pooled count, its n the effective count the spread over "
    "days allows (Korn–Graubard), so within 0–100 %"
)
"""How a share's interval is made (said beside every share advise prints)."""


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float
    """95 % confidence interval of the mean over units."""
    sd: float
    n: int

    def range_of(self, k: int) -> tuple[float, float]:
        """Central 95 % range of a k-seed pooled value (as the write-up's five seeds): the
        spread of k draws of a unit whose sd is known from many, so the normal quantile."""
        half = Z95 * self.sd / math.sqrt(k)
        return self.mean - half, self.mean + half


def q95(n: int) -> float:
    """The two-sided 95 % quantile for a mean over n units (n ≥ 2)."""
    return Z95 if n >= LARGE_N else _t975(n - 1)


@functools.cache
def _t975(dof: int) -> float:
    """Student's t 0.975 quantile, once per degrees of freedom: scipy's ppf costs about 0.3 ms
    a call, and a rebuild of the tables asks it some 3,000 times for a few dozen counts."""
    from scipy.stats import t  # here: serve and import never need scipy.stats

    return float(t.ppf(0.975, dof))


def seeds_for_half_width(sd: float, half_width: float) -> int:
    """Seeds needed for a 95 % interval of ± half_width (many seeds: the normal quantile)."""
    return math.ceil((Z95 * sd / half_width) ** 2)


def mean_interval(values: np.ndarray | Sequence[float]) -> Interval:
    """Mean over units with its 95 % interval (NaN bounds from fewer than two)."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(v.mean())
    if n < 2:
        return Interval(mean, math.nan, math.nan, 0.0, n)
    sd = float(v.std(ddof=1))
    half = q95(n) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, sd, n)


def normal_interval(values: np.ndarray | Sequence[float]) -> Interval:
    """Mean over seeds with the normal quantile at any n (one seed: no spread, so its own
    bounds). The report's figures over the study's seeds take this: the sequential seed
    rule's batches and stopping (``sim.study.seedrule``, REPORT.md's appendix on it) were set on
    these intervals, so a figure's seeds, and every committed row, follow from them."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    sd = float(v.std(ddof=1)) if n > 1 else 0.0
    half = Z95 * sd / math.sqrt(n) if n else math.nan
    mean = float(v.mean()) if n else math.nan
    return Interval(mean, mean - half, mean + half, sd, n)


def control_variate_interval(
    values: np.ndarray | Sequence[float], controls: np.ndarray, means: Sequence[float]
) -> Interval:
    """The controlled mean Ȳ − β̂ᵀ(C̄ − μ) over units with its 95 % interval (Nelson 1990;
    Law & Kelton, ch. 11; Glasserman § 4.1): β̂ and the interval from the least-squares
    regression of Y on the controls' deviations from their known means μ, Student's t
    on the residuals with n − q − 1 degrees of freedom, so an estimated β̂ costs the
    interval what it must. ``sd`` is the residual spread: (sd/plain sd)² is the variance
    the controls leave. NaN bounds while n ≤ q + 1."""
    y = np.asarray(values, dtype=float)
    c = np.asarray(controls, dtype=float).reshape(len(y), -1)
    n, q = c.shape
    x = [np.ones(n), *(c[:, j] - float(means[j]) for j in range(q))]
    # the normal equations from exactly rounded sums, solved in Python floats: the same
    # digits on any CPU (sim.exactmath), where BLAS's lstsq may differ in the last ones
    xtx = [[dot(a, b) for b in x] for a in x]
    coef = _solve(xtx, [dot(a, y) for a in x])
    mean = coef[0]
    if n <= q + 1 or math.isnan(mean):
        return Interval(mean, math.nan, math.nan, math.nan, n)
    resid = y - sum((coef[j] * x[j] for j in range(1, q + 1)), np.full(n, coef[0]))
    s2 = dot(resid, resid) / (n - q - 1)
    first = _solve(xtx, [1.0] + [0.0] * q)[0]  # (XᵀX)⁻¹'s corner: the mean's variance factor
    se = math.sqrt(s2 * first)
    half = _t975(n - q - 1) * se
    return Interval(mean, mean - half, mean + half, math.sqrt(s2), n)


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """a x = b by Gauss–Jordan elimination with partial pivoting, in Python floats (a few
    unknowns); NaN throughout for a singular a."""
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    k = len(m)
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(m[r][col]))
        if m[pivot][col] == 0.0:
            return [math.nan] * k
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(k):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [v - f * w for v, w in zip(m[r], m[col], strict=True)]
    return [m[r][k] / m[r][r] for r in range(k)]


def detection_power(gap: float, se: float, z_crit: float) -> float:
    """Chance a two-sided |z| > z_crit test detects a true gap of `gap` between a mean
    with standard error `se` and its reference (normal approximation):
    Φ(gap/se − z_crit) + Φ(−gap/se − z_crit)."""
    if se <= 0:
        return 1.0 if gap > 0 else 0.0
    phi = NormalDist().cdf
    return phi(gap / se - z_crit) + phi(-gap / se - z_crit)


def units_for_power(units: int, gap: float, se: float, z_crit: float, power: float) -> int:
    """Units a mean whose standard error is `se` on `units` of them needs for `power` to
    detect `gap` at z_crit (its standard error falling as 1/√units; the small opposite
    tail left out, so a slight overcount)."""
    need = (z_crit + NormalDist().inv_cdf(power)) * se / gap
    return max(2, math.ceil(units * need * need))


def mean_p(values: np.ndarray | Sequence[float]) -> float:
    """Two-sided p of a mean of zero by Student's t: a paired move's p from its per-seed
    differences (one unit: NaN; no spread: 0 or 1). scipy.stats' t.sf is this same stdtr
    behind 0.2 ms of argument handling a call."""
    from scipy.special import stdtr

    at = mean_interval(values)
    if at.n < 2:
        return math.nan
    if at.sd == 0:
        return 1.0 if at.mean == 0 else 0.0
    return float(2 * stdtr(at.n - 1, -abs(at.mean) / (at.sd / math.sqrt(at.n))))


def ratio_interval(
    numerators: np.ndarray, denominators: np.ndarray, min_units: int = 2
) -> Interval:
    """95 % interval of a pooled ratio ΣX/ΣY over units (minutes unnoticed per changed
    citation, say) by the delta method; NaN when ΣY is 0, NaN bounds while fewer than
    ``min_units`` units have Y > 0."""
    x, y = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    n, total = len(x), float(y.sum())
    if total == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, n)
    r = float(x.sum() / total)
    if n < 2 or int((y > 0).sum()) < min_units:
        return Interval(r, math.nan, math.nan, math.nan, n)
    sd = float((x - r * y).std(ddof=1) / y.mean())
    half = q95(n) * sd / math.sqrt(n)
    return Interval(r, r - half, r + half, sd, n)


def share_interval(num: np.ndarray, den: np.ndarray, min_units: int = 2) -> Interval:
    """ΣX/ΣN over units with a 95 % interval inside [0, 1]: Wilson's score interval on an
    effective count, n·(binomial variance)/(delta-method variance over units), at most n,
    so a clustered unit widens it and a share of 0 or 1 still gets an upper or lower end
    (a normal interval went below 0 at a share near 0). NaN bounds while fewer than
    ``min_units`` units have N > 0."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    units, total = len(num), float(den.sum())
    if total == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, units)
    p = float(num.sum()) / total
    if units < 2 or int((den > 0).sum()) < min_units:
        return Interval(p, math.nan, math.nan, math.nan, units)
    resid = num - p * den
    var = float((resid**2).sum()) / (units * (units - 1)) / (total / units) ** 2
    n_eff = total if var == 0 or p in (0.0, 1.0) else min(total, p * (1 - p) / var)
    z = q95(units)
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    lo, hi = min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))  # rounding
    return Interval(p, lo, hi, math.sqrt(var * units), units)


def median_interval(x: np.ndarray) -> Interval:
    """The median with its distribution-free 95 % interval (order statistics: the ranks a
    binomial(n, ½) puts 2.5 % beyond each side); NaN bounds below 6 values."""
    from scipy.stats import binom

    n = len(x)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, math.nan, 0)
    s = np.sort(x)
    med = float(np.median(s))
    if n < 6:
        return Interval(med, math.nan, math.nan, math.nan, n)
    lo = int(binom.ppf(0.025, n, 0.5))
    hi = int(binom.isf(0.025, n, 0.5))
    return Interval(med, float(s[max(lo - 1, 0)]), float(s[min(hi, n - 1)]), math.nan, n)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p values, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted, running = [1.0] * len(p_values), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def holm_rejected(p_values: dict[str, float], alpha: float = 0.05) -> list[str]:
    """The keys whose null Holm's step-down rejects at family-wise level alpha."""
    rejected: list[str] = []
    ordered = sorted(p_values.items(), key=lambda kv: kv[1])
    for rank, (key, p) in enumerate(ordered):
        if p > alpha / (len(ordered) - rank):
            break
        rejected.append(key)
    return rejected
