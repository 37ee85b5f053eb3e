"""Fit an edit shape to a log, each fitted value with a seeded bootstrap interval.

Two resampling units, because the log has two kinds of dependence. Article-level values
(popularity, sessions, burst coefficients) resample *articles* with their whole save
history: an article's saves depend on each other (that dependence is the burst), so they
must travel together. Publish-level values (volume, bulk publishes, the mix, the hour and
weekday profile) resample *publishes*: the saves of one publish share an instant, an author
and a reason, so the publish is the independent unit there.

An initial import (``logs.initial_imports``: a publish adding at least 20 % of the log's
articles, and 10 or more) is the help centre being filled, not edited: its saves are left
out of the mix and its sessions out of the hour and weekday profile, by that rule alone
(one publish, one instant would otherwise set the profile's busiest hour and the share of
'new'). It still counts in the volume, the sessions and the bulk sizes, which describe the
log as it is; ``Fit.imports`` says what was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from sim.calibrate import popfit, sessions
from sim.calibrate.generate import DAY_S, HOUR_S, KINDS
from sim.calibrate.logs import EditLog, Import, initial_imports, week_offset
from sim.calibrate.sessions import PerArticle
from sim.calibrate.shape import EditShape

GOF_LEVEL = 0.05
"""Zipf 'fits badly' when its simulated KS p-value is below this; then the better of Zipf and
Zipf–Mandelbrot by AIC is used."""
PROFILE_PRIOR = 0.5
"""Pseudo-count per hour and weekday bin (Jeffreys), so a short log leaves no hour impossible."""


@dataclass(frozen=True)
class Fit:
    shape: EditShape
    table: pd.DataFrame
    """One row per fitted value: quantity, estimate, ci_low, ci_high, resampled, note."""
    gof: tuple[popfit.Gof, ...]
    """Goodness of fit of Zipf and of Zipf–Mandelbrot."""
    imports: tuple[Import, ...] = ()
    """The initial imports left out of the mix and the profile."""


@dataclass(frozen=True)
class _Articles:
    """Each article's counts, computed in one pass over the rows: a resample of articles
    (each drawn w times) is then a weighted sum over articles, linear in the log's size."""

    body: np.ndarray
    """Body edits of each article."""
    rows: np.ndarray
    sessions: np.ndarray
    resaved: np.ndarray
    """Sessions with a re-save."""
    gaps: np.ndarray
    """Positive gaps inside sessions, sorted, and the article of each."""
    gap_article: np.ndarray
    short: np.ndarray
    """Positive gaps inside sessions within 10 min, and all positive ones, per article."""
    positive: np.ndarray
    coef: PerArticle


def _articles(log: EditLog, session_gap_s: float) -> _Articles:
    n = log.n_articles
    order, same = sessions.by_article(log.article, log.epoch_s)
    art = log.article[order]
    gap = np.diff(log.epoch_s[order], prepend=0.0)
    cont = same & (gap <= session_gap_s)
    opens = ~cont
    size = np.diff(np.r_[np.flatnonzero(opens), len(cont)])
    inner = cont & (gap > 0)
    by_gap = np.argsort(gap[inner], kind="stable")
    return _Articles(
        body=np.bincount(log.article[log.kind == 0], minlength=n),
        rows=np.bincount(log.article, minlength=n),
        sessions=np.bincount(art[opens], minlength=n),
        resaved=np.bincount(art[opens][size > 1], minlength=n),
        gaps=gap[inner][by_gap],
        gap_article=art[inner][by_gap],
        short=np.bincount(art[inner & (gap <= 600)], minlength=n),
        positive=np.bincount(art[inner], minlength=n),
        coef=sessions.per_article(log.article, log.epoch_s),
    )


def _isum(w: np.ndarray, counts: np.ndarray) -> int:
    """Sum of whole-number products, exact (no BLAS: its order is the CPU's)."""
    return int((np.asarray(w, dtype=np.int64) * np.asarray(counts, dtype=np.int64)).sum())


def _weighted_median(sorted_values: np.ndarray, weight: np.ndarray) -> float:
    """np.median of the values each repeated weight times (whole weights)."""
    cum = np.cumsum(weight)
    total = int(cum[-1]) if len(cum) else 0
    if not total:
        return np.nan
    lo, hi = np.searchsorted(cum, [(total - 1) // 2, total // 2], side="right")
    return float((sorted_values[lo] + sorted_values[hi]) / 2)


def _article_values(t: _Articles, w: np.ndarray) -> dict[str, float]:
    """The article-level values of the log made of each article taken w times."""
    c = popfit.ranked(np.repeat(t.body, w))
    n_sessions, n_positive = _isum(w, t.sessions), _isum(w, t.positive)
    b, m, _ = t.coef.mean(w[t.coef.articles])
    return {
        "zipf s": popfit.fit_zipf(c)[0] if len(c) else np.nan,
        "top-10 share of body edits": popfit.top_share(c) if len(c) else np.nan,
        "saves per session (mean)": _isum(w, t.rows) / n_sessions,
        "sessions with a re-save": _isum(w, t.resaved) / n_sessions,
        "gap median in a session (s)": _weighted_median(t.gaps, w[t.gap_article]),
        "gaps in a session within 10 min": (
            _isum(w, t.short) / n_positive if n_positive else np.nan
        ),
        "burstiness B (log)": b,
        "memory M (log)": m,
    }


_PerPublish = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Per publish: instant, rows, session-starting rows, rows of each kind, sitting weight."""


def _publish_values(
    epoch: np.ndarray,
    n_rows: np.ndarray,
    n_starts: np.ndarray,
    kind_counts: np.ndarray,
    sitting_weight: np.ndarray,
    window_s: float,
    w: np.ndarray | None = None,
) -> dict[str, float]:
    """From per-publish arrays: instant, rows, session-starting rows, rows of each kind, and
    for a sitting's first publish the sessions its sitting starts (else 0); each publish
    counted w times (default once). Every sum is of whole numbers, so a weighted resample
    gives the same values as one made of copies."""
    return _PublishTable(epoch, n_rows, n_starts, kind_counts, sitting_weight).values(
        window_s, np.ones(len(epoch), dtype=np.int64) if w is None else w
    )


class _PublishTable:
    """The per-publish arrays with their masks and profile bins made once, for resamples."""

    def __init__(
        self,
        epoch: np.ndarray,
        n_rows: np.ndarray,
        n_starts: np.ndarray,
        kind_counts: np.ndarray,
        sitting_weight: np.ndarray,
    ) -> None:
        first = np.flatnonzero(sitting_weight > 0)  # the profile is of sitting starts,
        t = epoch[first]  # weighted by their sessions
        self.first, self.sitting_weight = first, sitting_weight[first]
        self.hour = ((t // HOUR_S) % 24).astype(int)
        self.day = (((t + 3 * DAY_S) // DAY_S) % 7).astype(int)
        rows = np.asarray(n_rows, dtype=np.int64)
        starts = np.asarray(n_starts, dtype=np.int64)
        # every whole-number sum a resample takes, as one product of whole numbers (exact,
        # so its order is free): the kinds, rows, publishes with a session start, bulk
        # publishes and their starts, publishes of >1 article, rows in publishes of >=10
        self.counts = np.ascontiguousarray(
            np.vstack(
                [
                    np.asarray(kind_counts, dtype=np.int64).T,
                    rows,
                    starts > 0,
                    starts > 1,
                    np.where(starts > 1, starts, 0),
                    rows > 1,
                    np.where(rows >= 10, rows, 0),
                ]
            ),
            dtype=np.int64,
        )

    def values(self, window_s: float, w: np.ndarray) -> dict[str, float]:
        sw = self.sitting_weight * w[self.first]
        hours = np.bincount(self.hour, weights=sw, minlength=24) + PROFILE_PRIOR
        days = np.bincount(self.day, weights=sw, minlength=7) + PROFILE_PRIOR
        sums = self.counts @ np.asarray(w, dtype=np.int64)
        mix, (saves, n_has, n_bulk, bulk_starts, n_multi, big) = sums[:4], sums[4:].tolist()
        mix = mix / mix.sum() if mix.sum() else np.full(len(KINDS), np.nan)
        out = {
            "saves per day": saves / (window_s / DAY_S),
            "bulk share of session starts": n_bulk / n_has if n_has else np.nan,
            "bulk size (mean)": bulk_starts / n_bulk if n_bulk else 0,
            "publishes with >1 article": n_multi / int(w.sum()),
            "saves in publishes of >=10": big / saves,
        }
        out |= {f"mix {k}": float(v) for k, v in zip(KINDS, mix, strict=True)}
        out |= {f"hour {h:02d} UTC": float(v) for h, v in enumerate(hours / hours.sum())}
        names = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
        out |= {f"weekday {d}": float(v) for d, v in zip(names, days / days.sum(), strict=True)}
        return out


def _per_publish(
    log: EditLog, starts: np.ndarray, sitting_gap_s: float, imports: tuple[Import, ...] = ()
) -> tuple[_PerPublish, np.ndarray, np.ndarray]:
    """Per-publish arrays (see _publish_values), and the sittings' sizes and inner gaps;
    the ``imports``' publishes hold no kinds (the mix) and weigh nothing in their sitting
    (the profile)."""
    ids, first, inverse = np.unique(log.publish, return_index=True, return_inverse=True)
    n_rows = np.bincount(inverse)
    n_starts = np.bincount(inverse, weights=starts).astype(int)
    kinds = np.zeros((len(first), len(KINDS)))
    np.add.at(kinds, (inverse, log.kind), 1)
    imported = np.isin(ids, [i.publish for i in imports])
    kinds[imported] = 0
    profiled = np.where(imported, 0, n_starts)
    epoch = log.epoch_s[first]
    starting = np.flatnonzero(n_starts > 0)
    opens, sizes, gaps = sessions.split(
        np.zeros(len(starting), int), epoch[starting], sitting_gap_s
    )
    order = np.argsort(epoch[starting], kind="stable")
    sitting = np.cumsum(opens[order]) - 1
    weight = np.zeros(len(first))
    weight[starting[order][opens[order]]] = np.bincount(sitting, profiled[starting][order])
    return (epoch, n_rows, n_starts, kinds, weight), sizes, gaps


def fit(
    log: EditLog,
    window_s: float | None = None,
    session_gap_s: float = sessions.DEFAULT_SESSION_GAP_S,
    sitting_gap_s: float = sessions.DEFAULT_SITTING_GAP_S,
    boot: int = 200,
    gof_sims: int = 200,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
    shape_only: bool = False,
    on_shape: Callable[[EditShape], None] | None = None,
) -> Fit:
    """The shape of ``log`` and its table of estimates with 95 % bootstrap intervals.

    ``window_s``: the length of time the log covers (default: first to last save), for the
    volume. ``progress``, if given, is told each stage (for a long log's progress line).
    ``shape_only``: the Zipf–Mandelbrot family's goodness-of-fit simulations, which the
    shape does not read (only Zipf's p-value picks the family), are not run and its p-value
    is NaN; the shape is the same (``fit_shape``). ``on_shape``, if given, gets the shape as
    soon as it is known, before the bootstrap (a long log's calibrate starts its runs of the
    shape then, beside the bootstrap).
    """
    if window_s is None:
        window_s = float(log.epoch_s[-1] - log.epoch_s[0])
    if not window_s > 0:
        raise ValueError("the log covers no time: it needs saves at two different instants")
    boot_rng, gof_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    starts, sizes, gaps = sessions.split(log.article, log.epoch_s, session_gap_s)
    imports = tuple(initial_imports(log))
    per_pub, sitting_sizes, sitting_gaps = _per_publish(log, starts, sitting_gap_s, imports)
    counts = popfit.ranked(np.bincount(log.article[log.kind == 0]))
    if len(counts) < 2:
        raise ValueError("the log has body edits of fewer than 2 articles: no popularity to fit")
    if progress is not None:
        progress(f"goodness of fit of the popularity ({gof_sims} simulations a family)")
    # the family is read from Zipf's p-value and both AICs: Zipf–Mandelbrot's simulations
    # (most of the goodness of fit) wait until the shape is out, and draw from gof_rng
    # after Zipf's, as always
    gof = (popfit.goodness_of_fit(counts, "zipf", gof_rng, gof_sims),
           popfit.fitted(counts, "zipf_mandelbrot"))  # fmt: skip
    family = "zipf"
    if gof[0].p_value < GOF_LEVEL and gof[1].aic < gof[0].aic:
        family = "zipf_mandelbrot"
    params = gof[0].params if family == "zipf" else gof[1].params

    articles = _articles(log, session_gap_s)
    point = _article_values(articles, np.ones(log.n_articles, dtype=np.int64))
    point |= {"zipf-mandelbrot s": gof[1].params[0], "zipf-mandelbrot q": gof[1].params[1]}
    point |= _publish_values(*per_pub, window_s)
    point |= _sitting_values(sitting_sizes, sitting_gaps)
    names = list(point)
    bulk = np.bincount(per_pub[2][per_pub[2] > 1])[2:]
    body, title, unpublish, new = (point[f"mix {k}"] for k in KINDS)
    shape = EditShape(
        popularity_family=family,
        popularity_params=tuple(float(p) for p in params),
        active_share=len(counts) / log.n_articles,
        session_size_pmf=sessions.size_pmf(sizes),
        session_gap_s=float(session_gap_s),
        gap_quantiles_s=sessions.gap_quantiles(gaps, session_gap_s),
        bulk_share=float(point["bulk share of session starts"]),
        bulk_size_pmf=tuple(float(b) for b in bulk / bulk.sum()) if bulk.sum() else (),
        mix=(body, title, unpublish, new),
        hour_weights=tuple(point[n] for n in names if n.startswith("hour ")),
        weekday_weights=tuple(point[n] for n in names if n.startswith("weekday ")),
        log_saves_per_day=float(point["saves per day"]),
        log_articles=int(log.n_articles),
        # a log file by its name, not where this checkout keeps it: the shape a reproduction
        # commits must not depend on the folder it ran in
        source=Path(log.source).name if Path(log.source).is_file() else log.source,
        sitting_gap_s=float(sitting_gap_s),
        sitting_size_pmf=sessions.size_pmf(sitting_sizes),
        sitting_gap_quantiles_s=sessions.gap_quantiles(sitting_gaps, sitting_gap_s),
    )
    if on_shape is not None:
        on_shape(shape)
    if not shape_only:
        gof = (gof[0], popfit.simulated(counts, gof[1], gof_rng, gof_sims))
    art_boot = _boot_articles(articles, boot, boot_rng, gof[1].params, progress)
    if progress is not None:
        progress(f"bootstrap of publishes and sittings ({boot} resamples)")
    pub_boot = _boot_publishes(per_pub, window_s, boot, boot_rng)
    pub_boot |= _boot_sittings(sitting_sizes, sitting_gaps, boot, boot_rng)
    rows = []
    for name, value in point.items():
        samples, unit = (art_boot, "articles") if name in art_boot else (pub_boot, "publishes")
        unit = "sittings" if name.startswith("sitting") else unit
        s = np.asarray(samples.get(name, []), dtype=float)
        s = s[np.isfinite(s)]
        lo, hi = np.quantile(s, [0.025, 0.975]) if len(s) else (np.nan, np.nan)
        rows.append((name, float(value), float(lo), float(hi), unit if len(s) else ""))
    table = pd.DataFrame(rows, columns=["quantity", "estimate", "ci_low", "ci_high", "resampled"])
    return Fit(shape, table, gof, imports)


def fit_shape(log: EditLog, gof_sims: int = 200, seed: int = 1) -> EditShape:
    """``fit(log, boot=0).shape`` without the simulations the shape does not read: what
    `advise --edit-log` simulates (the Zipf–Mandelbrot family's goodness of fit was three
    quarters of the shared log's fit)."""
    return fit(log, boot=0, gof_sims=gof_sims, seed=seed, shape_only=True).shape


def _boot_articles(
    t: _Articles,
    boot: int,
    rng: np.random.Generator,
    zm: tuple[float, ...],
    progress: Callable[[str], None] | None = None,
) -> dict[str, list[float]]:
    """Refits on logs made of articles drawn with replacement, each a new article."""
    n = len(t.rows)
    out: dict[str, list[float]] = {}
    for i in range(boot):
        pick = rng.integers(0, n, n)
        w = np.bincount(pick, minlength=n)
        values = _article_values(t, w)
        c = popfit.ranked(np.repeat(t.body, w))
        values["zipf-mandelbrot s"], values["zipf-mandelbrot q"] = (
            popfit.fit_zipf_mandelbrot(c, zm) if len(c) > 2 else (np.nan, np.nan)
        )
        for k, v in values.items():
            out.setdefault(k, []).append(v)
        if progress is not None:
            progress(f"bootstrap of articles {i + 1}/{boot}")
    return out


def _sitting_values(sizes: np.ndarray, gaps: np.ndarray) -> dict[str, float]:
    g = gaps[gaps > 0]
    return {
        "sitting: publishes (mean)": float(sizes.mean()),
        "sitting: gap median (s)": float(np.median(g)) if len(g) else np.nan,
    }


def _boot_sittings(
    sizes: np.ndarray, gaps: np.ndarray, boot: int, rng: np.random.Generator
) -> dict[str, list[float]]:
    """Sittings resampled whole: a sitting's publishes depend on each other (each sitting's
    gaps counted as often as it is drawn, without copying them)."""
    sitting_of = np.repeat(np.arange(len(sizes)), sizes - 1)
    positive = gaps > 0
    by_gap = np.argsort(gaps[positive], kind="stable")
    sorted_gaps, owner = gaps[positive][by_gap], sitting_of[positive][by_gap]
    out: dict[str, list[float]] = {}
    for _ in range(boot):
        w = np.bincount(rng.integers(0, len(sizes), len(sizes)), minlength=len(sizes))
        values = {
            "sitting: publishes (mean)": _isum(w, sizes) / len(sizes),
            "sitting: gap median (s)": _weighted_median(sorted_gaps, w[owner]),
        }
        for k, v in values.items():
            out.setdefault(k, []).append(v)
    return out


def _boot_publishes(
    per_pub: _PerPublish, window_s: float, boot: int, rng: np.random.Generator
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    n = len(per_pub[0])
    table = _PublishTable(*per_pub)
    for _ in range(boot):
        pick = rng.integers(0, n, n)
        values = table.values(window_s, np.bincount(pick, minlength=n))
        for k, v in values.items():
            out.setdefault(k, []).append(v)
    return out


def week_start(epoch_s: float) -> float:
    """Unix seconds of the Monday 00:00 UTC on or before ``epoch_s``."""
    return epoch_s - week_offset(epoch_s)
