"""The hourly checker: the registry's hourly methods (``methods.HOURLY``) find out which
held citations went stale.

Each method is its own client session, so its cost is read off the call log.
Checks take no simulated time: each is a snapshot that the ground-truth oracle
judges at the same instant, and an id-based method that disagrees with it stops
the run, because that is a bug, not a result.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from sim.model.agent import HeldCitation, Proc
from sim.model.methods import HOURLY
from sim.model.oracle import GroundTruthOracle
from sim.model.records import CheckRecord
from sim.params import Params
from sim.server.calllog import CallLog, ToolCall
from sim.server.tools import ToolCaller


class GroundTruthMismatch(AssertionError):
    """An id-based check disagreed with the oracle."""


class Checker:
    def __init__(
        self,
        env: simpy.Environment,
        connect: Callable[[str], ToolCaller],
        log: CallLog,
        kb_id: str,
        citations: list[HeldCitation],
        oracle: GroundTruthOracle,
        params: Params,
        seed: int,
        out: list[CheckRecord],
    ) -> None:
        self.env = env
        self.log = log
        self.kb_id = kb_id
        self.citations = citations
        self.oracle = oracle
        self.params = params
        self.seed = seed
        self.out = out
        self.checks = {
            m.name: m.make(connect(f"checker-{m.name}"), kb_id, params.title_check_limit)
            for m in HOURLY
        }
        self.detected: dict[str, dict[int, float]] = {m.name: {} for m in HOURLY}
        """Method -> citation index -> the first check that flagged it."""

    def run(self) -> Proc:
        for k in range(1, self.params.n_checks + 1):
            yield self.env.timeout(max(0.0, k * self.params.check_interval_s - self.env.now))
            self.check(k)

    def check(self, k: int) -> None:
        at = held_now(self.citations, self.env.now, self.params.citation_hold_s)
        held = [self.citations[i] for i in at]
        truth = self.oracle.statuses([(c.article_id, c.version, c.title) for c in held])
        status = [s for s, _ in truth]
        self._record(k, "truth", held, truth, status, [])
        for m in HOURLY:
            start = len(self.log)
            found = self.checks[m.name].status(held)
            if m.exact and found != status:
                wrong = [i for i, (a, b) in enumerate(zip(found, status, strict=True)) if a != b]
                raise GroundTruthMismatch(
                    f"seed {self.seed}, check {k}: {m.name} disagrees with ground truth on "
                    f"citations {wrong[:10]}"
                )
            self._record(k, m.name, held, truth, found, self.log.records[start:])
            flag_new(self.detected[m.name], found, self.env.now, status, at)

    def _record(
        self,
        k: int,
        method: str,
        held: list[HeldCitation],
        truth: list[tuple[str, str]],
        found: list[str],
        calls: list[ToolCall],
    ) -> None:
        flagged = [f != "fresh" for f in found]
        changed = [s != "fresh" for s, _ in truth]
        kinds = [kind for _, kind in truth]
        self.out.append(
            CheckRecord(
                seed=self.seed,
                save_popularity=self.params.save_popularity,
                check=k,
                t_s=self.env.now,
                method=method,
                citations=len(held),
                flagged=sum(flagged),
                flagged_gone=sum(f == "gone" for f in found),
                caught=sum(f and c for f, c in zip(flagged, changed, strict=True)),
                missed=sum(c and not f for f, c in zip(flagged, changed, strict=True)),
                false_alarms=sum(f and not c for f, c in zip(flagged, changed, strict=True)),
                caught_body=sum(f and kd == "body" for f, kd in zip(flagged, kinds, strict=True)),
                caught_title=sum(f and kd == "title" for f, kd in zip(flagged, kinds, strict=True)),
                caught_gone=sum(f and kd == "gone" for f, kd in zip(flagged, kinds, strict=True)),
                truth_body=kinds.count("body"),
                truth_title=kinds.count("title"),
                truth_gone=kinds.count("gone"),
                **call_costs(calls),
            )
        )


def call_costs(calls: list[ToolCall]) -> dict[str, int]:
    """What one check cost, from its slice of the call log."""
    return {
        "calls": len(calls),
        "poll_calls": sum(c.tool == "poll_resource_events" for c in calls),
        "articles_reread": sum(c.tool == "read_knowledge_article" for c in calls),
        "result_chars": sum(c.result_chars for c in calls),
    }


def held_now(citations: list[HeldCitation], now_s: float, hold_s: float) -> list[int]:
    """The indices of the citations still held: read less than hold_s ago (the agent lets
    a citation go at its read plus the hold; every one is held with the default inf)."""
    return [i for i, c in enumerate(citations) if now_s - c.read_s < hold_s]


def flag_new(
    detected: dict[int, float],
    found: list[str],
    now_s: float,
    truth: list[str] | None = None,
    at: list[int] | None = None,
) -> None:
    """Note the first time each citation (by its index in the agent's list: `at` maps a
    position in `found` to it, the identity if None) is flagged; with the truth at hand, a
    false alarm (flagged while fresh) is no detection."""
    for j, status in enumerate(found):
        i = j if at is None else at[j]
        if status != "fresh" and i not in detected and (truth is None or truth[j] != "fresh"):
            detected[i] = now_s
