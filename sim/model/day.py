"""One simulated working day: wires the processes and returns its records.

Params -> corpus and random streams -> SimPy day (humans, customers, agent,
checker, delayed editor) -> KB tools -> call log and records. No printing, no
files: reporting turns the records into files. Some 330 lines: ``Day`` is one SimPy
environment's processes and the records they leave, which share its state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import simpy

from sim import rng
from sim.kb.store import KBStore
from sim.model.agent import HeldCitation, Proc, ScriptedAgent
from sim.model.cadence import METHODS as SWEEP_METHODS
from sim.model.cadence import CadenceChecker
from sim.model.checker import Checker
from sim.model.humans import human_editors
from sim.model.opening import DAY_START_US, KB_ID, Opening, open_kb
from sim.model.oracle import GroundTruthOracle
from sim.model.push import PushWatcher
from sim.model.records import (
    CadenceRecord,
    CheckRecord,
    CitationRecord,
    DayRecord,
    DetectionRecord,
    EditRecord,
    SaveRecord,
)
from sim.model.reviewer import Reviewer
from sim.model.schedule import DaySchedule, draw_schedule
from sim.params import Params
from sim.server.calllog import ToolCall
from sim.server.tools import KBServer, Session

if TYPE_CHECKING:
    import numpy as np

    from sim.server.mcp_server import McpSession


@dataclass
class DayResult:
    params: Params
    seed: int
    day: DayRecord | None = None
    citations: list[CitationRecord] = field(default_factory=list)
    checks: list[CheckRecord] = field(default_factory=list)
    edits: list[EditRecord] = field(default_factory=list)
    saves: list[SaveRecord] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    detections: list[DetectionRecord] = field(default_factory=list)
    cadence: list[CadenceRecord] = field(default_factory=list)


class Day:
    """One day's wiring. The store and server classes are attributes so that a benchmark
    can substitute recording subclasses without touching the model."""

    store_class: type[KBStore] = KBStore
    server_class: type[KBServer] = KBServer
    sweep_methods: tuple[str, ...] = SWEEP_METHODS
    """The interval sweep's methods: a caller reading only some runs a subclass with those
    (a re-read of every held article at every check is most of a sparse day's calls)."""

    def schedule_streams(self, seed: int) -> dict[str, np.random.Generator]:
        """The streams the day's questions and saves are drawn from: the seed's own (a
        subclass may draw them otherwise: ``sim.model.antithetic``)."""
        return rng.streams(seed)

    def __init__(self, params: Params, seed: int, opening: Opening | None = None) -> None:
        self.params = params
        self.seed = seed
        self.result = DayResult(params, seed)
        self.schedule: DaySchedule = draw_schedule(params, self.schedule_streams(seed), seed)
        self.env = simpy.Environment()
        clock = self.clock
        if opening is None and params.corpus_db:
            opening = Opening.build(
                seed, params.n_articles, params.corpus_db, params.corpus_queries
            )
        if opening is None:
            self.store = self.store_class(clock)
            self.specs = open_kb(self.store, seed, params.n_articles)
        else:
            opening.check(seed, params.n_articles)
            self.store = self.store_class.copy_of(opening.store, clock)
            self.specs = opening.specs
        self.server = self.server_class(
            self.store, clock, write_gate=params.write_gate, approval_ttl_s=params.approval_ttl_s
        )
        self.oracle = GroundTruthOracle(self.store, KB_ID)
        self.bridge = None
        if params.transport == "mcp":
            from sim.server.mcp_server import McpBridge

            self.bridge = McpBridge()
        self.agent = ScriptedAgent(self.env, self.connect("agent"), KB_ID, params.tool_latency_s)
        self.reviewer = None
        if params.write_gate:  # the host app's approval dialog, for the agent's own client id
            host = self.server.connect("agent", [KB_ID])
            self.reviewer = Reviewer(self.env, self.server, host, params, rng.streams(seed))
        self.push = None
        if params.push:
            self.push = PushWatcher(
                self.env,
                self.connect("push"),
                KB_ID,
                self.agent.citations,
                params.citation_hold_s,
                params.day_s,
            )
        self.editing = None
        """Which answers edit, with a share below 1: drawn by answer from its own stream."""
        if params.agent_edits and params.agent_edit_share < 1:
            draws = rng.streams(seed)["answer_edits"].random(len(self.schedule.question_s))
            self.editing = draws < params.agent_edit_share
        self.checker: Checker | None = None
        self.cadence: CadenceChecker | None = None
        self.final: dict[tuple[int, int], tuple[str, str]] = {}
        self.edited_articles: set[str] = set()
        self.index = {a.article_id: i for i, a in enumerate(self.specs)}

    def connect(self, client_id: str) -> Session | McpSession:
        """A session granted the day's KB: in-process, or across MCP if params say so."""
        session = self.server.connect(client_id, [KB_ID])
        return self.bridge.wrap(session) if self.bridge is not None else session

    def clock(self) -> int:
        return DAY_START_US + round(self.env.now * 1_000_000)

    def customer(self, answer: int, target: int) -> Proc:
        spec = self.specs[target]
        held = yield from self.agent.answer(
            answer, spec.article_id, spec.question(answer), self.params.citations_per_answer
        )
        if self.push is not None:
            self.push.cite()
        early = [c for c in held if self.let_go_s(c) < self.params.day_s]
        if early:
            self.env.process(self.let_go(early))
        slot = 0 if self.params.edited_citation == "first" else 1
        if not self.params.agent_edits or len(held) <= slot:
            return
        if self.editing is not None and not self.editing[answer]:
            return  # this answer makes no edit (the share of answers that edit)
        cited = held[slot]
        if self.params.agent_edit_targets == "distinct_articles":
            if cited.article_id in self.edited_articles:
                return  # an earlier answer of the day edits this article already
            self.edited_articles.add(cited.article_id)
        delays = self.params.edit_delays_s
        delay = delays[answer % len(delays)]
        if self.reviewer is not None:
            record = yield from self.agent.gated_edit(
                self.seed, cited, delay, self.params, self.reviewer, self.oracle
            )
        else:
            record = yield from self.agent.delayed_edit(
                self.seed,
                cited,
                delay,
                self.params.max_edit_attempts,
                self.oracle,
                replay_retries=self.params.replays == "every_success",
            )
        self.result.edits.append(record)

    def let_go_s(self, c: HeldCitation) -> float:
        """When the agent lets the citation go: its read plus the hold (inf: never, the
        day's end judges it)."""
        return c.read_s + self.params.citation_hold_s

    def let_go(self, held: list[HeldCitation]) -> Proc:
        """An answer's citations let go before the day's end (in the order read): each
        judged as it is then, as the day's end judges the others."""
        for c in held:
            yield self.env.timeout(max(0.0, self.let_go_s(c) - self.env.now))
            [truth] = self.oracle.statuses([(c.article_id, c.version, c.title)])
            self.final[(c.answer, c.slot)] = truth

    def customers(self) -> Proc:
        s = self.schedule
        for answer, (t, target) in enumerate(zip(s.question_s, s.question_targets, strict=True)):
            yield self.env.timeout(max(0.0, t - self.env.now))
            self.env.process(self.customer(answer, int(target)))

    def day_end(self) -> Proc:
        yield self.env.timeout(self.params.day_s)
        held = [c for c in self.agent.citations if (c.answer, c.slot) not in self.final]
        truth = self.oracle.statuses([(c.article_id, c.version, c.title) for c in held])
        self.final.update({(c.answer, c.slot): t for c, t in zip(held, truth, strict=True)})
        s = self.schedule
        top10 = set(int(i) for i in s.question_rank.argsort()[:10])
        self.result.day = DayRecord(
            seed=self.seed,
            save_popularity=self.params.save_popularity,
            agent_edits=self.params.agent_edits,
            questions=len(s.question_targets),
            questions_top10=sum(int(t) in top10 for t in s.question_targets),
            saves=s.day_saves,
            saves_top10=sum(int(t) in top10 for t in s.save_targets[: s.day_saves]),
            unpublished_at_end=self.oracle.unpublished_count([a.article_id for a in self.specs]),
            events=self.oracle.head_sequence(),
        )

    def citation_record(self, c: HeldCitation) -> CitationRecord:
        # with tool latency an answer's reads may finish after the day's end: the day ended
        # before that citation was held, so nothing it cites had changed since its read
        status, kind = self.final.get((c.answer, c.slot), ("fresh", ""))
        index = self.index[c.article_id]
        return CitationRecord(
            seed=self.seed,
            save_popularity=self.params.save_popularity,
            answer=c.answer,
            slot=c.slot,
            question_article=c.question_article,
            article_id=c.article_id,
            article_rank=int(self.schedule.question_rank[index]) + 1,
            read_s=c.read_s,
            version=c.version,
            title=c.title,
            event_sequence=c.event_sequence,
            final_status=status,
            final_kind=kind,
        )

    def detection_records(self) -> list[DetectionRecord]:
        """One row per citation and method: when it changed (oracle) and when it was flagged."""
        p = self.params
        found: dict[tuple[str, float], dict[int, float]] = {}
        if self.checker is not None:
            for method, detected in self.checker.detected.items():
                found[(method, p.check_interval_s)] = detected
        if self.cadence is not None:
            found.update(self.cadence.detected)
        if self.push is not None:
            found[("push", 0.0)] = self.push.detected
        if not found:
            return []
        nan = float("nan")
        changed = []
        ends = []  # a citation's stale time ends when it is let go, or at the day's end
        for c in self.agent.citations:
            us = self.oracle.first_change_us(c.article_id, c.event_sequence)
            t = nan if us is None else (us - DAY_START_US) / 1_000_000
            ends.append(min(self.let_go_s(c), p.day_s))
            changed.append(t if t <= ends[-1] else nan)
        return [
            DetectionRecord(
                seed=self.seed,
                save_popularity=p.save_popularity,
                method=method,
                interval_s=interval,
                answer=c.answer,
                slot=c.slot,
                read_s=c.read_s,
                changed_s=changed[i],
                detected_s=t if (t := detected.get(i, nan)) <= ends[i] else nan,
            )
            for (method, interval), detected in found.items()
            for i, c in enumerate(self.agent.citations)
        ]

    def run(self) -> DayResult:
        p, r = self.params, self.result
        self.env.process(
            human_editors(
                self.env,
                self.store,
                KB_ID,
                self.specs,
                self.schedule,
                self.seed,
                p.save_popularity,
                r.saves,
                p.unpublished_save,
                rng.streams(self.seed)["save_redraws"],
            )
        )
        self.env.process(self.customers())
        self.env.process(self.day_end())
        if self.push is not None:
            self.env.process(self.push.run())
        if p.sweep_intervals_s:
            self.cadence = CadenceChecker(
                self.env,
                self.connect,
                self.server.log,
                KB_ID,
                self.agent.citations,
                p.sweep_intervals_s,
                p.day_s,
                p.stop_checking_known_stale,
                self.sweep_methods,
                p.citation_hold_s,
            )
            self.env.process(self.cadence.run())
        if p.run_checker:
            self.checker = checker = Checker(
                self.env,
                self.connect,
                self.server.log,
                KB_ID,
                self.agent.citations,
                self.oracle,
                p,
                self.seed,
                r.checks,
            )
            self.env.process(checker.run())
        try:
            self.env.run()
        finally:
            if self.bridge is not None:
                self.bridge.close()
        r.citations = [self.citation_record(c) for c in self.agent.citations]
        r.detections = self.detection_records()
        if self.cadence is not None:
            r.cadence = self.cadence.records(self.seed, p.save_popularity)
        r.edits.sort(key=lambda e: e.answer)
        r.calls = self.server.log.records
        return r


def run_day(params: Params, seed: int, opening: Opening | None = None) -> DayResult:
    """Simulate one day for one seed; same (params, seed), same records, with or without a
    shared opening."""
    return Day(params, seed, opening).run()
