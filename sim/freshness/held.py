"""The closed forms of noticing and of the checks' cost for an agent that lets its
citations go: ``Params.citation_hold_s`` below the day's length (``--hold-hours``).

A citation read at r is held until e = min(r + H, D). A change after e no longer counts
(nothing relies on the citation); a change at c < e is noticed at the first check at or
after c unless the citation is let go first, so its unnoticed time is
min(check(c), e) − c, with check(c) = T·⌈c/T⌉, or D after the day's last check. Reads are
uniform over the day and the first change after a read is Exp(λᵢ), article i drawn by
its share of citations, so the gap g = c − r has density Σ mᵢ λᵢ e^{−λᵢg} whatever r is:
the mean is a double integral over (r, g), taken on a grid. With H ≥ D it is
``noticing.unnoticed_time``'s model (there integrated over c alone; the two agree within
0.1 %).

The checks' cost under the stopping rule (``checks.stopped_check_calls``) counts, at the
check at t, each article with a held citation that no earlier check found changed. The
newest citation decides: citations of an article come at Poisson rate r, so the newest
is a old with density r·e^{−ra}, a < A = min(H, t), and it is not known stale if the
article did not change between its read and the previous check at t − T.

Checked against simulated days (Poisson saves, 20 seeds, holds of 30 min and 2 h): the
mean unnoticed time within 5 % at every interval from 1 min to 4 h, re-read calls within
6 %, poll calls within 7 % while the interval is no longer than the hold; at longer
intervals the form overstates the poll's few reads (by 13–76 % at a 30-min hold, 38 % at
4 h on a 2-h hold). ``tests/test_theory_hold.py`` holds it to the simulation.
"""

from __future__ import annotations

import functools

import numpy as np

from sim import exactmath
from sim.freshness.rates import citation_mixture, citation_rates, p_changed, save_rates_per_s
from sim.params import Params

READ_CELLS = 3_001
"""Cells of the read time over the day (an odd count, so no cell edge falls on a check)."""
GAP_CELLS = 401
"""Cells of the gap from a read to its article's first change, over the hold."""


def held(params: Params) -> bool:
    """Whether the agent lets its citations go before the day's end."""
    return params.citation_hold_s < params.day_s


def mean_held_s(params: Params) -> float:
    """The mean time a citation is held, E[min(r + H, D) − r] for r uniform over the day."""
    d, h = params.day_s, min(params.citation_hold_s, params.day_s)
    return h - h * h / (2 * d)


def held_answers(params: Params, at_s: float) -> float:
    """The answers whose citations are still held at at_s: those of the last H seconds
    (questions come uniformly over the day)."""
    d, h = params.day_s, params.citation_hold_s
    return params.n_questions * (min(at_s, d) - min(max(0.0, at_s - h), d)) / d


@functools.lru_cache(maxsize=2)
def _held_grid(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The (read, gap) grid's change times, let-go times and masses, and the masses' sum: the
    same at every interval, so made once per parameters (advice asks nine intervals in a
    row; two entries of some 20 MB). Read only: the arrays are flagged so."""
    d = params.day_s
    h = min(params.citation_hold_s, d)
    r = (np.arange(READ_CELLS) + 0.5) * d / READ_CELLS
    g = (np.arange(GAP_CELLS) + 0.5) * h / GAP_CELLS
    lam, mix = save_rates_per_s(params), citation_mixture(params)
    density = np.zeros(GAP_CELLS)
    for lo in range(0, len(lam), 256):  # 256 articles × the gaps at a time
        rate = lam[lo : lo + 256, None]
        density += (mix[lo : lo + 256, None] * rate * np.exp(-rate * g[None, :])).sum(axis=0)
    c = r[:, None] + g[None, :]
    end = np.minimum(r + h, d)[:, None]
    mass = np.where(c < end, density[None, :] * (h / GAP_CELLS / READ_CELLS), 0.0).reshape(-1)
    for a in (c, end, mass):
        a.flags.writeable = False
    return c, end, mass, float(mass.sum())


@exactmath.rounded
def unnoticed_time_held(params: Params, interval_s: float) -> dict[str, float]:
    """``noticing.unnoticed_time``'s figures for citations held ``citation_hold_s``: the mean
    and 95th percentile of the unnoticed time over citations that changed while held, its
    share of the citation-hours held, and the share of citations that changed while held."""
    d = params.day_s
    c, end, mass, mass_sum = _held_grid(params)
    last = (d // interval_s) * interval_s
    noticed = np.ceil(c / interval_s) * interval_s
    wait = (np.minimum(np.where(noticed <= last, noticed, d), end) - c).reshape(-1)
    order = np.argsort(wait, kind="stable")
    cdf = np.cumsum(mass[order]) / mass_sum
    total = float((mass * wait).sum())
    return {
        "mean_s": total / mass_sum,
        "p95_s": float(wait[order[np.searchsorted(cdf, 0.95)]]),
        "stale_unknown_share": total / mean_held_s(params),
        "changed_share": mass_sum,
    }


@exactmath.rounded
def stopped_check_calls_held(params: Params, interval_s: float, maps: int) -> dict[str, float]:
    """``checks.stopped_check_calls`` for citations held ``citation_hold_s``: per article and
    check, P(read) = 1 − e^{−r·min(T, A)} + [A > T]·r/(r + λ)·e^{−rT}·(1 − e^{−(r+λ)(A−T)}),
    times the chance it was not unpublished by the previous check (then it is never cited
    again, and that check ended its watch). Poll reads those that changed in the interval."""
    d, t, u = params.day_s, interval_s, params.save_mix[2]
    checks = int((d + 1e-9) // t)
    lam = save_rates_per_s(params)[None, :]
    r = citation_rates(params, maps)
    reads = np.zeros_like(r)
    for k in range(1, checks + 1):
        a = min(params.citation_hold_s, k * t)
        p = 1.0 - np.exp(-r * min(t, a))
        if a > t:
            p += r / (r + lam) * np.exp(-r * t) * -np.expm1(-(r + lam) * (a - t))
        reads += p * np.exp(-u * lam * ((k - 1) * t))
    return {
        "reread_reads": float(reads.sum(axis=1).mean()),
        "poll_reads": float((reads * p_changed(lam, t)).sum(axis=1).mean()),
    }
