"""The advice checked on its future: made from an edit history up to a year before its end,
then held to the last year's real saves.

The advice is the closed forms' pick (``sim.advise.closed``: Poisson saves at the volume of
the shape fitted to the history before the cut, in its busiest weekday window, the 10 %
margin), the decider that needs no simulated days. The replay takes that window in every
week of the held-out year and computes, exactly, what the pick does against the real saves
in it: a citation of article i is read at a uniform time of the window (i by the questions'
Zipf popularity over the log's articles, ranked by their body edits before the cut, as the
advice's 'same' relation ranks them); its first change after the read is the article's next real
save (a body edit, title change or unpublish; a new article's add changes nothing cited),
and a check every T from the window's start notices it at the next check, T·⌈s/T⌉ (after
the last check: at the window's end). Over reads, article by article, a save s_j is the
first change for reads in (s_{j−1}, s_j], so the mean is a sum, not a sample. Its 95 %
interval is over the weeks (delta method). Calls a day: a poll's pages from the real events
(⌈events since the last check / 100⌉, one at least) and its reads of changed cited articles
(held if cited before the change, citations at the questions' rate); a re-read's calls do
not depend on the saves (the closed form's); push's notifications are those reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sim import exactmath, stats
from sim.advise import Costs, Sizes
from sim.calibrate.logs import CHANGES, EditLog, week_offset
from sim.calibrate.shape import EditShape
from sim.params import Params
from sim.popularity import zipf_weights

YEAR_S = 365 * 86400.0
WEEK_S = 7 * 86400.0
MIN_TRAIN_S = 90 * 86400.0
"""History the advice needs before the held-out year (a quarter: the fit needs its weeks)."""
PAGE_EVENTS = 100
"""Events a poll call returns (the server's page)."""


class NoBacktest(ValueError):
    """The history allows no backtest (too short to hold a year out, or to fit before it);
    the message says why, as a clause."""


@dataclass(frozen=True)
class Backtest:
    """One site's backtest: the pick made before the cut and its replay after it."""

    site: str
    pick: str
    target_min: float
    predicted_min: float
    unnoticed: stats.Interval
    """Minutes a change to a cited article went unnoticed in the held-out year (NaN: none)."""
    calls_predicted: float
    calls_replayed: float
    days: int
    changed: int
    """Windows of the held-out year with a change to an article (of any popularity)."""

    @property
    def met(self) -> bool | None:
        """The replayed mean at most the target; None where nothing changed to replay."""
        if math.isnan(self.unnoticed.mean):
            return None
        return bool(self.unnoticed.mean <= self.target_min)

    def line(self) -> str:
        """What `advise` prints."""
        head = (
            f"Backtest: advised from the history up to a year before its end (the closed "
            f"forms), {self.pick}; replayed on the held-out year's real saves ({self.days} "
            f"weekly windows, {self.changed} with a change): "
        )
        u = self.unnoticed
        if self.met is None:
            return head + "no change to replay, so nothing to check."
        said = f"{u.mean:.1f} min" + (
            "" if math.isnan(u.lo) else f" ({max(0.0, u.lo):.1f}–{u.hi:.1f})"
        )
        verdict = "met" if self.met else "missed"
        return head + (
            f"a change unnoticed {said} on average against {self.target_min:g} min, "
            f"{verdict} (predicted {self.predicted_min:.1f}); {self.calls_replayed:,.1f} calls "
            f"a day replayed, {self.calls_predicted:,.1f} predicted."
        )

    def row(self) -> dict[str, object]:
        u = self.unnoticed
        return {
            "site": self.site,
            "pick": self.pick,
            "target_min": self.target_min,
            "predicted_min": round(self.predicted_min, 3),
            "unnoticed_min": round(u.mean, 3),
            "unnoticed_lo": round(u.lo, 3),
            "unnoticed_hi": round(u.hi, 3),
            "met": self.met,
            "calls_predicted": round(self.calls_predicted, 3),
            "calls_replayed": round(self.calls_replayed, 3),
            "windows": self.days,
            "windows_changed": self.changed,
        }


def split(log: EditLog) -> tuple[EditLog, EditLog, float]:
    """The history before the held-out last year, the year, and the cut (Unix seconds);
    NoBacktest where the log is too short for both."""
    first, last = float(log.epoch_s[0]), float(log.epoch_s[-1])
    cut = last - YEAR_S
    if cut - first < MIN_TRAIN_S:
        raise NoBacktest(
            f"the log spans {(last - first) / 86400:.0f} days; a backtest needs a year to hold "
            f"out and {MIN_TRAIN_S / 86400:.0f} days before it"
        )
    train = log.window(-math.inf, cut)
    return train, log.window(cut, math.inf), cut


def backtest(
    log: EditLog,
    params: Params,
    costs: Costs,
    target_min: float,
    sizes: Sizes | None = None,
    site: str = "",
    shape_of: Callable[[EditLog], EditShape] | None = None,
) -> Backtest:
    """The closed forms' pick from the history before the held-out year, replayed on it
    (``params``: the day's questions, citations and length; its articles are the log's;
    ``shape_of``: the history's fit, default ``fit_shape``, or a cache of it)."""
    from sim.advise import closed
    from sim.advise.calibrated import log_volume
    from sim.advise.text import what
    from sim.calibrate.fit import fit_shape
    from sim.model.calibrated import day_window

    train, _, cut = split(log)
    try:
        shape = (shape_of or fit_shape)(train)
    except ValueError as e:
        raise NoBacktest(f"the history before the held-out year cannot be fitted ({e})") from e
    if not params.corpus_db:  # the synthetic corpus: as many articles as the log's
        params = replace(params, n_articles=log.n_articles)
    process = replace(params, n_saves=log_volume(params, shape), arrivals="poisson")
    cf = closed.closed_forms(process, costs, target_min, sizes)
    if cf.choice is None:
        raise NoBacktest(f"the closed forms meet no target of {target_min:g} min")
    pick = cf.choice
    start = day_window(replace(params, save_process="calibrated", edit_shape=shape))
    interval_s = 0.0 if pick["method"] == "push" else float(pick["interval_min"]) * 60
    replayed = replay(log, cut, start, params, interval_s)
    calls = (
        float(pick["calls"])
        if pick["method"] == "reread"
        else replayed.poll_calls
        if pick["method"] == "poll"
        else float(pick["calls"]) - 2 * float(pick["notifications"]) + 2 * replayed.reads
    )
    return Backtest(
        site or log.source,
        what(pick),
        target_min,
        float(pick["mean_unnoticed_min"]),
        replayed.unnoticed,
        float(pick["calls"]),
        calls,
        replayed.days,
        replayed.changed,
    )


@dataclass(frozen=True)
class Replay:
    """A pick's figures on the held-out year's real saves."""

    unnoticed: stats.Interval
    """Minutes a change to a cited article went unnoticed, over the weekly windows."""
    days: int
    changed: int
    poll_calls: float
    """A poll's calls a window: its pages and its reads of changed cited articles."""
    reads: float
    """Re-reads of changed cited articles a window (push's notifications)."""


def replay(log: EditLog, cut: float, start_s: float, params: Params, interval_s: float) -> Replay:
    """The pick's figures on the real saves after ``cut``, window by weekly window
    (``start_s`` from Monday 00:00 UTC, ``params.day_s`` long); ``interval_s`` 0 is push."""
    d = params.day_s
    before = log.epoch_s < cut
    body = np.bincount(log.article[before & (log.kind == 0)], minlength=log.n_articles)
    order = np.argsort(-body, kind="stable")  # ties: first appearance
    q = np.empty(log.n_articles)
    q[order] = zipf_weights(log.n_articles, params.zipf_s)
    k, n = params.citations_per_answer, log.n_articles
    per_citation = (q + (k - 1) / n) / k  # first citation by popularity, the rest at random
    cite_rate = params.n_questions * k * per_citation / d  # citations of each article a second
    monday = cut - week_offset(cut)
    first = monday + start_s + (WEEK_S if monday + start_s < cut else 0.0)
    last = float(log.epoch_s[-1])
    starts = np.arange(first, last - d + 1e-9, WEEK_S) if last - d >= first else np.empty(0)
    change = log.kind != CHANGES["add"]
    num, den, calls, reads, changed = [], [], [], [], 0
    for w in starts:
        lo, hi = np.searchsorted(log.epoch_s, [w, w + d], side="left")
        s = log.epoch_s[lo:hi] - w
        a, c = log.article[lo:hi], change[lo:hi]
        changed += bool(c.any())
        x = y = r = 0.0
        for art in np.unique(a[c]):
            t = np.unique(s[c & (a == art)])
            span = np.diff(t, prepend=0.0)  # reads for which each save is the first change
            wait = _wait(t, interval_s, d)
            x += q[art] * float((span * wait).sum())
            y += q[art] * float(span.sum())
            r += _held_reads(t, interval_s, d, float(cite_rate[art]))
        num.append(x / 60)
        den.append(y)
        reads.append(r)
        calls.append(_pages(s, interval_s, d) + r if interval_s else 0.0)
    return Replay(
        stats.ratio_interval(np.array(num), np.array(den)),
        len(starts),
        changed,
        float(np.mean(calls)) if calls else math.nan,
        float(np.mean(reads)) if reads else math.nan,
    )


def _wait(t: np.ndarray, interval_s: float, d: float) -> np.ndarray:
    """Seconds from each change to the check that notices it (push: none)."""
    if not interval_s:
        return np.zeros_like(t)
    noticed = np.ceil(t / interval_s) * interval_s
    return np.where(noticed <= (d // interval_s) * interval_s, noticed, d) - t


def _held_reads(t: np.ndarray, interval_s: float, d: float, rate: float) -> float:
    """Expected re-reads of one article whose changes are at ``t``: one per check interval
    (push: per change) it changed in, if a citation of it was held by its first change there."""
    if interval_s:
        slot = np.minimum(np.ceil(t / interval_s), math.ceil(d / interval_s))
        _, first = np.unique(slot, return_index=True)
        t = t[first]
    return float((-exactmath.expm1(-rate * t)).sum())


def _pages(s: np.ndarray, interval_s: float, d: float) -> float:
    """A poll's page calls in the window: ⌈events since the last check / 100⌉ a check, one
    at least (every row is an event, adds too)."""
    checks = int((d + 1e-9) // interval_s)
    slot = np.maximum(1, np.ceil(s / interval_s)).astype(np.int64)
    events = np.bincount(slot[slot <= checks], minlength=checks + 1)[1:]
    return float(np.maximum(1, np.ceil(events / PAGE_EVENTS)).sum())


def table(
    logs: dict[str, EditLog],
    params: Params,
    costs: Costs,
    target_min: float,
    shape_of: Callable[[EditLog], EditShape] | None = None,
) -> tuple[list[dict[str, object]], str]:
    """Each site's backtest row (a log too short for one: its reason in ``why_not``), the
    sizes measured once on the study's corpus at the write-up's article count, and the share
    of the sites with a change to replay where the advice met its target (``shape_of``: as
    ``backtest``'s)."""
    from sim.advise import measured_sizes

    sizes = measured_sizes(params)
    rows: list[dict[str, object]] = []
    for site, log in logs.items():
        try:
            rows.append(backtest(log, params, costs, target_min, sizes, site, shape_of).row())
        except NoBacktest as e:
            rows.append({"site": site, "why_not": str(e)})
    judged = [r["met"] is True for r in rows if r.get("met") is not None]
    share = (
        f"the advice met its target on the held-out year at {sum(judged)} of {len(judged)} "
        f"sites with a change to replay ({len(rows)} sites)"
    )
    return rows, share
