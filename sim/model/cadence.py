"""The registry's swept methods (``methods.SWEPT``) at many check intervals on one day.

Every interval's checks see the same day: checks take no simulated time and only
read, so running them side by side changes nothing the humans or the agent do. A
stateless method (re-read every cited article; poll from the oldest citation) gives the
same calls and results at an instant whatever the interval, so it runs once per instant
and its calls are charged to every interval with a check then. The poll that keeps its
cursor between checks depends on its own last check, so each interval has its own.

With the stopping rule (``Params.stop_checking_known_stale``, on by default) every method
does what push does when it unsubscribes: once all of an article's held citations are
known stale, it stops checking that article (until a new citation of it is held). What
each method knows then depends on its own interval, so every method and interval checks
on its own; what each finds, and when, is the same as without the rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import simpy

from sim.model.agent import HeldCitation, Proc
from sim.model.checker import call_costs, flag_new, held_now
from sim.model.methods import BY_NAME, SWEPT, Check
from sim.model.records import CadenceRecord
from sim.server.calllog import CallLog, ToolCall
from sim.server.tools import ToolCaller

METHODS = tuple(m.name for m in SWEPT)


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
        stop_known_stale: bool = False,
        methods: tuple[str, ...] = METHODS,
        hold_s: float = math.inf,
    ) -> None:
        self.env = env
        self.log = log
        self.kb_id = kb_id
        self.citations = citations
        self.due = check_instants(intervals_s, day_s)
        self.intervals = sorted(set(intervals_s))
        self.checks: dict[tuple[str, float | None], Check] = {}
        """(method, interval) -> its check; (method, None) for a stateless one, shared."""
        for m in SWEPT:
            for t in [None] if m.stateless else self.intervals:
                name = f"cadence-{m.name}" if t is None else f"cadence-{m.name}-{t:g}s"
                self.checks[(m.name, t)] = m.make(connect(name), kb_id, 0)
        self.methods = tuple(m for m in METHODS if m in methods)
        self.costs = {(m, t): Cost() for m in self.methods for t in self.intervals}
        self.detected: dict[tuple[str, float], dict[int, float]] = {k: {} for k in self.costs}
        self.stop_known_stale = stop_known_stale
        self.hold_s = hold_s

    def run(self) -> Proc:
        for instant, intervals in self.due.items():
            yield self.env.timeout(max(0.0, instant - self.env.now))
            self.check(intervals)

    def _round(
        self,
        method: str,
        intervals: list[float],
        find: Callable[[], list[str]],
        at: list[int] | None = None,
    ) -> None:
        start = len(self.log)
        found = find()
        calls = self.log.records[start:]
        for t in intervals:
            self.costs[(method, t)].add(calls)
            flag_new(self.detected[(method, t)], found, self.env.now, at=at)

    def check(self, intervals: list[float]) -> None:
        if self.stop_known_stale:
            held = list(self.citations)
            for t in intervals:
                for method in self.methods:
                    self._round(method, [t], partial(self._unsure, method, t, held))
            return
        at = held_now(self.citations, self.env.now, self.hold_s)
        held = [self.citations[i] for i in at]
        for method in self.methods:
            if BY_NAME[method].stateless:
                self._round(
                    method, intervals, partial(self.checks[(method, None)].status, held), at
                )
            else:
                for t in intervals:
                    self._round(method, [t], partial(self.checks[(method, t)].status, held), at)

    def _unsure(self, method: str, interval: float, held: list[HeldCitation]) -> list[str]:
        """One check under the stopping rule: only citations not yet known stale are
        checked, and only while held; the others read as 'fresh' here (flag_new keeps their
        first detection)."""
        known = self.detected[(method, interval)]
        now = self.env.now
        unsure = [
            i for i in range(len(held)) if i not in known and now - held[i].read_s < self.hold_s
        ]
        check = self.checks[(method, None if BY_NAME[method].stateless else interval)]
        return check.unsure(held, unsure)

    def records(self, seed: int, save_popularity: str) -> list[CadenceRecord]:
        return [
            CadenceRecord(seed, save_popularity, m, t, **vars(c))
            for (m, t), c in self.costs.items()
        ]
