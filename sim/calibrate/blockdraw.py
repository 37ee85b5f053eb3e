"""The generator's two draws whose size is the log's span or its bulk publishes, made a
block at a time: the sittings' Poisson counts hour by hour, and the bulk publishes' articles.

A long log (a help centre's history, or a log repeated in time: up to 131 years, the years
a log may hold) covers a million clock hours and tens of thousands of bulk publishes a run,
and a calibration generates a hundred runs; hour by hour and publish by publish in Python,
or all of them in whole arrays, they were most of a long calibration's time and memory.
Each block takes the same draws from its stream, in the same order, as one hour or one
publish at a time, and computes the same values, so every run is the same to the last bit.
"""

from __future__ import annotations

import numpy as np

HOUR_S = 3600.0
HOURS_AT_ONCE = 1 << 18
"""Clock hours whose sitting counts are drawn in one go (2 MB of means)."""
KEYS_AT_ONCE = 1 << 20
"""Keys of bulk publishes drawn in one go (8 MB)."""
ARGMIN_K = 8
"""Bulk publishes of up to this many articles (four in five of the shared log's) take
theirs by repeated argmin, a third of the time of a partition and a sort."""
EXACT = 2.0**52
"""Below this, whole numbers of seconds are exact in a float, and so are their differences."""


def sitting_starts(
    rate: float,
    intensity: np.ndarray,
    start_s: float,
    t0: float,
    t1: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Sitting starts in [t0, t1) (relative to time 0, ``start_s`` after a Monday 00:00 UTC):
    a Poisson count in each clock hour with mean ``rate`` per second times the hour of week's
    ``intensity`` times the hour's length in the window, each start uniform in its hour."""
    first = np.floor((start_s + t0) / HOUR_S)
    last = max(first + 1, np.ceil((start_s + t1) / HOUR_S))
    n = int(last - first)
    # a whole hour's mean repeats week by week; made once, and the first and last hours
    # (cut by the window) exactly; else every hour's own width
    whole = _whole_hours(first, n, start_s, t0, t1)
    week = np.resize(rate * intensity * HOUR_S, min(n, HOURS_AT_ONCE) + 168) if whole else None
    at, counts = [], []
    for a in range(0, n, HOURS_AT_ONCE):
        b = min(n, a + HOURS_AT_ONCE)
        if week is not None:
            off = (int(first) + a) % 168
            mean = week[off : off + b - a]
            ends = [j for j in {0, n - 1} if a <= j < b]
            if ends:
                mean = mean.copy()
                mean[np.subtract(ends, a)] = _means(rate, intensity, first, start_s, t0, t1, ends)
        else:
            mean = _means(rate, intensity, first, start_s, t0, t1, np.arange(a, b))
        count = rng.poisson(mean)
        hit = np.flatnonzero(count)
        at.append(a + hit)
        counts.append(count[hit])
    hours, count = np.concatenate(at), np.concatenate(counts)
    lo = _edges(first, start_s, t0, t1, hours)
    width = _edges(first, start_s, t0, t1, hours + 1) - lo
    return np.repeat(lo, count) + np.repeat(width, count) * rng.random(int(count.sum()))


def _edges(first: float, start_s: float, t0: float, t1: float, j: np.ndarray | int) -> np.ndarray:
    """Edge ``j`` of the clock hours from hour ``first`` (counted from the Monday), relative
    to time 0 and clipped to [t0, t1]."""
    return np.clip((first + np.asarray(j).astype(float)) * HOUR_S - start_s, t0, t1)


def _means(
    rate: float,
    intensity: np.ndarray,
    first: float,
    start_s: float,
    t0: float,
    t1: float,
    j: np.ndarray | list[int],
) -> np.ndarray:
    """The mean sittings of hours ``j``: rate × intensity × the hour's width in the window."""
    j = np.asarray(j, dtype=np.int64)
    width = _edges(first, start_s, t0, t1, j + 1) - _edges(first, start_s, t0, t1, j)
    return rate * intensity[(int(first) + j) % 168] * width


def _whole_hours(first: float, n: int, start_s: float, t0: float, t1: float) -> bool:
    """Whether every hour but the first and the last lies inside the window, its edges exact
    whole seconds: its width is then HOUR_S to the last bit."""
    if not float(start_s).is_integer() or n < 3:
        return False
    if max(abs(first), abs(first + n)) * HOUR_S + abs(start_s) >= EXACT:
        return False
    return bool(_edges(first, start_s, -np.inf, np.inf, 1) > t0) and bool(
        _edges(first, start_s, -np.inf, np.inf, n - 1) < t1
    )


def bulk_articles(
    ranks: np.ndarray, k: np.ndarray, weights: np.ndarray, rng: np.random.Generator
) -> None:
    """Put in ``ranks`` (k[i] places a publish, concatenated) each bulk publish's (k > 1)
    articles by ``weights`` without replacement, as successive draws (Efraimidis–Spirakis:
    the k smallest exponential(1) / weight, in key order): a key per live article a publish,
    drawn a block of publishes' rows at a time, then chosen for all the block's publishes of
    one size at once."""
    live = np.flatnonzero(weights)
    live_weights = weights[live]
    bulk = np.flatnonzero(k > 1)
    first = (np.cumsum(k) - k)[bulk]
    step = max(1, KEYS_AT_ONCE // len(live))
    for a in range(0, len(bulk), step):
        kb, at = k[bulk[a : a + step]], first[a : a + step]
        keys = rng.exponential(size=(len(kb), len(live)))
        keys /= live_weights
        # the block's publishes by size (in order within a size), their keys gathered once
        by_size = np.argsort(kb, kind="stable")
        sizes, begin = np.unique(kb[by_size], return_index=True)
        bounds = [*begin.tolist(), len(kb)]
        keys = keys[by_size]
        for size, lo, hi in zip(sizes.tolist(), bounds[:-1], bounds[1:], strict=True):
            rows = by_size[lo:hi]
            ranks[at[rows, None] + np.arange(size)] = live[_smallest(keys[lo:hi], size)]


def _smallest(keys: np.ndarray, k: int) -> np.ndarray:
    """Columns of each row's k smallest keys, in key order (the successive draws' order);
    ``keys`` is overwritten.
    Up to ARGMIN_K, k passes of argmin (each the next draw); beyond, one argpartition, whose
    k it leaves in an order its selection kernel decides (by CPU), then sorted stably
    (sim.exactmath)."""
    if k <= ARGMIN_K:
        left, rows = keys, np.arange(len(keys))  # the caller's own copy: marked in place
        out = np.empty((len(keys), k), dtype=np.int64)
        for j in range(k):
            out[:, j] = left.argmin(axis=1)
            left[rows, out[:, j]] = np.inf
        return out
    if k < keys.shape[1]:
        pick = np.argpartition(keys, k - 1, axis=1)[:, :k]
    else:
        pick = np.broadcast_to(np.arange(keys.shape[1]), keys.shape)
    by_key = np.argsort(np.take_along_axis(keys, pick, axis=1), axis=1, kind="stable")
    return np.take_along_axis(pick, by_key, axis=1)
