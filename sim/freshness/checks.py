"""What checking costs in closed form: the re-read and poll methods' calls at each check,
poll pages per day, subscriptions and notifications under push, and the reads of re-read
and poll under the stopping rule (per-article chains, solved in ``chains.py``)."""

from __future__ import annotations

import math

import numpy as np

from sim import exactmath
from sim.freshness import held as held_forms
from sim.freshness.chains import day_counts, euler_steps, held_at_checks
from sim.freshness.rates import citation_rates, p_changed, save_rates_per_s
from sim.params import Params
from sim.popularity import zipf_weights

POLL_PAGE_EVENTS = 100
"""Events a poll call returns at most (the server's default limit, ``DEFAULT_POLL_LIMIT``):
the interval's E events take ⌈E / 100⌉ calls. math.inf: one call a check, whatever E."""


@exactmath.rounded
def expected_check_calls(params: Params, page: float = POLL_PAGE_EVENTS) -> list[dict[str, float]]:
    """Expected tool calls of the re-read and poll methods at each check.

    By check k, n questions have been answered (n grows uniformly over the day). A
    question's first citation is its target, so article j is a cited target with
    probability 1 − (1 − qⱼ)ⁿ. The second citation is the target's nearest neighbour in
    search, the same article each time the target is asked about; taking that map as a
    random function, j is nobody's cited neighbour with probability exp(−ρₙ), ρₙ the mean
    of 1 − (1 − qᵢ)ⁿ over articles. Re-reading reads every distinct cited article;
    polling pages the interval's events (a call per `page` of them) and reads the cited articles
    that changed in the interval, changes being independent of citations. Characters follow
    from these counts and the sizes of a read result, an event and a page's envelope.
    """
    q = zipf_weights(params.n_articles, params.zipf_s)
    lam = save_rates_per_s(params)
    dt = params.check_interval_s
    events = params.n_saves * dt / params.day_s
    pages = max(1.0, float(np.ceil(events / page)))
    uncited, changed = 1.0 - q, p_changed(lam, dt)  # the same at every check
    rows = []
    for k in range(1, params.n_checks + 1):
        if held_forms.held(params):  # the answers of the last citation_hold_s seconds
            answered = held_forms.held_answers(params, k * dt)
        else:
            answered = params.n_questions * min(1.0, k * dt / params.day_s)
        target = 1.0 - uncited**answered
        cited = 1.0 - (1.0 - target) * np.exp(-target.mean())
        rows.append(
            {
                "check": k,
                "reread_calls": float(cited.sum()),
                "poll_calls": pages + float(cited @ changed),
                "poll_pages": pages,
                "poll_events": events,
            }
        )
    return rows


@exactmath.rounded
def poll_pages_per_day(params: Params, interval_s: float, page: int = 100) -> float:
    """Expected poll calls per day to page the events, cursor kept: each check reads one
    page at least, and ⌈N/page⌉ for N events since the last check. With uniform arrivals N
    is binomial (n_saves draws, each in the interval with probability T/D)."""
    checks = int(params.day_s // interval_s)
    m, q = params.n_saves, min(1.0, interval_s / params.day_s)
    if q == 1.0:
        return checks * float(max(1, math.ceil(m / page)))
    n = np.arange(m + 1)
    log_comb = np.array(
        [math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1) for k in n]
    )
    p = np.exp(log_comb + n * math.log(q) + (m - n) * math.log1p(-q))
    return checks * float((np.maximum(1, np.ceil(n / page)) * p).sum())


@exactmath.rounded
def push_counts(params: Params, maps: int = 64, steps: int = 2000) -> dict[str, float]:
    """Expected subscriptions and notifications per day when the agent subscribes to each
    article it cites and unsubscribes once a notification shows all its citations stale.

    Per article, a Markov chain: unsubscribed until it is cited (rate r), subscribed until
    it changes (rate λ), which sends a notification; a change is an unpublish with
    probability u (the mix's unpublish share), after which the article is gone: never cited
    or subscribed again. The expected subscribes are ∫ r·P(unsubscribed), the
    notifications ∫ λ·P(subscribed) over the day (RK4 on a grid of `steps`). Each
    notification costs one re-read and one unsubscribe. An article is cited first at its
    question rate; other citations are the asked article's nearest neighbour in search,
    the same article each time, so an article's rate as a neighbour is the summed question
    rate of the articles it is the neighbour of: the expectation is taken over `maps` random
    neighbour maps (fixed draws, so the result is a number, not a sample). Approximate
    where a citation made after a change keeps the subscription."""
    d = params.day_s
    lam = np.broadcast_to(save_rates_per_s(params), (maps, params.n_articles))
    u = params.save_mix[2]
    r = citation_rates(params, maps)
    counts = np.empty((2, *r.shape))
    flat_r, flat_lam = r.reshape(-1), np.ascontiguousarray(lam).reshape(-1)
    flat = counts.reshape(2, -1)
    for lo in range(0, flat_r.size, _CHUNK):  # elementwise: chunks that stay in cache
        part = slice(lo, lo + _CHUNK)
        flat[:, part] = day_counts(flat_r[part], flat_lam[part], u, d / steps, steps)
    return {
        "subscribes": float(counts[0].sum(axis=1).mean()),
        "notifications": float(counts[1].sum(axis=1).mean()),
    }


_CHUNK = 4096
"""Chains per chunk of push_counts: its ~500 elementwise steps then run in cache."""


@exactmath.rounded
def stopped_check_calls(
    params: Params, interval_s: float, maps: int = 16, steps: int = 2000
) -> dict[str, float]:
    """Expected reads per day of re-read and poll at a check interval under the stopping
    rule (an article whose held citations are all known stale is not checked until cited
    again). Per article a chain like push's: unwatched (U) until cited (rate r), watched (W)
    until it changes (rate λ), gone at the unpublish rate uλ from either; an article is
    checked at a check if it was watched at the previous one or cited since. Re-read reads
    each such article; poll only those that changed in the interval (citing and changing
    taken as independent). Averaged over neighbour maps as push_counts is; Euler steps of
    day_s / steps, cut at each check. Poll pages are not included (poll_pages_per_day).

    The chain is linear with constant rates, so the Euler steps from one check to the next
    are one fixed matrix M (the same cut steps every interval) and the state at check k is
    Mᵏ⁻¹(1, 0): the sum over the day's K checks is Σₖ₌₀ᴷ⁻¹ Mᵏ (1, 0), taken by repeated
    squaring as push_counts takes its day."""
    if held_forms.held(params):
        return held_forms.stopped_check_calls_held(params, interval_s, maps)
    d, u = params.day_s, params.save_mix[2]
    checks = 0
    while (checks + 1) * interval_s <= d + 1e-9:
        checks += 1
    if checks == 0:
        return {"reread_reads": 0.0, "poll_reads": 0.0}
    lam = np.broadcast_to(save_rates_per_s(params), (maps, params.n_articles))
    r = citation_rates(params, maps)
    cited_in, changed_in = 1 - np.exp(-r * interval_s), p_changed(lam, interval_s)
    cut = euler_steps(d / steps, interval_s)
    held = np.empty((2, *r.shape))  # Σ over checks of P(unwatched), P(watched) before it
    flat_r, flat_lam = r.reshape(-1), np.ascontiguousarray(lam).reshape(-1)
    flat = held.reshape(2, -1)
    for lo in range(0, flat_r.size, _CHUNK):
        part = slice(lo, lo + _CHUNK)
        flat[:, part] = held_at_checks(flat_r[part], flat_lam[part], u, cut, checks)
    checked = held[1] + held[0] * cited_in
    return {
        "reread_reads": float(checked.sum(axis=1).mean()),
        "poll_reads": float((checked * changed_in).sum(axis=1).mean()),
    }
