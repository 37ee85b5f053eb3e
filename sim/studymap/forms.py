"""Closed forms of the map, in calendar time and on the simulated day.

An article saved as a Poisson process of rate λ leaves a citation of it stale after an age a
with probability 1 − e^{−λa} (Cho & Garcia-Molina; ``sim/theory.py``). With mean intensity r
(edits per article per 24 h) spread over n articles by a Zipf(s) popularity, λᵢ = r·n·wᵢ/day,
so every answer below depends on r and a only through r·a: the map's x axis (r) and its
lines (a) trade one for the other. That is how the form stands in for citations held for
days: the simulation checks it on the 8-hour day over three decades of r, which spans the
r·a a month of the quietest real log reaches (``sim.studymap.tables.stand_in``).

How questions relate to edits enters as the weight each article carries among citations:
the same ranking (a question's target is the article humans edit most often, Zipf weight
qᵢ on λᵢ) or an independent one (the expectation over a random ranking: every λᵢ equally).
Every function is pure; nothing here reads or writes a file.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Literal

import numpy as np

from sim import exactmath, theory
from sim.params import Params
from sim.popularity import zipf_weights

DAY_S = 86_400.0
"""A calendar day: the map's unit of intensity (edits per article per day)."""
Relation = Literal["same", "independent"]
RELATIONS: tuple[Relation, ...] = ("same", "independent")
_GRID = 2001


def edit_rates(rate_per_article_day: float, n: int, s: float) -> np.ndarray:
    """λ per second by edit-popularity rank: r·n saves a day spread by Zipf(s) weights."""
    return rate_per_article_day * n * zipf_weights(n, s) / DAY_S


def citation_weights(relation: Relation, n: int, s: float, k: int) -> np.ndarray:
    """Each edit rank's share of citations: the first of k citations follows the questions
    (Zipf, on the same ranking or, in expectation, on an independent one), the others are
    random articles (popularity rank independent of topic, as in ``sim/theory.py``)."""
    first = zipf_weights(n, s) if relation == "same" else np.full(n, 1.0 / n)
    return (first + (k - 1) / n) / k


def first_weights(relation: Relation, n: int, s: float) -> np.ndarray:
    """The cited-first article's weight per edit rank (what an agent edits)."""
    return zipf_weights(n, s) if relation == "same" else np.full(n, 1.0 / n)


def unchanged(rates: np.ndarray, weights: np.ndarray, window_s: np.ndarray) -> np.ndarray:
    """Σᵢ wᵢ e^{−λᵢ a} for every window a (any shape)."""
    a = np.asarray(window_s, dtype=float)
    return (
        (weights[:, None] * exactmath.exp(-rates[:, None] * a.reshape(1, -1)))
        .sum(0)
        .reshape(a.shape)
    )


def stale_share(
    rate_per_article_day: float,
    age_s: np.ndarray | float,
    relation: Relation = "same",
    n: int = 400,
    s: float = 0.9,
    k: int = 2,
) -> np.ndarray:
    """Share of citations stale after age a at steady rates (no day boundary, no dawn)."""
    lam = edit_rates(rate_per_article_day, n, s)
    return 1.0 - unchanged(lam, citation_weights(relation, n, s, k), np.asarray(age_s, float))


def human_rejection(
    rate_per_article_day: float,
    delay_s: np.ndarray | float,
    relation: Relation = "same",
    n: int = 400,
    s: float = 0.9,
) -> np.ndarray:
    """Share of CAS edits sent delay_s after the read with the citation's version that a
    human's save (or unpublish) meets: the first citation's stale share at age delay_s."""
    lam = edit_rates(rate_per_article_day, n, s)
    return 1.0 - unchanged(lam, first_weights(relation, n, s), np.asarray(delay_s, float))


def agent_rejection(
    agent_edits_per_article_day: float, delay_s: np.ndarray | float, n: int = 400, s: float = 0.9
) -> np.ndarray:
    """Share of the agent's CAS edits that meet another of its own edits of the article in
    the delay, with no human saving: the agent edits its first citations (question
    popularity) at this mean intensity, each landing after a delay, so at steady state its
    version changes on article i come at rate ν = α·n·qᵢ/day."""
    q = zipf_weights(n, s)
    nu = agent_edits_per_article_day * n * q / DAY_S
    return 1.0 - unchanged(nu, q, np.asarray(delay_s, float))


@exactmath.rounded
def day_end_stale(params: Params, relation: Relation) -> float:
    """The simulated day's share of citations stale or gone at its end: the first
    citation's and every other's (``day_end_stale_by_citation``) weighted as an answer
    holds them."""
    first, other = _by_citation(params, relation)
    k = params.citations_per_answer
    return float((first + (k - 1) * other) / k)


@exactmath.rounded
def day_end_stale_by_citation(params: Params, relation: Relation) -> dict[str, float]:
    """The day's end stale-or-gone share of an answer's first citation and of each other
    one: ``theory``'s form (reads uniform over the day, each window cut at the day's end, a
    gone target replaced by a random article), with the first citation's weight by how
    questions relate to edits, and every other citation a random article among those still
    published at the read (those saved most are unpublished first, which ``theory`` leaves
    out: it matters from tens of edits per article a day, where hundreds of articles are
    unpublished within the day). The day's other citations are the search's later hits, not
    random articles: an edit rewrites or adds a paragraph, so an article edited often drifts
    from the words of other questions and is cited second less often than at random; the
    map's agreement holds each citation to its own form to show where the gap lies."""
    first, other = _by_citation(params, relation)
    return {"first": first, "other": other}


def _by_citation(params: Params, relation: Relation) -> tuple[float, float]:
    """``day_end_stale_by_citation`` unrounded (the whole share rounds once)."""
    lam = theory.save_rates_per_s(_writeup(params))[:, None]
    w = first_weights(relation, params.n_articles, params.zipf_s)[:, None]
    t = np.linspace(0.0, params.day_s, _GRID)
    published = _published_on_grid(_writeup(params))
    changed = theory.p_changed(lam, (params.day_s - t)[None, :])
    random_article = (published * changed).sum(0) / published.sum(0)
    first = (w * (published * changed + (1 - published) * random_article)).sum(0)
    dx = 1.0 / (_GRID - 1)
    return float(np.trapezoid(first, dx=dx)), float(np.trapezoid(random_article, dx=dx))


def _first_on_day(params: Params, relation: Relation) -> np.ndarray:
    """Weight of each edit rank as the first citation of a read on the day's grid (rank ×
    t): the question's target while it is published (unpublished at rate u·λ), else a
    random published article (``day_end_stale``); on an independent ranking, its
    expectation."""
    w = first_weights(relation, params.n_articles, params.zipf_s)[:, None]
    published = _published_on_grid(_writeup(params))
    held = w * published
    return held + (1.0 - held.sum(0)) * published / published.sum(0)


_AGENT_GRID, _MAPS = 241, 8


@exactmath.rounded
def day_cas(params: Params, relation: Relation, delays_s: tuple[float, ...]) -> dict:
    """Per delay of the day's ladder (assigned round-robin, so each delay is 1/K of the
    edits): P(a human saves or unpublishes the edited article between read and edit) and,
    on the same ranking, P(only the agent's own other edits of it land there); reads
    uniform over the day, humans saving only within it.

    The agent edits its first citation: the question's target while published, else the
    target's nearest neighbour in search (one article per target: a random function, its
    expectation taken over fixed draws of it, as ``theory.push_counts`` does; linear in it
    for the human part, so a random article there). Its edits of article i land at τ at rate
    (Q/D)·(1/K)·Σ_δ′ Wᵢ(τ − δ′), W the first citation's weight at the read. Approximate for
    the agent: a retry's later landing and a rejected edit (which changes no version) are
    counted as landing; the tolerance says how much that is. The human part weights each
    delay's reads by when they come (``_read_density``); the agent's takes them uniform."""
    p = _writeup(params)
    w = _first_on_day(p, relation)  # rank × t
    out: dict[float, dict[str, float]] = {}
    for delay in delays_s:
        human = _human_by_read(w, p, delay) * _read_density(p, delay)
        out[delay] = {"human": float(np.trapezoid(human, dx=1.0 / (_GRID - 1)))}
    if relation == "same":
        for delay, share in _agent_only(p, delays_s).items():
            out[delay]["agent"] = share
    return out


def _human_by_read(w: np.ndarray, p: Params, delay: float) -> np.ndarray:
    """P(a human save of the edited article between a read at t and `delay` later) on the
    day's grid, the article weighted by ``w`` (``_first_on_day``; p on the write-up's
    ranking, ``_writeup``)."""
    return (w * (1 - _no_human_save(p, delay))).sum(0)


@exactmath.rounded
def read_order_shift(params: Params, relation: Relation, delay: float) -> float:
    """The human-save form at `delay` (``day_cas``) with each rung's reads weighted by when
    they come (``_read_density``) over the same form with reads uniform over the day, less
    one: what weighting by the reads' order statistics changes (§ 7 quotes it)."""
    p = _writeup(params)
    human = _human_by_read(_first_on_day(p, relation), p, delay)
    weighted = np.trapezoid(human * _read_density(p, delay), dx=1.0 / (_GRID - 1))
    return float(weighted / np.trapezoid(human, dx=1.0 / (_GRID - 1)) - 1.0)


def _agent_only(p: Params, delays_s: tuple[float, ...]) -> dict[float, float]:
    """The day's agent-only rejection per delay (``day_cas``), over _MAPS neighbour maps."""
    d, n = p.day_s, p.n_articles
    lam = theory.save_rates_per_s(p)[:, None]
    q = zipf_weights(n, p.zipf_s)[:, None]
    t = np.linspace(0.0, d, _AGENT_GRID)
    step = d / (_AGENT_GRID - 1)
    published = exactmath.exp(-p.save_mix[2] * lam * t[None, :])
    draws = np.random.default_rng(0)
    shares = np.zeros(len(delays_s))
    no_humans = [exactmath.exp(-lam * np.minimum(delay, d - t)[None, :]) for delay in delays_s]
    for _ in range(_MAPS):
        neighbour = (np.arange(n) + draws.integers(1, n, n)) % n
        w = q * published
        np.add.at(w, neighbour, q * (1 - published))  # a gone target's questions move on
        cum = np.concatenate([np.zeros((n, 1)), np.cumsum((w[:, 1:] + w[:, :-1]) / 2, 1)], 1)

        def by(x: np.ndarray, cum: np.ndarray = cum) -> np.ndarray:
            """∫₀ˣ W dt′ per article, x clipped to the day (linear between grid points)."""
            idx = np.clip(x, 0.0, d) / step
            lo = np.minimum(idx.astype(int), _AGENT_GRID - 2)
            f = idx - lo
            return (cum[:, lo] * (1 - f) + cum[:, lo + 1] * f) * step

        before = {other: by(t - other) for other in delays_s}  # shared by every delay
        for k, delay in enumerate(delays_s):
            landed = sum(by(t + delay - other) - before[other] for other in delays_s)
            nu = p.n_questions * landed / (d * len(delays_s))
            agent_only = (w * no_humans[k] * -exactmath.expm1(-nu)).sum(0)
            shares[k] += np.trapezoid(agent_only, dx=1.0 / (_AGENT_GRID - 1)) / _MAPS
    return {delay: float(v) for delay, v in zip(delays_s, shares, strict=True)}


@functools.lru_cache(maxsize=32)
def _read_density(p: Params, delay: float) -> np.ndarray:
    """Density of the read time (per share of the day, on the day's grid, read-only) of the
    answers that edit after `delay`: the answers take the ladder's delays round-robin in
    time order (``sim.model.day``), so the k-th of K delays holds the order statistics
    k, k + K, … of n uniform reads, each Beta(j + 1, n − j): a later rung reads later,
    by about (k − (K − 1)/2)/n of the day, and more of its window is cut by the day's end
    (uniform reads put the 4-hour rung too high: ``read_order_shift``). Uniform for a delay
    off the ladder or under Poisson arrivals (n not fixed)."""
    from scipy.stats import beta  # here: the map's other forms never need scipy.stats

    x = np.linspace(0.0, 1.0, _GRID)
    ladder, n = p.edit_delays_s, int(p.n_questions)
    if delay not in ladder or p.arrivals != "uniform" or n < len(ladder):
        density = np.ones(_GRID)
    else:
        ranks = np.arange(ladder.index(delay), n, len(ladder))
        density = beta.pdf(x[None, :], ranks[:, None] + 1, n - ranks[:, None]).mean(0)
        density = density / np.trapezoid(density, x)
    density.setflags(write=False)
    return density


@functools.lru_cache(maxsize=8)
def _published_on_grid(p: Params) -> np.ndarray:
    """P(each edit rank is still published at t) on the day's grid (rank × t, read-only):
    day_end_stale and day_cas share it for both relations (for p, the write-up's ranking)."""
    lam = theory.save_rates_per_s(p)[:, None]
    t = np.linspace(0.0, p.day_s, _GRID)
    published = exactmath.exp(-p.save_mix[2] * lam * t[None, :])
    published.setflags(write=False)
    return published


@functools.lru_cache(maxsize=32)
def _no_human_save(p: Params, delay: float) -> np.ndarray:
    """P(no human save of each edit rank between a read at t and its edit delay later, cut
    at the day's end) on the day's grid (rank × t, read-only): both relations' day_cas."""
    t = np.linspace(0.0, p.day_s, _GRID)
    lam = theory.save_rates_per_s(p)[:, None]
    no_human = exactmath.exp(-lam * np.minimum(delay, p.day_s - t)[None, :])
    no_human.setflags(write=False)
    return no_human


def _writeup(params: Params) -> Params:
    """The params with saves on the questions' ranking (λ by edit rank; the relation is
    applied by the weights)."""
    return replace(params, edit_follows_questions=1.0)


@exactmath.rounded
def check_calls_ratio(params: Params, page: float = 100) -> dict[str, float]:
    """The hourly checker's re-read and poll calls per check (``theory.expected_check_calls``,
    a poll call taking `page` events) averaged over the day's checks, and poll's calls over
    re-read's."""
    rows = theory.expected_check_calls(params, page)
    reread = float(np.mean([r["reread_calls"] for r in rows]))
    poll = float(np.mean([r["poll_calls"] for r in rows]))
    return {"reread_calls_per_check": reread, "poll_calls_per_check": poll, "ratio": poll / reread}
