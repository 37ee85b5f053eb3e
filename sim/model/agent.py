"""The scripted agent: it knows the KB only through the four tools.

Per question it searches, reads the top hits and keeps their citations together
with the log position it last saw. In the CAS run it later edits its first
cited article with the citation's version, re-reads and retries on conflict,
and replays each success with the same idempotency key.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import simpy

from sim.kb.tools import ToolCaller, ToolResult
from sim.model.oracle import GroundTruthOracle
from sim.model.records import EditRecord

Proc = Generator[simpy.Event, Any, Any]


@dataclass(frozen=True, slots=True)
class HeldCitation:
    answer: int
    slot: int
    question_article: str
    article_id: str
    version: str
    title: str
    content: str
    event_sequence: int
    read_s: float


def _without_replay_marks(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k not in ("replayed", "message")}


class ScriptedAgent:
    def __init__(
        self, env: simpy.Environment, session: ToolCaller, kb_id: str, latency_s: float
    ) -> None:
        self.env = env
        self.session = session
        self.kb_id = kb_id
        self.latency_s = latency_s
        self.citations: list[HeldCitation] = []

    def latency(self) -> Proc:
        """A tool call's simulated duration, spent before the call executes."""
        if self.latency_s:
            yield self.env.timeout(self.latency_s)

    def call(self, tool: str, arguments: dict[str, Any]) -> Proc:
        yield from self.latency()
        return self.session.call(tool, arguments)

    def read(self, article_id: str) -> Proc:
        result: ToolResult = yield from self.call(
            "read_knowledge_article", {"knowledge_base_id": self.kb_id, "article_id": article_id}
        )
        return result

    def answer(self, answer: int, question_article: str, query: str, n_cite: int) -> Proc:
        found = yield from self.call(
            "search_knowledge_base",
            {"knowledge_base_id": self.kb_id, "query": query, "limit": n_cite},
        )
        held = []
        for slot, hit in enumerate(found.structured.get("hits", [])):
            r = yield from self.read(hit["article_id"])
            if r.is_error:
                continue
            s = r.structured
            held.append(
                HeldCitation(
                    answer,
                    slot,
                    question_article,
                    s["article_id"],
                    s["updated_at"],
                    s["title"],
                    s["content"],
                    s["event_sequence"],
                    self.env.now,
                )
            )
        self.citations.extend(held)
        return held

    def delayed_edit(
        self,
        seed: int,
        citation: HeldCitation,
        delay_s: float,
        max_attempts: int,
        oracle: GroundTruthOracle,
    ) -> Proc:
        """Edit with the citation's version after delay_s; the oracle only labels outcomes."""
        yield self.env.timeout(delay_s)
        note = f"\n\nNote: clarified after customer question {citation.answer + 1}."
        args = {
            "knowledge_base_id": self.kb_id,
            "article_id": citation.article_id,
            "content": citation.content + note,
            "expected_version": citation.version,
            "idempotency_key": f"seed{seed}-answer{citation.answer}-try1",
        }
        result = yield from self.call("edit_knowledge_article", args)
        edit_s = self.env.now
        first = self._outcome(result)
        # Same instant as the call: who wrote between the read and this first try.
        writers = oracle.writers_since(citation.article_id, citation.version)
        cause = ("human" if "human" in writers else "agent") if first == "conflict" else ""
        attempts, outcome = 1, first
        while outcome == "conflict" and attempts < max_attempts:
            fresh = yield from self.read(citation.article_id)
            if fresh.is_error:
                outcome = "gone"
                break
            attempts += 1
            args = {
                **args,
                "content": fresh.structured["content"] + note,
                "expected_version": fresh.structured["updated_at"],
                "idempotency_key": f"seed{seed}-answer{citation.answer}-try{attempts}",
            }
            result = yield from self.call("edit_knowledge_article", args)
            outcome = self._outcome(result)
        replay_matched, new_events = False, 0
        if outcome == "ok":
            yield from self.latency()
            head = oracle.head_sequence()  # same instant as the replay: only it can add events
            replay = self.session.call("edit_knowledge_article", args)
            new_events = oracle.head_sequence() - head
            replay_matched = replay.structured.get("replayed") is True and _without_replay_marks(
                replay.structured
            ) == _without_replay_marks(result.structured)
        return EditRecord(
            seed=seed,
            answer=citation.answer,
            article_id=citation.article_id,
            delay_s=delay_s,
            read_s=citation.read_s,
            edit_s=edit_s,
            first_outcome=first,
            conflict_cause=cause,
            human_save_in_window="human" in writers,
            attempts=attempts,
            final_outcome="gave_up" if outcome == "conflict" else outcome,
            replay_matched=replay_matched,
            replay_new_events=new_events,
        )

    @staticmethod
    def _outcome(result: ToolResult) -> str:
        if not result.is_error:
            return "ok"
        code = result.structured["error"]["code"]
        if code == "version_conflict":
            return "conflict"
        if code == "article_not_found":
            return "gone"
        raise RuntimeError(f"agent edit refused unexpectedly: {result.text}")
