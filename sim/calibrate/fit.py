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

from sim.calibrate import popfit, publishes, sessions
from sim.calibrate.generate import KINDS
from sim.calibrate.logs import EditLog, Import, initial_imports, week_offset
from sim.calibrate.sessions import PerArticle
from sim.calibrate.shape import EditShape

GOF_LEVEL = 0.05
"""Zipf 'fits badly' when its simulated KS p-value is below this; then the better of Zipf and
Zipf–Mandelbrot by AIC is used."""


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


def _article_values(t: _Articles, w: np.ndarray) -> dict[str, float]:
    """The article-level values of the log made of each article taken w times."""
    c = popfit.ranked(np.repeat(t.body, w))
    n_sessions, n_positive = publishes.isum(w, t.sessions), publishes.isum(w, t.positive)
    b, m, _ = t.coef.mean(w[t.coef.articles])
    return {
        "zipf s": popfit.fit_zipf(c)[0] if len(c) else np.nan,
        "top-10 share of body edits": popfit.top_share(c) if len(c) else np.nan,
        "saves per session (mean)": publishes.isum(w, t.rows) / n_sessions,
        "sessions with a re-save": publishes.isum(w, t.resaved) / n_sessions,
        "gap median in a session (s)": publishes.weighted_median(t.gaps, w[t.gap_article]),
        "gaps in a session within 10 min": (
            publishes.isum(w, t.short) / n_positive if n_positive else np.nan
        ),
        "burstiness B (log)": b,
        "memory M (log)": m,
    }


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
    per_pub, sitting_sizes, sitting_gaps = publishes.per_publish(
        log, starts, sitting_gap_s, imports
    )
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
    point |= publishes.publish_values(*per_pub, window_s)
    point |= publishes.sitting_values(sitting_sizes, sitting_gaps)
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
    pub_boot = publishes.boot_publishes(per_pub, window_s, boot, boot_rng)
    pub_boot |= publishes.boot_sittings(sitting_sizes, sitting_gaps, boot, boot_rng)
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


def week_start(epoch_s: float) -> float:
    """Unix seconds of the Monday 00:00 UTC on or before ``epoch_s``."""
    return epoch_s - week_offset(epoch_s)
