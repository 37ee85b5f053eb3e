"""Does the measured share's interval hold on bursty, non-stationary logs? Synthetic logs
whose true share is known, measured by the production ``logs.measured_rows``.

A synthetic site runs YEARS years. Its articles are born over the span (two fifths at the
start, the rest uniformly: the site grows), a tenth of them deleted later. Each article saves
as a Poisson process at its own base rate (log-normal) times the site's regime multiplier:
the site moves through regimes of exponential length (mean ``regime_days``: three months to
two years) each with its own log-normal multiplier, so whole years run busy or quiet. A third
of saves are re-saved within minutes, and with ``bulk`` a publish every BULK_EVERY_DAYS days
touches each alive article with probability BULK_TOUCH at once.

The truth is the share's expectation over the generator at the same span: for each log, the
mean measured share of the other logs of its setting (so it does not depend on the log)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sim import exactmath
from sim.calibrate.logs import CHANGES, EditLog
from sim.studymap import instants, logs
from sim.studymap.forms import DAY_S

if TYPE_CHECKING:
    import pandas as pd

YEARS = 4.0
ARTICLES = 120
BASE_RATE = 0.01
"""Median saves per article a day outside any regime (the shared logs: 0.01–0.04)."""
REGIME_SIGMA = instants.DRIFT_SIGMA
"""The shared logs' largest year-to-year spread of log save rate, rounded up (``instants``)."""
RESAVE = 1 / 3
RESAVE_S = 600.0
BULK_EVERY_DAYS = 45.0
BULK_TOUCH = 0.4
SETTINGS = tuple((days, bulk) for days in (91.0, 365.0, 730.0) for bulk in (False, True))
"""(mean regime length in days, bulk publishes): the settings the coverage test runs."""
AGES_S = (DAY_S, 7 * DAY_S, 30 * DAY_S)
SITES = 4
"""Sites per setting; each run re-draws a site's edits, not its articles."""


@dataclass(frozen=True)
class Site:
    """What a site is, whatever its edits: each article's birth, deletion (inf: never) and
    base save rate per second."""

    born: np.ndarray
    dies: np.ndarray
    base: np.ndarray


def site(rng: np.random.Generator) -> Site:
    """A synthetic site's articles (see the module's docstring)."""
    n, span = ARTICLES, YEARS * 365.0 * DAY_S
    born = np.where(rng.random(n) < 0.4, 0.0, rng.uniform(0, span, n))
    born[0] = 0.0
    dies = np.where(rng.random(n) < 0.1, rng.uniform(born, span), np.inf)
    return Site(born, dies, BASE_RATE / DAY_S * exactmath.exp(rng.standard_normal(n)))


def bursty_log(at: Site, rng: np.random.Generator, regime_days: float, bulk: bool) -> EditLog:
    """One run of the site's edits over YEARS years (see the module's docstring)."""
    span = YEARS * 365.0 * DAY_S
    n, born, dies, base = ARTICLES, at.born, at.dies, at.base
    regime_s = regime_days * DAY_S
    bounds = np.cumsum(rng.exponential(regime_s, int(4 * span / regime_s) + 8))
    bounds = np.concatenate([[0.0], bounds[bounds < span], [span]])
    level = exactmath.exp(REGIME_SIGMA * rng.standard_normal(len(bounds) - 1) - REGIME_SIGMA**2 / 2)
    lo = np.maximum(bounds[:-1][None, :], born[:, None])  # article × regime
    hi = np.minimum(bounds[1:][None, :], np.minimum(dies, span)[:, None])
    counts = rng.poisson(base[:, None] * level[None, :] * np.clip(hi - lo, 0, None))
    art = np.repeat(np.repeat(np.arange(n), counts.shape[1]), counts.ravel())
    t = rng.uniform(np.repeat(lo.ravel(), counts.ravel()), np.repeat(hi.ravel(), counts.ravel()))
    again = rng.random(len(t)) < RESAVE
    art = np.concatenate([art, art[again]])
    t = np.concatenate([t, t[again] + rng.exponential(RESAVE_S, int(again.sum()))])
    pub = np.arange(len(t))
    if bulk:
        when = np.sort(rng.uniform(0, span, rng.poisson(span / (BULK_EVERY_DAYS * DAY_S))))
        hit = (rng.random((len(when), n)) < BULK_TOUCH) & (born < when[:, None])
        hit &= dies > when[:, None]
        b_pub, b_art = np.nonzero(hit)
        art, t = np.concatenate([art, b_art]), np.concatenate([t, when[b_pub]])
        pub = np.concatenate([pub, len(pub) + b_pub])
    keep = t < np.minimum(dies, span)[art]
    art, t, pub = art[keep], t[keep], pub[keep]
    kind = np.full(len(t), CHANGES["modify"])
    dead = np.isfinite(dies)
    art = np.concatenate([np.arange(n), np.arange(n)[dead], art])
    t = np.concatenate([born, dies[dead], t])
    ends = np.full(int(dead.sum()), CHANGES["delete"])
    kind = np.concatenate([np.full(n, CHANGES["add"]), ends, kind])
    pub = np.concatenate([-1 - np.arange(n + int(dead.sum())), pub])
    order = np.lexsort((kind != CHANGES["add"], t))  # an article's add before its saves
    return EditLog(1.6e9 + t[order], pub[order], art[order], kind[order], n, "synthetic")


def measured(reps: int, regime_days: float, bulk: bool, seed: int = 0) -> pd.DataFrame:
    """``logs.measured_rows`` of ``reps`` runs (column ``rep``) of SITES synthetic sites
    (column ``site``), with each run's truth: the mean measured share of its site's other
    runs at its age and draw (the site's expected share over its edit process, estimated
    independently of the run it is compared with)."""
    import pandas as pd

    rng = np.random.default_rng([seed, int(regime_days), int(bulk)])
    sites = [site(rng) for _ in range(SITES)]
    m = pd.DataFrame(
        [
            {**row, "rep": rep, "site": rep % SITES}
            for rep in range(reps)
            for row in logs.measured_rows(
                bursty_log(sites[rep % SITES], rng, regime_days, bulk), AGES_S
            )
        ]
    )
    g = m.groupby(["site", "age_s", "draw"])["measured"]
    m["truth"] = (g.transform("sum") - m["measured"]) / (g.transform("count") - 1)
    return m


def coverage_table(reps: int, seed: int = 0) -> pd.DataFrame:
    """Per setting, age and draw: how often the 95 % interval of ``reps`` synthetic logs holds
    the generator's share, with that share and the interval's mean width."""
    import pandas as pd

    parts = []
    for days, bulk in SETTINGS:
        m = measured(reps, days, bulk, seed)
        m["covered"] = (m["measured_ci_lo"] <= m["truth"]) & (m["truth"] <= m["measured_ci_hi"])
        m["width"] = m["measured_ci_hi"] - m["measured_ci_lo"]
        g = m.groupby(["age_s", "draw"]).agg(
            truth=("truth", "mean"), coverage=("covered", "mean"), width=("width", "mean")
        )
        parts.append(g.reset_index().assign(regime_days=days, bulk=bulk, reps=reps))
    return pd.concat(parts, ignore_index=True)
