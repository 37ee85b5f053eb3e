"""A KB's edit history replayed as simulated days (``Params.save_process = 'trace'``).

A fitted process smooths the history's bursts and bulk publishes into rates; a trace-driven
day keeps them as they happened. The history's calendar days (UTC) are cut into
``BLOCK_DAYS``-day blocks of consecutive days (whole blocks only, from its first day), so a
week's bursts stay together; the even-numbered blocks are the choosing half and the odd
ones the checking half, so the days that check a pick never share a calendar day with those
that made it. Seed k (1-based) of a half is day (k−1) mod BLOCK_DAYS of the block drawn for
its run of BLOCK_DAYS seeds, uniformly from its half's blocks with the ``trace_days``
stream of that run's first seed; seeds from ``CHECK_SEED_BASE`` on are the checking half's.

A drawn day replays the saves recorded in its ``day_s``-long window (on the hour, the
hours of the UTC day holding most of the history's saves), at their recorded offsets, on
the articles recorded: each mapped to the KB's published article of that id, and a save of
an article not published in the KB now (deleted since) or one creating an article replayed
as a 'new' save, which changes nothing cited. Days with no save in the window are replayed
too: they are the history's quiet days.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.calibrate.logs import EditLog

BLOCK_DAYS = 7
"""Days a block of the history holds: a week, so weekly bursts and weekends stay whole."""
CHECK_SEED_BASE = 100_001
"""The first seed of the checking half (above any --max-days: the halves share no seed)."""
MIN_SAVE_DAYS = 60
"""Calendar days with a save a trace needs at least to be the default."""
MIN_SPAN_DAYS = 90
"""Days from the history's first save to its last a trace needs at least to be the
default (with whole blocks, at least six in each half)."""
NEW = 3
"""generate.KINDS' 'new': a save that changes nothing cited."""
DAY_S = 86_400.0


@dataclass(frozen=True, eq=False)
class SaveTrace:
    """The history's saves as arrays, in time order, and the days they fall on."""

    epoch_s: np.ndarray
    target: np.ndarray
    """Index among the KB's published articles (id order); -1: not published now."""
    kind: np.ndarray
    """Index into generate.KINDS (body, title, unpublish, new)."""
    publish: np.ndarray
    day0_s: float
    """Unix seconds of 00:00 UTC of the history's first day."""
    n_days: int
    n_articles: int
    source: str

    def __repr__(self) -> str:
        return f"SaveTrace({self.source!r}, {len(self.epoch_s):,} saves, {self.n_days:,} days)"

    @property
    def n_blocks(self) -> int:
        return self.n_days // BLOCK_DAYS

    def half_blocks(self, checking: bool) -> np.ndarray:
        """The blocks of the choosing half (even) or the checking half (odd)."""
        return np.arange(int(checking), self.n_blocks, 2)

    def window_s(self, day_s: float) -> float:
        """Offset in the UTC day of the simulated day: the day_s-long span on the hour
        holding most of the history's saves (the earliest of equals)."""
        hours = min(24, max(1, math.ceil(day_s / 3600.0)))
        hour = ((self.epoch_s - self.day0_s) % DAY_S // 3600).astype(int)
        counts = np.bincount(hour, minlength=24)
        sums = [int(counts[h : h + hours].sum()) for h in range(24 - hours + 1)]
        return 3600.0 * int(np.argmax(sums))

    def day_of(self, seed: int, draw: np.random.Generator) -> int:
        """The calendar day (0-based from day0) seed replays; `draw` is the trace_days
        stream of the first seed of its run of BLOCK_DAYS seeds."""
        checking = seed >= CHECK_SEED_BASE
        blocks = self.half_blocks(checking)
        if not len(blocks):
            raise ValueError(f"the history {self.source} has no whole {BLOCK_DAYS}-day block")
        block = int(blocks[int(draw.integers(len(blocks)))])
        return block * BLOCK_DAYS + (seed - block_seed(seed)) % BLOCK_DAYS

    def day(self, d: int, day_s: float, late_s: float = 0.0) -> np.ndarray:
        """Indices of the saves replayed on calendar day d (its window, and late_s after)."""
        start = self.day0_s + d * DAY_S + self.window_s(day_s)
        lo, hi = np.searchsorted(self.epoch_s, [start, start + day_s + late_s], side="left")
        return np.arange(lo, hi)

    def start_of(self, d: int, day_s: float) -> float:
        return self.day0_s + d * DAY_S + self.window_s(day_s)

    def weights(self) -> np.ndarray:
        """Each published article's share of the history's saves (uniform if none)."""
        mine = self.target[self.target >= 0]
        counts = np.bincount(mine, minlength=self.n_articles).astype(float)
        return (
            counts / counts.sum() if counts.sum() else np.full(self.n_articles, 1 / self.n_articles)
        )

    def save_days(self) -> int:
        return len(np.unique((self.epoch_s - self.day0_s) // DAY_S))

    def span_days(self) -> float:
        return float(self.epoch_s[-1] - self.epoch_s[0]) / DAY_S if len(self.epoch_s) else 0.0

    def enough(self) -> str | None:
        """Why the history is too short to replay by default, or None if it is not."""
        days, span = self.save_days(), self.span_days()
        if days >= MIN_SAVE_DAYS and span >= MIN_SPAN_DAYS:
            return None
        return (
            f"the history has saves on {days:,} days spanning {span:,.0f} days; replaying it "
            f"needs saves on at least {MIN_SAVE_DAYS} days spanning at least {MIN_SPAN_DAYS}"
        )

    def digest(self) -> str:
        h = hashlib.sha256()
        for a in (self.epoch_s, self.target, self.kind, self.publish):
            h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:12]


def block_seed(seed: int) -> int:
    """The first seed of seed's run of BLOCK_DAYS seeds (within its half)."""
    base = CHECK_SEED_BASE if seed >= CHECK_SEED_BASE else 1
    return base + (seed - base) // BLOCK_DAYS * BLOCK_DAYS


def from_log(log: EditLog, names: Sequence[str], published: Sequence[str]) -> SaveTrace:
    """The log's saves on the KB's published articles: `names[i]` is the log's article i
    (first-appearance order), `published` the KB's published article ids in id order."""
    index = {a: i for i, a in enumerate(published)}
    where = np.array([index.get(n, -1) for n in names], dtype=np.int64)
    target = where[log.article] if len(log) else np.zeros(0, dtype=np.int64)
    kind = np.where(target < 0, NEW, log.kind).astype(np.int8)
    order = np.argsort(log.epoch_s, kind="stable")
    epoch = np.asarray(log.epoch_s, dtype=float)[order]
    day0 = math.floor(epoch[0] / DAY_S) * DAY_S if len(epoch) else 0.0
    n_days = int((epoch[-1] - day0) // DAY_S) + 1 if len(epoch) else 0
    return SaveTrace(
        epoch,
        target[order],
        kind[order],
        np.asarray(log.publish)[order],
        day0,
        n_days,
        len(published),
        log.source,
    )
