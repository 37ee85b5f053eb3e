"""An agent's habits estimated from what it did: `advise --db kb.sqlite --call-log calls.jsonl`.

The log `serve --call-log` writes holds every tool call with its client, time, tool, ids and
outcome (never free text). A client that searches is an agent; its calls are read as
answers: a run of searches (a re-query is one more search of the same answer) and the reads
that follow, up to its next search. An article read in an answer is one of its citations; a
read of an article cited before, followed at once (within REREAD_S, the client's next call) by
an edit of it, is a re-read before the edit, not a citation, unless it is an answer's first
read right after its search (that read cites). An edit within REPEAT_S of the client's previous
edit of the same article, with no new citation of it read in between, is its retry or replay;
the others are first tries, each belonging to
the latest answer that cited the article, its delay the seconds from that citation's read
(the log does not say which answer edits: where a later answer cited the article too before
the edit, the delay is read from the later one, so it is a lower bound).

Per-answer figures are ratios over the log's days (a day is the unit, as in the advice's
days), shares with the Wilson interval on the effective count, questions a day a mean over
the days with a call, the median delay with its order-statistic interval; each says its
count, and none gets an interval from fewer than two days. How long the agent holds a
citation the log cannot show: it records the calls, not when the agent's answers stop
relying on what it read, so the hold is --hold-hours's (the day's end by default), said so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim import stats
from sim.advise.agent import Agent
from sim.prog import PROG
from sim.server.calllog import ToolCall, read_jsonl
from sim.stats import Interval, median_interval

SEARCH, READ, EDIT = "search_knowledge_base", "read_knowledge_article", "edit_knowledge_article"
REREAD_S = 10.0
"""A read this close before an edit of the same article, the client's next call: a re-read."""
REPEAT_S = 120.0
"""An edit this close after the client's previous edit of the article: a retry or replay."""
DAY_US = 86_400 * 1_000_000
MAX_DELAYS = 13
"""Delays the day simulates at most: more observed ones are summed up by as many quantiles."""


@dataclass
class _Answer:
    day: int
    searches: int = 0
    reads: int = 0
    cited: set[str] | None = None
    edits: int = 0


@dataclass(frozen=True)
class Habits:
    """What the log shows of its agents, each figure with its 95 % interval."""

    source: str
    days: int
    answers: int
    questions_per_day: Interval
    searches_per_answer: Interval
    reads_per_answer: Interval
    citations_per_answer: Interval
    edit_share: Interval
    """Answers with an edit (first try), of all answers."""
    reread_share: Interval
    """First-try edits re-read at once before, of all first tries."""
    delays_s: tuple[float, ...]
    """First tries' seconds from the citation's read, in the log's order."""
    delay_median: Interval

    def agent(self, hold_s: float = math.inf) -> Agent:
        """The day's agent with these habits, holding citations hold_s (the log cannot
        show it)."""
        citations = self.citations_per_answer.mean
        cites = 2 if math.isnan(citations) else min(20, max(1, round(citations)))
        delays = self.delays_s
        if len(set(delays)) > MAX_DELAYS:
            q = (np.arange(MAX_DELAYS) + 0.5) / MAX_DELAYS
            delays = tuple(float(x) for x in np.quantile(delays, q))
        delays = tuple(float(round(d)) for d in delays)
        reread = not math.isnan(self.reread_share.mean) and self.reread_share.mean >= 0.5
        share = 1.0 if math.isnan(self.edit_share.mean) else self.edit_share.mean
        return Agent(
            cites,
            delays,
            reread,
            "any",
            f"the agent of the call log {self.source}",
            edit_share=share,
            hold_s=hold_s,
        )

    def lines(self) -> list[str]:
        def fig(r: Interval, fmt: str, scale: float = 1.0) -> str:
            from sim.advise.text import ci

            if math.isnan(r.mean):
                return "none in the log"
            if self.days < 2:  # said once, in the head line
                return f"{scale * r.mean:{fmt}}"
            return ci(scale * r.mean, scale * r.lo, scale * r.hi, fmt)

        def count(n: int, word: str) -> str:
            return f"{n:,} {word}" + ("" if n == 1 else "s")

        med = self.delay_median
        delays = (
            f"{count(len(self.delays_s), 'edit')}, median {fig(med, ',.0f')} s"
            if self.delays_s
            else "no edit of a cited article in the log"
        )
        over = (
            "95 % intervals over the days"
            if self.days >= 2
            else "one day: no interval, and its answers are taken as a day's questions "
            "(--questions-per-day to set them)"
        )
        return [
            f"From the call log {self.source} ({count(self.answers, 'answer')} on "
            f"{count(self.days, 'day')} with a call; {over}):",
            f"  questions a day: {fig(self.questions_per_day, ',.1f')}",
            f"  searches an answer: {fig(self.searches_per_answer, '.2f')}; reads an answer: "
            f"{fig(self.reads_per_answer, '.2f')}; citations an answer: "
            f"{fig(self.citations_per_answer, '.2f')}",
            f"  answers that edit: {fig(self.edit_share, '.1f', 100)} %; edits re-read at once "
            f"before: {fig(self.reread_share, '.1f', 100)} %",
            f"  delay from the citation's read to the edit: {delays}",
            "  how long a citation is held: the log cannot show it (it records calls, not "
            "when the agent stops relying on what it read); --hold-hours's value is used",
        ]

    def as_json(self) -> dict[str, Any]:
        def j(r: Interval) -> dict[str, Any]:
            def f(x: float) -> float | None:
                return None if math.isnan(x) else x

            return {"mean": f(r.mean), "lo": f(r.lo), "hi": f(r.hi)}

        return {
            "source": self.source,
            "days": self.days,
            "answers": self.answers,
            "questions_per_day": j(self.questions_per_day),
            "searches_per_answer": j(self.searches_per_answer),
            "reads_per_answer": j(self.reads_per_answer),
            "citations_per_answer": j(self.citations_per_answer),
            "edit_share": j(self.edit_share),
            "reread_share": j(self.reread_share),
            "delays_s": list(self.delays_s),
            "delay_median_s": j(self.delay_median),
            "hold": "the log cannot show it; --hold-hours's value is used",
        }


def habits(path: Path) -> Habits:
    """The habits of the log's agents; ValueError naming the file when it holds none."""
    from sim.server.calllog import BadLogLine

    try:
        calls = read_jsonl(path)
    except OSError as e:
        raise ValueError(f"--call-log {path}: cannot read it ({e.strerror})") from None
    except BadLogLine as e:
        raise ValueError(f"--call-log {path}: not a call log of this project: {e}") from None
    by_client: dict[str, list[ToolCall]] = {}
    for c in calls:
        by_client.setdefault(c.client_id, []).append(c)
    answers: list[_Answer] = []
    delays: list[float] = []
    edits: list[tuple[int, bool]] = []  # (day, re-read before)
    for own in by_client.values():
        if any(c.tool == SEARCH for c in own):
            _read_client(sorted(own, key=lambda c: c.t_us), answers, delays, edits)
    if not answers:
        raise ValueError(
            f"--call-log {path}: no agent in it (no client searched); write one with "
            f"{PROG} serve --call-log FILE while an agent uses the KB"
        )
    day_ids = sorted({a.day for a in answers} | {d for d, _ in edits})
    index = {d: i for i, d in enumerate(day_ids)}
    n = np.zeros((6, len(day_ids)))  # answers, searches, reads, citations, editing, edits
    rereads = np.zeros(len(day_ids))
    for a in answers:
        i = index[a.day]
        n[:, i] += (1, a.searches, a.reads, len(a.cited or ()), a.edits > 0, 0)
    for day, reread in edits:
        n[5, index[day]] += 1
        rereads[index[day]] += reread
    return Habits(
        source=path.name,
        days=len(day_ids),
        answers=len(answers),
        questions_per_day=stats.mean_interval(n[0]),
        searches_per_answer=stats.ratio_interval(n[1], n[0]),
        reads_per_answer=stats.ratio_interval(n[2], n[0]),
        citations_per_answer=stats.ratio_interval(n[3], n[0]),
        edit_share=stats.share_interval(n[4], n[0]),
        reread_share=stats.share_interval(rereads, n[5]),
        delays_s=tuple(delays),
        delay_median=median_interval(np.array(delays)),
    )


def _read_then_edit(read: ToolCall, edit: ToolCall, cited_at: dict[str, Any]) -> bool:
    """A read of an article cited before, followed at once (within REREAD_S) by an edit of
    it: the shape of a re-read before the edit."""
    return (
        read.tool == READ
        and edit.tool == EDIT
        and read.article_id == edit.article_id
        and edit.t_us - read.t_us <= REREAD_S * 1e6
        and read.article_id in cited_at
    )


def _read_client(
    own: list[ToolCall],
    answers: list[_Answer],
    delays: list[float],
    edits: list[tuple[int, bool]],
) -> None:
    """One agent's calls, in time order, as answers, first-try delays and edits."""
    current: _Answer | None = None
    cited_at: dict[str, tuple[int, _Answer]] = {}  # article -> its latest citation's read
    last_edit: dict[str, int] = {}
    for i, c in enumerate(own):
        nxt = own[i + 1] if i + 1 < len(own) else None
        if c.tool == SEARCH:
            if current is None or current.reads:
                current = _Answer(c.t_us // DAY_US, cited=set())
                answers.append(current)
            current.searches += 1
        elif c.tool == READ and c.outcome == "ok":
            opens_answer = current is not None and not current.reads and own[i - 1].tool == SEARCH
            before_edit = (
                nxt is not None
                and _read_then_edit(c, nxt, cited_at)
                and not opens_answer  # an answer's first read, right after its search, cites
            )
            if before_edit or current is None:
                continue
            current.reads += 1
            if current.cited is not None and c.article_id not in current.cited:
                current.cited.add(c.article_id)
                cited_at[c.article_id] = (c.t_us, current)
        elif c.tool == EDIT:
            previous = last_edit.get(c.article_id)
            last_edit[c.article_id] = c.t_us
            cited_since = c.article_id in cited_at and (
                previous is None or cited_at[c.article_id][0] > previous
            )
            if previous is not None and c.t_us - previous <= REPEAT_S * 1e6 and not cited_since:
                continue  # a retry or replay of the edit before (no new citation since)
            prev = own[i - 1] if i else None
            reread = (
                prev is not None
                and _read_then_edit(prev, c, cited_at)
                and prev.t_us != cited_at[c.article_id][0]
            )
            edits.append((c.t_us // DAY_US, reread))
            if c.article_id in cited_at:
                read_us, answer = cited_at[c.article_id]
                answer.edits += 1
                delays.append((c.t_us - read_us) / 1e6)
