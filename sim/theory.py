"""Closed-form expectations the simulation is checked against.

Saves on article i form (approximately; exactly with ``arrivals='poisson'``) a
Poisson process of rate λᵢ = n_saves · wᵢ / day_s, wᵢ its share of saves. A copy
read at time t is out of date at time t + L with probability 1 − exp(−λᵢ L): the
freshness of a Poisson-changing element (Cho & Garcia-Molina, "Synchronizing a
database to improve freshness", SIGMOD 2000; "Estimating frequency of change",
ACM TOIT 2003). Human saves stop at the end of the day, so windows are cut there.

Two effects of the model are included rather than left as bias:
- a question's target is cited first only while it is published; it is
  unpublished at rate u·λᵢ (u the unpublish share of saves), and then the first
  citation is another article, whose popularity is that of a random article
  (popularity rank is independent of topic);
- the second citation is such a random article too, and shares the first's read
  time, which correlates an answer's two citations.
Read times are uniform over the day; expectations over them are taken numerically.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

import numpy as np

from sim import exactmath
from sim.params import Params
from sim.popularity import zipf_weights

_GRID = 2001


def save_rates_per_s(params: Params) -> np.ndarray:
    """λ by question-popularity rank (rank 1 first): edits follow questions fully, or the
    even control."""
    n = params.n_articles
    if params.save_popularity == "even":
        w = np.full(n, 1.0 / n)
    elif params.edit_follows_questions == 1.0:
        w = zipf_weights(n, params.zipf_s)
    else:
        raise ValueError("closed form needs edit_follows_questions = 1 or the even control")
    return params.n_saves * w / params.day_s


def p_changed(rate_per_s: np.ndarray | float, window_s: np.ndarray | float) -> np.ndarray:
    """P(at least one save in a window), Poisson saves."""
    return 1.0 - np.exp(-np.asarray(rate_per_s) * np.asarray(window_s))


@functools.lru_cache(maxsize=16)
def _day_grid(params: Params) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What every window of a day shares: λ and question weight per article (columns), and
    P(the article is still published at t) on the grid; computed once per Params."""
    t = np.linspace(0.0, params.day_s, _GRID)
    lam = save_rates_per_s(params)[:, None]
    q = zipf_weights(params.n_articles, params.zipf_s)[:, None]
    return lam, q, np.exp(-params.save_mix[2] * lam * t[None, :])


def _cited_changed(params: Params, window_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per read time t on the grid: P(first citation changed in its window), P(second)."""
    lam, q, target_published = _day_grid(params)
    changed = p_changed(lam, window_s[None, :])  # article × t
    random_article = changed.mean(axis=0)
    first = (q * (target_published * changed + (1 - target_published) * random_article)).sum(0)
    return first, random_article


def _mean_over_day(values: np.ndarray) -> float:
    return float(np.trapezoid(values, dx=1.0 / (len(values) - 1)))


@exactmath.rounded
def p_human_save_before_edit(params: Params, delay_s: float) -> float:
    """P(a human saves or unpublishes the first cited article between the read, at a uniform
    time of day, and an edit delay_s later)."""
    t = np.linspace(0.0, params.day_s, _GRID)
    first, _ = _cited_changed(params, np.minimum(delay_s, params.day_s - t))
    return _mean_over_day(first)


@functools.lru_cache(maxsize=8)
def _gated_day_end(params: Params) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """What p_gated_write_meets shares across every delay and latency of one Params (the
    report asks four delays a Params): the target's weight while published (article × t),
    the chance it is gone (per t), and per kind of change P(no change of that kind to the
    first citation before the day's end) (per t)."""
    lam, q, target_published = _day_grid(params)
    t = np.linspace(0.0, params.day_s, _GRID)
    q_published = q * target_published  # article × t: the target, cited while published
    q_gone = 1.0 - q_published.sum(0)  # the target is gone: a random article instead
    left = params.day_s - t
    first_end = {}
    for kind, share in (("all", 1.0), ("published", params.save_mix[2])):
        by_end = np.exp(-share * lam * left[None, :])  # article × t: cut by the day's end
        first_end[kind] = (q_published * by_end).sum(0) + q_gone * by_end.mean(0)
    for array in (q_published, q_gone, *first_end.values()):
        array.setflags(write=False)
    return q_published, q_gone, first_end


@exactmath.rounded
def p_gated_write_meets(params: Params, delay_s: float, quantiles: int = 64) -> dict[str, float]:
    """What a write with the citation's version meets delay_s plus one approval latency
    A ~ lognormal(log median, sigma) after the read: 'human', a human saved and the article is
    still published (e^{−uλL} − e^{−λL} for a window L); 'gone', it was unpublished
    (1 − e^{−uλL}). Averaged over the read's uniform time of day and over equal-probability
    quantiles of A."""
    normal = NormalDist()
    lam, _, _ = _day_grid(params)
    q_published, q_gone, first_end = _gated_day_end(params)
    left = params.day_s - np.linspace(0.0, params.day_s, _GRID)
    windows = delay_s + np.array(
        [
            params.approval_median_s
            * math.exp(params.approval_sigma * normal.inv_cdf((i + 0.5) / quantiles))
            for i in range(quantiles)
        ]
    )
    cut = windows[None, :] < left[:, None]  # t × latency: the window ends before the day
    unchanged = {}  # P(no change of that kind to the first citation), t × latency
    for kind, share in (("all", 1.0), ("published", params.save_mix[2])):
        whole = np.exp(-share * lam * windows[None, :])  # article × latency
        first_whole = q_published.T @ whole + q_gone[:, None] * whole.mean(0)[None, :]
        unchanged[kind] = np.where(cut, first_whole, first_end[kind][:, None])
    over_day = np.trapezoid(
        np.stack([unchanged["published"] - unchanged["all"], 1.0 - unchanged["published"]]),
        dx=1.0 / (_GRID - 1),
        axis=1,
    )  # (human, gone) × latency: _mean_over_day along the day, for every latency
    human, gone = over_day.mean(axis=1)
    return {"human": float(human), "gone": float(gone)}


@exactmath.rounded
def stale_shares_at_day_end(params: Params) -> dict[str, float]:
    """Expected shares at day end: first and second citations stale or gone, all citations,
    and answers with at least one (two citations, sharing their read time)."""
    t = np.linspace(0.0, params.day_s, _GRID)
    first, second = _cited_changed(params, params.day_s - t)
    return {
        "first": _mean_over_day(first),
        "second": _mean_over_day(second),
        "citations": _mean_over_day((first + second) / 2),
        "answers": _mean_over_day(1 - (1 - first) * (1 - second)),
    }


@exactmath.rounded
def expected_check_calls(params: Params) -> list[dict[str, float]]:
    """Expected tool calls of the re-read and poll methods at each check.

    By check k, n questions have been answered (n grows uniformly over the day). A
    question's first citation is its target, so article j is a cited target with
    probability 1 − (1 − qⱼ)ⁿ. The second citation is the target's nearest neighbour in
    search, the same article each time the target is asked about; taking that map as a
    random function, j is nobody's cited neighbour with probability exp(−ρₙ), ρₙ the mean
    of 1 − (1 − qᵢ)ⁿ over articles. Re-reading reads every distinct cited article;
    polling pages the interval's events (one page per 100) and reads the cited articles
    that changed in the interval, changes being independent of citations. Characters follow
    from these counts and the sizes of a read result, an event and a page's envelope.
    """
    q = zipf_weights(params.n_articles, params.zipf_s)
    lam = save_rates_per_s(params)
    dt = params.check_interval_s
    events = params.n_saves * dt / params.day_s
    pages = max(1.0, float(np.ceil(events / 100)))
    uncited, changed = 1.0 - q, p_changed(lam, dt)  # the same at every check
    rows = []
    for k in range(1, params.n_checks + 1):
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


def _citation_mixture(params: Params) -> np.ndarray:
    """Each article's share of citations: the first citation follows the questions'
    popularity, the others are random articles (popularity rank is independent of topic)."""
    n, k = params.n_articles, params.citations_per_answer
    return (zipf_weights(n, params.zipf_s) + (k - 1) / n) / k


_BLOCK = 100
"""Grid points per block of the change-time density: exp(−λc) at a point is the block's
anchor exp(−λa) times exp(−λo) for its offset o, so the sum over articles is one matrix
product instead of an exponential per article and grid point."""


@functools.lru_cache(maxsize=16)
def _change_density(params: Params, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """Grid midpoints c over the day and the density of a citation's first change at c,
    Σᵢ mᵢ (1 − e^{−λᵢc}) / D (mᵢ article i's share of citations); shared by every
    interval (it does not depend on the checks)."""
    d = params.day_s
    step = d / grid
    blocks = -(-grid // _BLOCK)
    anchors = np.arange(blocks) * _BLOCK * step + step / 2
    offsets = np.arange(_BLOCK) * step
    lam = save_rates_per_s(params)[:, None]
    mix = _citation_mixture(params)
    kept = (np.exp(-lam * anchors[None, :]) * mix[:, None]).T @ np.exp(-lam * offsets[None, :])
    c = (np.arange(grid) + 0.5) * d / grid
    return c, (mix.sum() - kept.reshape(-1)[:grid]) / d


@exactmath.rounded
def unnoticed_time(params: Params, interval_s: float, grid: int = 20_000) -> dict[str, float]:
    """How long a citation stays stale before a periodic check at this interval notices.

    A citation read at a uniform time r of an article saved at Poisson rate λ first
    changes at c = r + Exp(λ); over reads, c has density (1 − e^{−λc}) / D on [0, D].
    A check every T seconds notices at the first check at or after c, T·⌈c/T⌉ (a change
    after the day's last check goes unnoticed until the day ends): the classic T/2 for a
    change uniform within an interval, less when late changes dominate. Returns the mean
    and 95th percentile over changed citations, and the share of all citation-hours held
    that were stale and unnoticed (expected unnoticed time over the mean holding time
    D/2; Cho & Garcia-Molina's age, as a share)."""
    d = params.day_s
    c, density = _change_density(params, grid)
    last = (d // interval_s) * interval_s
    noticed = np.ceil(c / interval_s) * interval_s
    wait = np.where(noticed <= last, noticed - c, d - c)
    mass = density * (d / grid)
    order = np.argsort(wait, kind="stable")
    cdf = np.cumsum(mass[order]) / mass.sum()
    return {
        "mean_s": float((mass * wait).sum() / mass.sum()),
        "p95_s": float(wait[order][np.searchsorted(cdf, 0.95)]),
        "stale_unknown_share": float((mass * wait).sum() / (d / 2)),
        "changed_share": float(mass.sum()),
    }


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
    n, d = params.n_articles, params.day_s
    q = zipf_weights(n, params.zipf_s)
    lam = np.broadcast_to(save_rates_per_s(params), (maps, n))
    u = params.save_mix[2]
    draws = np.random.default_rng(0)
    rate = np.tile(q, (maps, 1))
    for m in range(maps):
        for _slot in range(params.citations_per_answer - 1):
            neighbour = (np.arange(n) + draws.integers(1, n, n)) % n if n > 1 else np.zeros(1, int)
            rate[m] += np.bincount(neighbour, weights=q, minlength=n)
    r = params.n_questions * rate / d
    counts = np.empty((2, *r.shape))
    flat_r, flat_lam = r.reshape(-1), np.ascontiguousarray(lam).reshape(-1)
    flat = counts.reshape(2, -1)
    for lo in range(0, flat_r.size, _CHUNK):  # elementwise: chunks that stay in cache
        part = slice(lo, lo + _CHUNK)
        flat[:, part] = _day_counts(flat_r[part], flat_lam[part], u, d / steps, steps)
    return {
        "subscribes": float(counts[0].sum(axis=1).mean()),
        "notifications": float(counts[1].sum(axis=1).mean()),
    }


def first_change_density(params: Params, c: np.ndarray) -> np.ndarray:
    """Density over the day of c, the first change of a citation's article after its read
    (mass below 1: most citations never change), with the day-end form's unpublish
    substitution: a question's target is its first citation only while published, else the
    first citation is a random article. For an article saved at rate λ and unpublished at
    rate uλ, a read at uniform r gives the target part Σ qᵢ (e^{−uλᵢc} − e^{−λᵢc}) / ((1−u)D)
    in closed form; the substituted part is the convolution of the chance the target is gone
    by r with a random article's first-change density after r (numerical, on c's grid, which
    must be even from 0). Its integral to the day's end is stale_shares_at_day_end."""
    d, u, k = params.day_s, params.save_mix[2], params.citations_per_answer
    lam = save_rates_per_s(params)[:, None]
    q = zipf_weights(params.n_articles, params.zipf_s)[:, None]
    cc = c[None, :]
    if u < 1:
        target = (q * (np.exp(-u * lam * cc) - np.exp(-lam * cc))).sum(0) / ((1 - u) * d)
    else:
        target = np.zeros_like(c)
    random_article = (1.0 - np.exp(-lam * cc)).mean(0) / d
    step = c[1] - c[0]
    # r on the same grid: P(target gone by r) * a random article's density of a change at c-r
    gone = 1.0 - (q * np.exp(-u * lam * (c - step / 2)[None, :])).sum(0)
    after = (lam * np.exp(-lam * (c - step / 2)[None, :])).mean(0)
    n = 2 * len(c)
    convolved = np.fft.irfft(np.fft.rfft(gone, n) * np.fft.rfft(after, n), n)[: len(c)]
    substituted = convolved * step / d
    first = target + substituted
    return (first + (k - 1) * random_article) / k


@functools.lru_cache(maxsize=8)
def _change_mass(params: Params, grid: int) -> tuple[np.ndarray, np.ndarray]:
    """first_change_density's probability mass in each of `grid` equal cells of the day."""
    c = (np.arange(grid) + 0.5) * params.day_s / grid
    return c, first_change_density(params, c) * (params.day_s / grid)


@exactmath.rounded
def stale_unknown_share(params: Params, interval_s: float, grid: int = 20_000) -> dict[str, float]:
    """The share of citation-hours held stale and unnoticed under a check every interval_s,
    as in unnoticed_time but with first_change_density (the unpublish substitution), and
    the mean unnoticed time over changed citations under the same density."""
    d = params.day_s
    c, mass = _change_mass(params, grid)
    last = (d // interval_s) * interval_s
    noticed = np.ceil(c / interval_s) * interval_s
    wait = np.where(noticed <= last, noticed - c, d - c)
    return {
        "mean_s": float((mass * wait).sum() / mass.sum()),
        "stale_unknown_share": float((mass * wait).sum() / (d / 2)),
        "changed_share": float(mass.sum()),
    }


@functools.lru_cache(maxsize=8)
def _citation_rates(params: Params, maps: int) -> np.ndarray:
    """Citations per second of each article (columns) under `maps` random neighbour maps
    (rows): its question rate as a first citation, plus the summed question rates of the
    articles it is the nearest neighbour of, the same article each time (fixed draws);
    shared by every interval."""
    n = params.n_articles
    q = zipf_weights(n, params.zipf_s)
    draws = np.random.default_rng(0)
    rate = np.tile(q, (maps, 1))
    for m in range(maps):
        for _slot in range(params.citations_per_answer - 1):
            neighbour = (np.arange(n) + draws.integers(1, n, n)) % n if n > 1 else np.zeros(1, int)
            rate[m] += np.bincount(neighbour, weights=q, minlength=n)
    rate = params.n_questions * rate / params.day_s
    rate.flags.writeable = False
    return rate


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
    d, u = params.day_s, params.save_mix[2]
    checks = 0
    while (checks + 1) * interval_s <= d + 1e-9:
        checks += 1
    if checks == 0:
        return {"reread_reads": 0.0, "poll_reads": 0.0}
    lam = np.broadcast_to(save_rates_per_s(params), (maps, params.n_articles))
    r = _citation_rates(params, maps)
    cited_in, changed_in = 1 - np.exp(-r * interval_s), p_changed(lam, interval_s)
    cut = _euler_steps(d / steps, interval_s)
    held = np.empty((2, *r.shape))  # Σ over checks of P(unwatched), P(watched) before it
    flat_r, flat_lam = r.reshape(-1), np.ascontiguousarray(lam).reshape(-1)
    flat = held.reshape(2, -1)
    for lo in range(0, flat_r.size, _CHUNK):
        part = slice(lo, lo + _CHUNK)
        flat[:, part] = _held_at_checks(flat_r[part], flat_lam[part], u, cut, checks)
    checked = held[1] + held[0] * cited_in
    return {
        "reread_reads": float(checked.sum(axis=1).mean()),
        "poll_reads": float((checked * changed_in).sum(axis=1).mean()),
    }


def _euler_steps(h: float, interval_s: float) -> dict[float, int]:
    """The Euler steps from one check to the next, {length: how many}: steps of h, the last
    one cut at the check."""
    cut: dict[float, int] = {}
    t = 0.0
    while t < interval_s - 1e-9:
        step = min(h, interval_s - t)
        cut[step] = cut.get(step, 0) + 1
        t += step
    return cut


def _held_at_checks(
    r: np.ndarray, lam: np.ndarray, u: float, cut: dict[float, int], checks: int
) -> tuple[np.ndarray, np.ndarray]:
    """Σₖ₌₀ᴷ⁻¹ Mᵏ (1, 0) per chain, M = Πⱼ (I + sⱼB)^nⱼ over the cut steps {sⱼ: nⱼ} and
    B = [[−r − uλ, (1 − u)λ], [r, −λ]] (state: unwatched, watched)."""
    b = ((-r - u * lam, (1 - u) * lam), (r, -lam))
    eye: _Matrix = ((np.ones_like(r), np.zeros_like(r)), (np.zeros_like(r), np.ones_like(r)))
    m = eye
    for s, count in cut.items():
        m = _product(m, _power(_added(eye, _scaled(b, s)), count))
    (_, total) = _chain_power((m, eye), checks)
    return np.asarray(total[0][0]), np.asarray(total[1][0])


def _power(m: _Matrix, k: int) -> _Matrix:
    """mᵏ (k ≥ 1) by repeated squaring."""
    result = None
    left = k
    while left:
        if left & 1:
            result = m if result is None else _product(result, m)
        left >>= 1
        if left:
            m = _product(m, m)
    if result is None:
        raise ValueError(f"_power: expected k of 1 or more; received {k}")
    return result


_CHUNK = 4096
"""Chains per chunk of push_counts: its ~500 elementwise steps then run in cache."""


def _day_counts(
    r: np.ndarray, lam: np.ndarray, u: float, h: float, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Expected subscribes and notifications over `steps` RK4 steps of length h, per chain.

    The chain is linear with constant rates, so one RK4 step is a fixed matrix
    M = Σₖ₌₀⁴ (hA)ᵏ/k! and the day is M^steps, taken by repeated squaring. With state
    (unsubscribed, subscribed | subscribes, notifications), A = [[B, 0], [G, 0]], so
    M = [[P, 0], [Q, I]]: P = Σₖ (hB)ᵏ/k!, Q = G·Σₖ₌₁⁴ hᵏBᵏ⁻¹/k!, G = diag(r, λ)."""
    b = ((-r - u * lam, (1 - u) * lam), (r, -lam))
    eye: _Matrix = ((1.0, 0.0), (0.0, 1.0))
    power, p, series = eye, eye, _scaled(eye, 0.0)
    for k in range(1, 5):
        series = _added(series, _scaled(power, h**k / math.factorial(k)))  # Σ hᵏBᵏ⁻¹/k!
        power = _product(power, b)
        p = _added(p, _scaled(power, h**k / math.factorial(k)))
    q = ((r * series[0][0], r * series[0][1]), (lam * series[1][0], lam * series[1][1]))
    (_, q_day) = _chain_power((p, q), steps)
    return np.asarray(q_day[0][0]), np.asarray(q_day[1][0])


_Entry = np.ndarray | float
"""A matrix entry: one value per map and article, or a constant (the identity's)."""
_Matrix = tuple[tuple[_Entry, _Entry], tuple[_Entry, _Entry]]


def _product(x: _Matrix, y: _Matrix) -> _Matrix:
    """2 × 2 matrix product, each entry an array (one matrix per map and article)."""
    return (
        (x[0][0] * y[0][0] + x[0][1] * y[1][0], x[0][0] * y[0][1] + x[0][1] * y[1][1]),
        (x[1][0] * y[0][0] + x[1][1] * y[1][0], x[1][0] * y[0][1] + x[1][1] * y[1][1]),
    )


def _added(x: _Matrix, y: _Matrix) -> _Matrix:
    return ((x[0][0] + y[0][0], x[0][1] + y[0][1]), (x[1][0] + y[1][0], x[1][1] + y[1][1]))


def _scaled(x: _Matrix, s: float) -> _Matrix:
    return ((x[0][0] * s, x[0][1] * s), (x[1][0] * s, x[1][1] * s))


def _chain_power(m: tuple[_Matrix, _Matrix], k: int) -> tuple[_Matrix, _Matrix]:
    """[[P, 0], [Q, I]]^k by repeated squaring, as (P, Q): the product of two such matrices
    [[P₁, 0], [Q₁, I]]·[[P₂, 0], [Q₂, I]] is [[P₁P₂, 0], [Q₁P₂ + Q₂, I]]."""

    def times(x: tuple[_Matrix, _Matrix], y: tuple[_Matrix, _Matrix]) -> tuple[_Matrix, _Matrix]:
        return _product(x[0], y[0]), _added(_product(x[1], y[0]), y[1])

    result = None
    left = k
    while left:
        if left & 1:
            result = m if result is None else times(result, m)
        left >>= 1
        if left:
            m = times(m, m)
    if result is None:
        raise ValueError(f"_chain_power: expected k of 1 or more; received {k}")
    return result
