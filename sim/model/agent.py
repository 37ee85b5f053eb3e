"""The scripted agent: it knows the KB only through the four tools.

Per question it searches, reads the top hits and keeps their citations together
with the log position it last saw. In the CAS run it later edits its first
cited article with the citation's version, re-reads and retries on conflict,
and replays each success with the same idempotency key.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Protocol

import simpy

from sim.model.oracle import GroundTruthOracle
from sim.model.records import EditRecord
from sim.params import Params
from sim.server.tools import ToolCaller, ToolResult

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


def window_cause(oracle: GroundTruthOracle, citation: HeldCitation) -> str:
    """What a write with the citation's version would meet now (ground truth): 'gone' if
    the article is unpublished, 'human' if a human saved it since the read, 'agent' if only
    the agent's other edits did, '' if it is unchanged."""
    if oracle.unpublished_count([citation.article_id]):
        return "gone"
    writers = oracle.writers_since(citation.article_id, citation.version)
    return "human" if "human" in writers else ("agent" if writers else "none")


class Approver(Protocol):
    """The host app's approval dialog (the write gate): asks, waits, says yes or no."""

    def approve(self, arguments: dict[str, Any]) -> Proc: ...


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
        replay_retries: bool = False,
    ) -> Proc:
        """Edit with the citation's version after delay_s; the oracle only labels outcomes.
        A success is sent again with the same key: a first-try one always, one after
        retries only with replay_retries."""
        yield self.env.timeout(delay_s)
        args = self._edit_args(seed, citation, 1, citation.content, citation.version)
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
            args = self._edit_args(
                seed,
                citation,
                attempts,
                fresh.structured["content"],
                fresh.structured["updated_at"],
            )
            result = yield from self.call("edit_knowledge_article", args)
            outcome = self._outcome(result)
        replay_matched, new_events = False, 0
        replayed = outcome == "ok" and (attempts == 1 or replay_retries)
        if replayed:
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
            replayed=replayed,
        )

    def gated_edit(
        self,
        seed: int,
        citation: HeldCitation,
        delay_s: float,
        params: Params,
        approver: Approver,
        oracle: GroundTruthOracle,
    ) -> Proc:
        """The delayed edit under the write gate: every write needs its own approval.

        'approve_then_write' writes with the citation's version once approved (the wait adds
        to the delay); 'reread_after_approval' re-reads first and, if the article changed,
        re-applies the change, which makes it another call needing another approval. Both
        ask at most max_edit_attempts approvals. With tools that take no time the two are
        one process: the re-read lands at the instant the other strategy's write would, and
        both then re-apply and ask again; they differ in the calls they make."""
        yield self.env.timeout(delay_s)
        start = self.env.now
        args = self._edit_args(seed, citation, 1, citation.content, citation.version)
        approvals, waited, attempts = 0, 0.0, 0
        first = outcome = cause = ""
        would_overwrite = False
        spent = [0, 0]  # the agent's calls and result characters for this edit

        def call(tool: str, arguments: dict[str, Any]) -> Proc:
            r: ToolResult = yield from self.call(tool, arguments)
            spent[0], spent[1] = spent[0] + 1, spent[1] + r.chars
            return r

        def reread() -> Proc:
            fresh: ToolResult = yield from call(
                "read_knowledge_article",
                {"knowledge_base_id": self.kb_id, "article_id": citation.article_id},
            )
            return fresh

        def rebuilt(fresh: ToolResult) -> dict[str, Any]:
            s = fresh.structured
            return self._edit_args(seed, citation, approvals + 1, s["content"], s["updated_at"])

        while approvals < params.max_edit_attempts:
            granted, wait = yield from approver.approve(args)
            approvals, waited = approvals + 1, waited + wait
            if approvals == 1:  # ground truth when the first write would go out
                cause = "not_sent" if not granted else window_cause(oracle, citation)
            if not granted:
                outcome = "declined"
                break
            if params.approval_strategy == "reread_after_approval":
                fresh = yield from reread()
                if fresh.is_error:
                    outcome = "gone"
                    break
                if fresh.structured["updated_at"] != args["expected_version"]:
                    args, outcome = rebuilt(fresh), "conflict"
                    continue  # the approved call is not the one to send now: ask again
            if not first:  # ground truth at the first write, before it lands
                writers = oracle.writers_since(citation.article_id, args["expected_version"])
                would_overwrite = "human" in writers
            result = yield from call("edit_knowledge_article", args)
            attempts += 1
            outcome = self._outcome(result)
            first = first or outcome
            if outcome != "conflict" or approvals == params.max_edit_attempts:
                break
            fresh = yield from reread()
            if fresh.is_error:
                outcome = "gone"
                break
            args = rebuilt(fresh)
        return EditRecord(
            seed=seed,
            answer=citation.answer,
            article_id=citation.article_id,
            delay_s=delay_s,
            read_s=citation.read_s,
            edit_s=start,
            first_outcome=first or ("never_written" if outcome == "conflict" else outcome),
            conflict_cause="",
            human_save_in_window=would_overwrite,
            attempts=attempts,
            final_outcome="gave_up" if outcome == "conflict" else outcome,
            replay_matched=False,
            replay_new_events=0,
            strategy=params.approval_strategy,
            approval_median_s=params.approval_median_s,
            approvals=approvals,
            declined=outcome == "declined",
            approval_wait_s=waited,
            would_overwrite=would_overwrite,
            end_to_end_s=self.env.now - start if outcome == "ok" else float("nan"),
            first_grant_cause=cause,
            agent_calls=spent[0],
            agent_chars=spent[1],
        )

    def _edit_args(
        self, seed: int, citation: HeldCitation, attempt: int, content: str, version: str
    ) -> dict[str, Any]:
        """An edit call: the note appended to the content it is based on, that content's
        version, and one idempotency key per attempt."""
        note = f"\n\nNote: clarified after customer question {citation.answer + 1}."
        return {
            "knowledge_base_id": self.kb_id,
            "article_id": citation.article_id,
            "content": content + note,
            "expected_version": version,
            "idempotency_key": f"seed{seed}-answer{citation.answer}-try{attempt}",
        }

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
