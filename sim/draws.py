"""Many small ``choice`` + ``random`` draws of a numpy Generator, taken in bulk.

The corpus gives each of its articles (50,000 in the advisor's largest KB) a few distinct
sentences and three uniforms per sentence: ``rng.integers``, ``rng.choice(..., replace=
False)`` and ``rng.random`` per article, about 30 µs each of numpy's per-call overhead and
1.6 s of a 50,000-article opening. ``choices_with_uniforms`` returns exactly what that loop
of calls returns, and leaves the Generator in exactly the state it leaves (``has_uint32``
and ``uinteger`` included), from one ``random_raw`` block of PCG64 outputs, reproducing
numpy 2.x's algorithms (``_generator.pyx`` ``choice``, ``distributions.c``):

- ``next_uint32``: a 64-bit output's low half, its high half buffered for the next call;
  ``next_double`` (``random``): ``(raw >> 11) * 2**-53``, leaving the buffer alone;
- ``integers(low, high)`` and each bounded draw of ``choice``: Lemire's method on one
  ``next_uint32``, ``(u * n) >> 32``, redrawn while ``(u * n) mod 2**32 < 2**32 mod n``;
- ``choice(population, k, replace=False)`` for population <= 10,000: Floyd's algorithm
  (for j = population-k .. population-1 draw v in 0..j; take v, or j if v was taken), then
  the picks shuffled (for i = k-1 .. 1 swap i with a draw in 0..i).

Without a redraw an item takes 2k uint32s, so it consumes k outputs and leaves the buffer
as it found it, and its doubles take the next 3k. A redraw (about one in 10⁹ draws) ends
the bulk pass: that item is drawn by numpy's own calls, and the pass resumes after it.
Other bit generators or parameters go through numpy's calls throughout.
"""

from __future__ import annotations

import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
_FLOYD_MAX_POPULATION = 10_000
"""Above it (for large samples) ``choice`` shuffles a tail instead of Floyd's algorithm."""

Draws = tuple[np.ndarray, np.ndarray, np.ndarray]
"""(each item's number of picks, the picks one item after another, the uniforms likewise)."""


def choices_with_uniforms(
    rng: np.random.Generator, n: int, population: int, low: int, high: int, per_pick: int
) -> Draws:
    """As n times ``k = int(rng.integers(low, high)); rng.choice(population, size=k,
    replace=False); rng.random(per_pick * k)``, concatenated."""
    parts: list[Draws] = []
    done = 0
    fast = type(rng.bit_generator) is np.random.PCG64 and (
        low >= 1 and low + 2 <= high <= population <= _FLOYD_MAX_POPULATION
    )
    while done < n:
        if fast:
            part = _bulk(rng, n - done, population, low, high, per_pick)
            parts.append(part)
            done += len(part[0])
        if done < n:  # a redraw, or no bulk pass for this generator
            parts.append(_one_by_one(rng, population, low, high, per_pick))
            done += 1
    if not parts:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
    sizes, picks, uniforms = zip(*parts, strict=True)
    return np.concatenate(sizes), np.concatenate(picks), np.concatenate(uniforms)


def _one_by_one(
    rng: np.random.Generator, population: int, low: int, high: int, per_pick: int
) -> Draws:
    k = int(rng.integers(low, high))
    picks = rng.choice(population, size=k, replace=False).astype(np.int64)
    return np.array([k]), picks, rng.random(per_pick * k)


def _bulk(
    rng: np.random.Generator, m: int, population: int, low: int, high: int, per_pick: int
) -> Draws:
    """Up to m items from one block of outputs, stopping before the first that redraws."""
    bits = rng.bit_generator
    if not isinstance(bits, np.random.PCG64):  # its state's layout is read below
        raise TypeError(f"_bulk: expected a PCG64 generator; received {type(bits).__name__}")
    start = bits.state
    buffered = int(start["has_uint32"])
    step = 1 + per_pick  # outputs an item of k picks consumes, per pick
    raw = bits.random_raw(m * (high - 1) * step)
    halves = np.empty(2 * len(raw) + 1, np.uint64)  # the carried uint32, then low, high, ...
    halves[0] = start["uinteger"]
    halves[1::2] = raw & _M32
    halves[2::2] = raw >> np.uint64(32)
    # an item's first uint32 is half 2q + 1 (output q's low half), or, after a buffered
    # one, half 2q (the high half carried from the item before; the start's own at q = 0)
    first_halves = halves[1 - buffered :: 2]
    size_of = low + ((first_halves * np.uint64(high - low)) >> np.uint64(32)).astype(np.int64)
    size_of = size_of.tolist()
    firsts, sizes, at = [], [], []  # per item: q, k and its first output
    q, p = 0, 0
    for _ in range(m):
        k = size_of[q]
        firsts.append(q)
        sizes.append(k)
        at.append(p)
        p += k * step
        q = p - k * per_pick if buffered else p
    k_of, p_of, first_of = np.array(sizes), np.array(at), 2 * np.array(firsts) + 1 - buffered
    picks = np.full((m, high - 1), -1, np.int64)
    redraws = np.zeros(m, bool)
    for k in range(low, high):
        rows = np.flatnonzero(k_of == k)
        # uint32 c >= 1 of an item from output p: half 2p + c + 1, or 2p + c if buffered
        cols = 2 * p_of[rows, None] + np.arange(1, 2 * k) + (1 - buffered)
        u = np.column_stack([halves[first_of[rows]], halves[cols]])
        bound = np.array(
            [high - low, *range(population - k + 1, population + 1), *range(k, 1, -1)], np.uint64
        )
        scaled = u * bound
        redraws[rows] = ((scaled & _M32) < (2**32 % bound)).any(axis=1)
        v = (scaled >> np.uint64(32)).astype(np.int64)
        picks[rows, :k] = _floyd_shuffled(v[:, 1:], population, k)
    r = int(np.argmax(redraws)) if redraws.any() else m
    if r:
        last = at[r - 1] + sizes[r - 1]
        bits.state = start
        bits.advance(last + sizes[r - 1] * per_pick)
        state = bits.state
        state["has_uint32"], state["uinteger"] = buffered, int(halves[2 * last])
        bits.state = state
    else:
        bits.state = start
    k_of, p_of = k_of[:r], p_of[:r]
    n_u = per_pick * k_of
    offsets = np.repeat(p_of + k_of - np.cumsum(n_u) + n_u, n_u) + np.arange(int(n_u.sum()))
    uniforms = (raw[offsets] >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    chosen = picks[:r]
    return k_of, chosen[chosen >= 0], uniforms


def _floyd_shuffled(v: np.ndarray, population: int, k: int) -> np.ndarray:
    """Rows of k Floyd draws then k-1 shuffle draws, as ``choice`` turns them into picks."""
    picks = np.empty((len(v), k), np.int64)
    for c in range(k):
        j = population - k + c
        taken = (picks[:, :c] == v[:, c, None]).any(axis=1)
        picks[:, c] = np.where(taken, j, v[:, c])
    rows = np.arange(len(v))
    for c, i in enumerate(range(k - 1, 0, -1)):
        drawn = v[:, k + c]
        swapped = picks[rows, drawn]
        picks[rows, drawn] = picks[:, i].copy()
        picks[:, i] = swapped
    return picks
