"""Saves drawn from a fitted edit shape, each real feature switchable to the write-up's own.

The process: *sittings* (an editor at work) start as a Poisson process whose rate follows
the shape's hour-of-week profile. A sitting holds m session-starting publishes
(``sitting_size_pmf``) with gaps from ``sitting_gap_quantiles_s``. Each such publish starts
sessions on k articles (k = 1, or with probability ``bulk_share`` a bulk size), drawn by edit
popularity without replacement. Each of those articles' sessions holds n saves
(``session_size_pmf``): the first in the starting publish, the rest as one-article publishes
after gaps from ``gap_quantiles_s``. Every save's kind is drawn from ``mix``.

Volume and profile: ``saves_per_day`` is the expected number of saves per 24 h averaged over
a whole week (a week holds 7 × saves_per_day on average). Sittings start at hour-of-week
intensity 168 · weekday_weights[d] · hour_weights[h] (mean 1) times the matching rate, and
each save comes a short delay after its sitting's start, so a window of the week holds
``expected_saves(shape, saves_per_day, span_s, start_s)`` saves on average (the start
profile integrated over the window shifted back by each save's delay). To run an 8-hour
simulated day with 300 saves on average from Tuesday 09:00 UTC use
``saves_per_day_for(shape, 300, 8 * 3600, start_s=DAY_S + 9 * 3600)``; with the profile
off, 300 saves in 8 hours is simply saves_per_day = 900.

Ranks: the popularity law is evaluated at ranks 1..n_active with n_active =
round(active_share · n_articles) (at least 1): the log's share of never-edited articles stays
never-edited at any size of knowledge base; with the feature off, Zipf(zipf_s) over all
n_articles, as in the write-up.

Switched off: popularity → Zipf(zipf_s) over n_articles; bursts → every session holds one
save and every sitting one publish (independent Poisson saves at each article's rate);
bulk → every publish has one article; profile → a constant rate. Some 320 lines: the four
features draw from one schedule, in a fixed order of random streams.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sim import exactmath
from sim.calibrate import blockdraw
from sim.calibrate.shape import EditShape

FEATURES = ("popularity", "bursts", "bulk", "profile")
KINDS = ("body", "title", "unpublish", "new")
CAL_STREAMS: tuple[str, ...] = (
    "cal_starts",
    "cal_sizes",
    "cal_articles",
    "cal_sessions",
    "cal_gaps",
    "cal_kinds",
    "cal_sittings",
)
"""The generator's own random streams, one per random process, in a fixed order."""
HOUR_S = 3600.0
DAY_S = 86400.0
WEEK_S = 7 * DAY_S


@dataclass(frozen=True)
class Saves:
    """Generated (or logged) saves, sorted by time."""

    time_s: np.ndarray
    """Seconds from the start of the window (float)."""
    rank: np.ndarray
    """0-based edit-popularity rank of the saved article among n_articles."""
    kind: np.ndarray
    """Index into KINDS."""
    publish: np.ndarray
    """Publish id, 0.. in time order; the saves of one bulk publish share it and the instant."""

    def __len__(self) -> int:
        return len(self.time_s)


def rank_weights(
    shape: EditShape, n_articles: int, features: frozenset[str], zipf_s: float = 0.9
) -> np.ndarray:
    """Probability that an edit goes to each 0-based rank among n_articles."""
    if "popularity" not in features:
        w = exactmath.power(np.arange(1, n_articles + 1), -zipf_s)
        return w / w.sum()
    n_active = min(n_articles, max(1, round(shape.active_share * n_articles)))
    r = np.arange(1, n_active + 1, dtype=float)
    if shape.popularity_family == "zipf":
        w = exactmath.power(r, -shape.popularity_params[0])
    else:
        s, q = shape.popularity_params
        w = exactmath.power(r + q, -s)
    out = np.zeros(n_articles)
    out[:n_active] = w / w.sum()
    return out


def hour_of_week_intensity(shape: EditShape, features: frozenset[str]) -> np.ndarray:
    """168 relative intensities (mean 1), Monday 00:00 UTC first."""
    if "profile" not in features:
        return np.ones(168)
    return 168.0 * np.outer(shape.weekday_weights, shape.hour_weights).ravel()


def expected_saves(
    shape: EditShape,
    saves_per_day: float,
    span_s: float,
    start_s: float = 0.0,
    features: frozenset[str] = frozenset(FEATURES),
) -> float:
    """Mean number of saves in [start_s, start_s + span_s) of the week-periodic process.

    The profile sets when sittings start; a save comes a delay after its sitting's start
    (the sitting's earlier publishes, then the session's earlier saves), so the window's
    mean is the start intensity integrated over the window shifted back by each delay,
    averaged over the delays' distribution.
    """
    delays = _save_delays(shape, "bursts" in features, "bulk" in features)
    cum = np.r_[0.0, np.cumsum(hour_of_week_intensity(shape, features))] * HOUR_S

    def integral(x: np.ndarray) -> np.ndarray:
        weeks, rest = np.divmod(x, WEEK_S)
        return weeks * cum[-1] + np.interp(rest, np.arange(169) * HOUR_S, cum)

    inside = integral(start_s + span_s - delays) - integral(start_s - delays)
    return float(saves_per_day / DAY_S * inside.mean())


@functools.lru_cache(maxsize=64)
def _save_delays(shape: EditShape, bursts: bool, bulk: bool, sittings: int = 20_000) -> np.ndarray:
    """Delays of saves after their sitting's start, one per save of ``sittings`` sittings:
    a fixed sample (its own seed; no stream of the model) for a numerical integral."""
    if not bursts:
        return np.zeros(1)
    rng = np.random.default_rng(0)
    sitting_pmf, session_pmf = (
        np.asarray(shape.sitting_size_pmf),
        np.asarray(shape.session_size_pmf),
    )
    sizes_pmf = _size_pmf(shape) if bulk else np.ones(1)
    m = 1 + rng.choice(len(sitting_pmf), size=sittings, p=sitting_pmf)
    publish_at = _offsets(m, shape.sitting_gap_quantiles_s, rng)
    k = 1 + rng.choice(len(sizes_pmf), size=len(publish_at), p=sizes_pmf)
    n = 1 + rng.choice(len(session_pmf), size=int(k.sum()), p=session_pmf)
    delays = np.repeat(np.repeat(publish_at, k), n) + _offsets(n, shape.gap_quantiles_s, rng)
    delays.setflags(write=False)
    return delays


def saves_per_day_for(
    shape: EditShape,
    saves: float,
    span_s: float,
    start_s: float = 0.0,
    features: frozenset[str] = frozenset(FEATURES),
) -> float:
    """The ``saves_per_day`` that puts ``saves`` saves on average in the given window."""
    per_unit = expected_saves(shape, 1.0, span_s, start_s, features)
    if per_unit <= 0:
        raise ValueError("saves_per_day_for: the window has no weight in the profile")
    return saves / per_unit


def generate(
    shape: EditShape,
    n_articles: int,
    saves_per_day: float,
    span_s: float,
    rngs: Mapping[str, np.random.Generator],
    features: frozenset[str] = frozenset(FEATURES),
    zipf_s: float = 0.9,
    start_s: float = 0.0,
) -> Saves:
    """Saves in [0, span_s); time 0 is ``start_s`` seconds after a Monday 00:00 UTC."""
    _check(n_articles, saves_per_day, span_s, features, zipf_s, start_s)
    sizes_pmf = _size_pmf(shape) if "bulk" in features else np.array([1.0])
    weights, single = _weights(
        shape, n_articles, "popularity" in features, zipf_s, "bulk" in features
    )
    n_live = int(np.count_nonzero(weights))
    bursts = "bursts" in features
    session_pmf = np.asarray(shape.session_size_pmf) if bursts else np.ones(1)
    sitting_pmf = np.asarray(shape.sitting_size_pmf) if bursts else np.ones(1)
    mean_saves = _mean(sitting_pmf) * _mean(sizes_pmf) * _mean(session_pmf)
    # sittings and sessions started before time 0 still reach into the window: start early
    burn_s = (len(sitting_pmf) - 1) * shape.sitting_gap_s
    burn_s += (len(session_pmf) - 1) * shape.session_gap_s
    rate, intensity = saves_per_day / DAY_S / mean_saves, hour_of_week_intensity(shape, features)
    sittings = blockdraw.sitting_starts(
        rate, intensity, start_s, -burn_s, span_s, rngs["cal_starts"]
    )
    m = 1 + rngs["cal_sittings"].choice(len(sitting_pmf), size=len(sittings), p=sitting_pmf)
    offset = _offsets(m, shape.sitting_gap_quantiles_s, rngs["cal_sittings"])
    starts = np.sort(np.repeat(sittings, m) + offset)
    k = 1 + rngs["cal_sizes"].choice(len(sizes_pmf), size=len(starts), p=sizes_pmf)
    k = np.minimum(k, n_live)
    n = 1 + rngs["cal_sessions"].choice(len(session_pmf), size=int(k.sum()), p=session_pmf)
    # a start before time 0 matters only if one of its sessions can reach time 0
    start_of = np.repeat(np.arange(len(starts)), k)
    reach = np.full(len(starts), -np.inf)
    np.maximum.at(reach, start_of, starts[start_of] + (n - 1) * shape.session_gap_s)
    live = reach >= 0
    starts, k, n = starts[live], k[live], n[live[start_of]]
    start_of = np.repeat(np.arange(len(starts)), k)
    rank = _draw_articles(k, weights, single, rngs["cal_articles"])
    session = np.repeat(np.arange(len(rank)), n)
    index_in = np.arange(len(session)) - np.repeat(np.cumsum(n) - n, n)
    time = starts[start_of][session] + _offsets(n, shape.gap_quantiles_s, rngs["cal_gaps"])
    # a starting save belongs to its start's publish; every later save is its own publish
    key = np.where(index_in == 0, start_of[session], len(starts) + np.arange(len(session)))
    keep = (time >= 0) & (time < span_s)
    time, key, rank = time[keep], key[keep], rank[session][keep]
    order = np.lexsort((key, time))
    time, key, rank = time[order], key[order], rank[order]
    publish = np.cumsum(np.r_[True, key[1:] != key[:-1]]) - 1 if len(key) else key
    kind = rngs["cal_kinds"].choice(len(KINDS), size=len(time), p=np.asarray(shape.mix))
    return Saves(time, rank.astype(np.int64), kind.astype(np.int8), publish.astype(np.int64))


def _size_pmf(shape: EditShape) -> np.ndarray:
    """P(k = 1, 2, ...) of a session-starting publish."""
    return np.r_[1 - shape.bulk_share, shape.bulk_share * np.asarray(shape.bulk_size_pmf)]


def _mean(pmf: np.ndarray) -> float:
    return exactmath.dot(np.arange(1, len(pmf) + 1), pmf)


def _draw_articles(
    k: np.ndarray, weights: np.ndarray, single: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Ranks of each publish's k distinct articles, concatenated in order: a one-article
    publish by ``single``; a bulk one by ``weights`` without replacement (``blockdraw``)."""
    ranks = np.repeat(rng.choice(len(single), size=len(k), p=single), k)
    blockdraw.bulk_articles(ranks, k, weights, rng)
    return ranks


@functools.lru_cache(maxsize=64)
def _weights(
    shape: EditShape, n_articles: int, popularity: bool, zipf_s: float, bulk: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Rank weights of all saves and of one-article publishes (cached: a day's generation
    reuses them)."""
    features = frozenset({"popularity"} if popularity else ())
    weights = rank_weights(shape, n_articles, features, zipf_s)
    single = _single_weights(weights, _size_pmf(shape)) if bulk else weights
    for a in (weights, single):
        a.setflags(write=False)
    return weights, single


def _single_weights(weights: np.ndarray, sizes_pmf: np.ndarray) -> np.ndarray:
    """Popularity of one-article publishes that keeps every rank's share of all saves at
    ``weights``: a bulk publish can hold a popular article only once, so the bulk publishes
    under-serve the head, and the one-article publishes make up the difference. Inclusion
    probabilities of a bulk draw of size k: 1 - exp(-c w), c solving sum = k (Rosén's
    approximation of successive sampling)."""
    from scipy import optimize  # about a second to import: only for a calibrated process

    bulk = 1.0 - sizes_pmf[0]
    if bulk <= 0 or bulk >= 1:
        return weights
    n_live = np.count_nonzero(weights)
    served = np.zeros_like(weights)
    for size in np.flatnonzero(sizes_pmf[1:]) + 2:
        kk = min(size, n_live)
        if kk >= n_live:
            served += sizes_pmf[size - 1] * (weights > 0)
            continue
        hi = 50.0 * n_live / weights[weights > 0].min()
        c = optimize.brentq(
            lambda c, kk=kk: math.fsum((-exactmath.expm1(-c * weights)).tolist()) - kk, 0.0, hi
        )
        served += sizes_pmf[size - 1] * -exactmath.expm1(-c * weights)
    mean_k = _mean(sizes_pmf)
    single = np.clip(mean_k * weights - served, 0.0, None)
    return single / single.sum() if single.sum() > 0 else weights


def _offsets(n: np.ndarray, quantiles: tuple[float, ...], rng: np.random.Generator) -> np.ndarray:
    """Times from the start of each of len(n) runs of n[i] events to each event: gaps drawn
    from the quantiles, interpolated in log-seconds; the first event of a run at 0."""
    q = exactmath.log(np.asarray(quantiles))
    gaps = exactmath.exp(np.interp(rng.random(int(n.sum())), np.linspace(0, 1, len(q)), q))
    first = np.cumsum(n) - n
    gaps[first] = 0.0
    offset = np.cumsum(gaps)
    return offset - np.repeat(offset[first], n)


def _check(
    n_articles: int,
    saves_per_day: float,
    span_s: float,
    features: frozenset[str],
    zipf_s: float,
    start_s: float,
) -> None:
    if isinstance(n_articles, bool) or not isinstance(n_articles, int | np.integer):
        raise ValueError(
            f"generate: n_articles must be an integer of 1 or more; got {n_articles!r}"
        )
    if n_articles < 1:
        raise ValueError(f"generate: n_articles must be 1 or more; got {n_articles}")
    for name, value in (("saves_per_day", saves_per_day), ("span_s", span_s), ("zipf_s", zipf_s)):
        if not (np.isfinite(value) and value >= 0):
            raise ValueError(
                f"generate: {name} must be a finite number of 0 or more; got {value!r}"
            )
    if not np.isfinite(start_s):
        raise ValueError(f"generate: start_s must be a finite number; got {start_s!r}")
    unknown = set(features) - set(FEATURES)
    if unknown:
        raise ValueError(f"generate: features must be among {FEATURES}; got {sorted(unknown)}")
