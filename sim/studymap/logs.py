"""A real help centre on the map, measured from its edit log's own rows, without the model.

The share (``measured``) is what "a read at a random moment" means: an instant r drawn
uniformly from the log's span (less the age, so the read's whole age lies in the log), then
an article alive at r (from its first row; until its deletion, if the log deletes it last),
drawn by the log's own edit popularity (weight ∝ its saves over the log) or evenly. It is
stale at age a when the log saves (modifies, renames or deletes) that article in (r, r + a]:
share = (1/|T|) ∫ Σ_alive wᵢ·staleᵢ(r) / Σ_alive wᵢ dr, over the instants where some weight
is alive. The same measure is the CAS rejection a human's save alone causes: an edit sent a
after the read, with the read's version, is rejected exactly when a save lands in between.
Shares are exact, not samples: for an article's sorted saves s₁ < s₂ < …, the reads made
stale are the disjoint pieces [max(sᵢ − a, sᵢ₋₁), sᵢ), and the alive set changes only at
rows, so the integral is summed segment by segment (``instants``). ``pooled`` is stale over
alive article-time (Σ stale / Σ alive), which weights the later, larger years.

The interval is a circular block bootstrap over time with an automatic block length, with
the drift of regimes as long as the log added (``instants``; its coverage: ``coverage``).
Beside each share: the Poisson prediction at the log's own per-article rates (the log's
popularity, no bursts, the same uniform-instant mean), whose gap to the measurement is the
log's burstiness and bulk publishes."""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from sim import exactmath
from sim.calibrate.logs import CHANGES, EditLog
from sim.studymap import instants
from sim.studymap.forms import DAY_S, Relation, human_rejection

if TYPE_CHECKING:  # only measure() makes a table: `import` and `advise` skip loading pandas
    import pandas as pd

AGES_S = (5.0, 60.0, 600.0, 3600.0, 4 * 3600.0, 8 * 3600.0, DAY_S, 7 * DAY_S, 30 * DAY_S)
"""Citation ages (and CAS delays) measured: 5 s and 4 h are the write-up's delays."""
DRAWS = ("popularity", "uniform")
ESTIMAND = (
    "uniform instant r of the span less the age, then an alive article (by edit popularity"
    " or evenly); stale if saved in (r, r + age]"
)
INTERVAL = (
    f"circular block bootstrap of {instants.WINDOWS} time windows (Politis-White block"
    f" length), with a drift of {instants.DRIFT_SIGMA:g} in log rate between regimes of"
    f" {instants.DRIFT_REGIME_DAYS:g} days added on the log scale"
)
BULK_ARTICLES = 10
"""A publish touching at least this many articles is a bulk publish."""
BURST_S = 3600.0


def _saves(log: EditLog) -> np.ndarray:
    """Rows that change a published article a reader may hold: modify, rename, delete."""
    return log.kind != CHANGES["add"]


def _alive(log: EditLog, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Each article's span [start, end) clipped to [lo, hi]: from its first row, to its last
    row if that is a delete."""
    return _clipped(_lifetimes(log), lo, hi)


def _lifetimes(log: EditLog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each article's first row, last row, and whether that last row deletes it: what
    ``_alive`` clips, the same at every age (made once for all of them)."""
    n = log.n_articles
    start = np.full(n, np.inf)
    np.minimum.at(start, log.article, log.epoch_s)
    last = np.full(n, -np.inf)
    np.maximum.at(last, log.article, log.epoch_s)
    last_kind = np.full(n, -1)
    order = np.lexsort((log.epoch_s, log.article))
    last_kind[log.article[order]] = log.kind[order]  # the last write per article wins
    return start, last, last_kind == CHANGES["delete"]


def _clipped(
    lifetimes: tuple[np.ndarray, np.ndarray, np.ndarray], lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    start, last, deleted = lifetimes
    end = np.where(deleted, last, hi)
    return np.clip(start, lo, hi), np.clip(end, lo, hi)


def _sorted_saves(log: EditLog) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The saves by article and time, and each one's previous save of the same article
    (-inf for the first): the same at every age (made once for all of them)."""
    keep = _saves(log)
    art, t = log.article[keep], log.epoch_s[keep]
    order = np.lexsort((t, art))
    art, t = art[order], t[order]
    prev = np.concatenate([[-np.inf], t[:-1]])
    prev[np.concatenate([[True], art[1:] != art[:-1]])] = -np.inf
    return art, t, prev


def _stale_pieces(
    saves: tuple[np.ndarray, np.ndarray, np.ndarray], age_s: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    art, t, prev = saves
    return art, np.maximum(t - age_s, prev), t


def intensity(log: EditLog) -> float:
    """Saves per alive article per day over the log's span."""
    lo, hi = float(log.epoch_s.min()), float(log.epoch_s.max())
    start, end = _alive(log, lo, hi)
    alive_days = float((end - start).sum()) / DAY_S
    return float(_saves(log).sum() / alive_days) if alive_days > 0 else math.nan


def measure(log: EditLog, ages_s: tuple[float, ...] = AGES_S) -> pd.DataFrame:
    """``measured_rows`` as a table (what the map's ``map_logs`` holds)."""
    import pandas as pd

    return pd.DataFrame(measured_rows(log, ages_s))


def measured_rows(log: EditLog, ages_s: tuple[float, ...] = AGES_S) -> list[dict[str, Any]]:
    """Per age and draw: the uniform-instant share (``measured``) with its block-bootstrap
    interval, the pooled article-time share, the Poisson prediction at the log's own rates
    (the same uniform-instant mean) and the write-up's popularity at the log's intensity."""
    t0, t1 = float(log.epoch_s.min()), float(log.epoch_s.max())
    rate = intensity(log)
    saves_per = np.bincount(log.article[_saves(log)], minlength=log.n_articles)
    weights = {"popularity": saves_per.astype(float), "uniform": np.ones(log.n_articles)}
    lifetimes, saves = _lifetimes(log), _sorted_saves(log)
    rows = []
    for age in ages_s:
        hi = t1 - age
        if hi <= t0:  # the log is shorter than the age: no read has its whole window in it
            continue
        edges = np.linspace(t0, hi, instants.WINDOWS + 1)
        start, end = _clipped(lifetimes, t0, hi)
        art, lo_p, hi_p = _stale_pieces(saves, age)
        lo_p = np.maximum(lo_p, start[art])  # a read needs the article alive
        hi_p = np.maximum(np.minimum(hi_p, end[art]), lo_p)
        own = saves_per / np.maximum((end - start) / DAY_S, 1e-12) / DAY_S  # λ per s
        for draw in DRAWS:
            w = weights[draw]
            alive = (start, end, w)
            at = instants.windows((lo_p, hi_p, w[art]), alive, edges)
            poisson = instants.windows((start, end, w * -exactmath.expm1(-own * age)), alive, edges)
            span_days = (hi - t0) / DAY_S
            lo, up, block = instants.interval(at, np.random.default_rng(0), span_days)
            relation: Relation = "same" if draw == "popularity" else "independent"
            rows.append(
                {
                    "age_s": age,
                    "draw": draw,
                    "measured": at.share(),
                    "measured_ci_lo": lo,
                    "measured_ci_hi": up,
                    "pooled": at.pooled(),
                    "poisson_own_rates": poisson.share(),
                    "model_writeup_shape": float(human_rejection(rate, age, relation)),
                    "edits_per_article_day": rate,
                    "estimand": ESTIMAND,
                    "interval": INTERVAL,
                    "block_days": block * span_days / instants.WINDOWS,
                }
            )
    return rows


def render(log: EditLog, rows: list[dict[str, Any]] | None = None) -> str:
    """The measurement as `python -m sim calibrate` (and `advise`, `import`) prints it;
    ``rows``: ``measured_rows(log)`` when the caller has them already."""
    m = measured_rows(log) if rows is None else rows
    if not m:
        return "  Stale citations by age: the log spans less than every age measured."
    t = traits(log)
    head = (
        f"Stale citations by age, from the log's own rows ({t['edits_per_article_day']:.3g}"
        " saves per article a day): a uniform instant of the log's span, then an article alive"
        " at it, drawn by the log's edit popularity, stale if the log saves it within the age"
        " [95 % interval: a block bootstrap over time, with the drift of two-year regimes"
        " the log cannot show];"
        " pooled: stale over alive article-time, which weights the later, larger years;"
        " uniform: the article drawn evenly; Poisson at the log's own rates. The same share at"
        " a delay is the CAS rejection a human's save alone causes:"
    )
    lines = textwrap.wrap(head, 96, initial_indent="  ", subsequent_indent="  ")
    by = {(r["age_s"], r["draw"]): r for r in m}
    for age in dict.fromkeys(r["age_s"] for r in m):
        p, u = by[age, "popularity"], by[age, "uniform"]
        lines.append(
            f"    {_age(age):>8}: {100 * p['measured']:.3g} % [{100 * p['measured_ci_lo']:.3g},"
            f" {100 * p['measured_ci_hi']:.3g}]; pooled {100 * p['pooled']:.3g} %;"
            f" uniform {100 * u['measured']:.3g} %; Poisson {100 * p['poisson_own_rates']:.3g} %"
        )
    return "\n".join(lines)


def _age(age_s: float) -> str:
    for unit, size in (("d", DAY_S), ("h", 3600.0), ("min", 60.0)):
        if age_s >= size:
            return f"{age_s / size:g} {unit}"
    return f"{age_s:g} s"


def traits(log: EditLog) -> dict[str, float]:
    """What makes a log depart from Poisson saves: the share of its saves that come within
    an hour of the same article's previous save (and what Poisson saves at its own rates
    would give), and the share of saves in bulk publishes."""
    keep = _saves(log)
    art, t, pub = log.article[keep], log.epoch_s[keep], log.publish[keep]
    order = np.lexsort((t, art))
    art, t = art[order], t[order]
    same = np.concatenate([[False], art[1:] == art[:-1]])
    gap = np.diff(t, prepend=-np.inf)
    lo, hi = float(log.epoch_s.min()), float(log.epoch_s.max())
    start, end = _alive(log, lo, hi)
    counts = np.bincount(art, minlength=log.n_articles)
    own = counts / np.maximum(end - start, 1.0)
    ids, touched = np.unique(log.publish, return_counts=True)  # rows: articles a publish changed
    bulk = touched[np.searchsorted(ids, pub)] >= BULK_ARTICLES
    return {
        "saves": float(keep.sum()),
        "edits_per_article_day": intensity(log),
        "within_hour_share": float((same & (gap <= BURST_S)).sum() / max(1, len(t))),
        "within_hour_poisson": float(
            (counts * (1 - exactmath.exp(-own * BURST_S))).sum() / counts.sum()
        ),
        "bulk_save_share": float(bulk.mean()) if len(bulk) else 0.0,
        "saves_per_hour": float(keep.sum() / ((hi - lo) / 3600.0)),
    }
