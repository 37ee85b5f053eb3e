"""Re-read and poll at many check intervals on one simulated day.

Every interval's checks see the same day: checks take no simulated time and only
read, so running them side by side changes nothing the humans or the agent do. The
two stateless methods (re-read every cited article; poll from the oldest citation)
give the same calls and results at an instant whatever the interval, so each runs once
per instant and its calls are charged to every interval with a check then. The poll
that keeps its cursor between checks depends on its own last check, so each interval
has its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import simpy

from sim.model.agent import HeldCitation, Proc
from sim.model.checker import Poller, call_costs, flag_new, reread
from sim.model.records import CadenceRecord
from sim.server.calllog import CallLog, ToolCall
from sim.server.tools import ToolCaller

STATELESS = ("reread", "poll_from_oldest")
METHODS = (*STATELESS, "poll")


@dataclass
class Cost:
    checks: int = 0
    calls: int = 0
    poll_calls: int = 0
    articles_reread: int = 0
    result_chars: int = 0

    def add(self, calls: list[ToolCall]) -> None:
        self.checks += 1
        for name, value in call_costs(calls).items():
            setattr(self, name, getattr(self, name) + value)


def check_instants(intervals_s: tuple[float, ...], day_s: float) -> dict[float, list[float]]:
    """Instant -> the intervals with a check then (k·T for k = 1 .. day_s // T), in order."""
    due: dict[float, list[float]] = {}
    for interval in sorted(set(intervals_s)):
        for k in range(1, int(day_s // interval) + 1):
            due.setdefault(round(k * interval, 6), []).append(interval)
    return dict(sorted(due.items()))


class CadenceChecker:
    def __init__(
        self,
        env: simpy.Environment,
        connect: Callable[[str], ToolCaller],
        log: CallLog,
        kb_id: str,
        citations: list[HeldCitation],
        intervals_s: tuple[float, ...],
        day_s: float,
    ) -> None:
        self.env = env
        self.log = log
        self.kb_id = kb_id
        self.citations = citations
        self.due = check_instants(intervals_s, day_s)
        self.intervals = sorted(set(intervals_s))
        self.reread_session = connect("cadence-reread")
        self.oldest = Poller(connect("cadence-poll_from_oldest"), kb_id, keep_cursor=False)
        self.pollers = {t: Poller(connect(f"cadence-poll-{t:g}s"), kb_id) for t in self.intervals}
        self.costs = {(m, t): Cost() for m in METHODS for t in self.intervals}
        self.detected: dict[tuple[str, float], dict[int, float]] = {k: {} for k in self.costs}

    def run(self) -> Proc:
        for instant, intervals in self.due.items():
            yield self.env.timeout(instant - self.env.now)
            self.check(intervals)

    def _round(self, method: str, intervals: list[float], find: Callable[[], list[str]]) -> None:
        start = len(self.log)
        found = find()
        calls = self.log.records[start:]
        for t in intervals:
            self.costs[(method, t)].add(calls)
            flag_new(self.detected[(method, t)], found, self.env.now)

    def check(self, intervals: list[float]) -> None:
        held = list(self.citations)
        self._round("reread", intervals, lambda: reread(self.reread_session, self.kb_id, held))
        self._round("poll_from_oldest", intervals, lambda: self.oldest.status(held))
        for t in intervals:
            self._round("poll", [t], lambda t=t: self.pollers[t].status(held))

    def records(self, seed: int, save_popularity: str) -> list[CadenceRecord]:
        return [
            CadenceRecord(seed, save_popularity, m, t, **vars(c))
            for (m, t), c in self.costs.items()
        ]
