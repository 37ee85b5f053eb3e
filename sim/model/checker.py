"""The hourly checker: three ways to find out which held citations went stale.

Each method is its own client session, so its cost is read off the call log.
Checks take no simulated time: each is a snapshot that the ground-truth oracle
judges at the same instant, and an id-based method that disagrees with it stops
the run, because that is a bug, not a result.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from sim.model.agent import HeldCitation, Proc
from sim.model.oracle import GroundTruthOracle
from sim.model.records import CheckRecord
from sim.params import Params
from sim.server.calllog import CallLog, ToolCall
from sim.server.listing import DEFAULT_POLL_LIMIT, KB_RESOURCE_TYPE
from sim.server.tools import ToolCaller

METHODS = ("title_only", "reread", "poll")


def read_versions(session: ToolCaller, kb_id: str, article_ids: list[str]) -> dict[str, str | None]:
    """Each article's current version, None if it is not published."""
    current: dict[str, str | None] = {}
    for a in article_ids:
        r = session.call("read_knowledge_article", {"knowledge_base_id": kb_id, "article_id": a})
        if r.is_error and r.structured["error"]["code"] != "article_not_found":
            raise RuntimeError(f"checker read refused unexpectedly: {r.text}")
        current[a] = None if r.is_error else r.structured["updated_at"]
    return current


def compare(c: HeldCitation, current: str | None) -> str:
    if current is None:
        return "gone"
    return "fresh" if current == c.version else "stale"


def reread(session: ToolCaller, kb_id: str, held: list[HeldCitation]) -> list[str]:
    """Read every cited article, compare versions."""
    current = read_versions(session, kb_id, list(dict.fromkeys(c.article_id for c in held)))
    return [compare(c, current[c.article_id]) for c in held]


class Poller:
    """Page through the events since a position; re-read only the cited articles in them.

    With the cursor kept ('one integer of state') each check starts where the last ended
    and keeps what it knew; without, each check starts again from the oldest citation's
    position and knows nothing from before."""

    def __init__(self, session: ToolCaller, kb_id: str, keep_cursor: bool = True) -> None:
        self.session = session
        self.kb_id = kb_id
        self.keep_cursor = keep_cursor
        self.cursor: int | None = None
        self.known: dict[tuple[int, int], str] = {}
        """(answer, slot) -> what the last check found of each citation held then."""

    def status(self, held: list[HeldCitation]) -> list[str]:
        if not held:
            return []
        if self.cursor is None or not self.keep_cursor:
            self.cursor = min(c.event_sequence for c in held)
            self.known = {}
        changed = self.page()
        cited = [a for a in dict.fromkeys(c.article_id for c in held) if a in changed]
        current = read_versions(self.session, self.kb_id, cited)
        self.known = {
            (c.answer, c.slot): compare(c, current[c.article_id])
            if c.article_id in current
            else self.known.get((c.answer, c.slot), "fresh")
            for c in held
        }
        return [self.known[(c.answer, c.slot)] for c in held]

    def page(self) -> set[str]:
        """The articles named in the events after the cursor, paging to the head; the
        cursor moves to the last event read."""
        changed: set[str] = set()
        while True:
            r = self.session.call(
                "poll_resource_events",
                {
                    "resource_type": KB_RESOURCE_TYPE,
                    "resource_id": self.kb_id,
                    "after_sequence": self.cursor,
                    "limit": DEFAULT_POLL_LIMIT,
                },
            )
            if r.is_error:
                raise RuntimeError(f"checker poll refused unexpectedly: {r.text}")
            changed.update(e["article_id"] for e in r.structured["events"])
            self.cursor = r.structured["next_after_sequence"]
            if not r.structured["has_more"]:
                return changed


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
        self.sessions = {m: connect(f"checker-{m}") for m in METHODS}
        self.poller = Poller(self.sessions["poll"], kb_id)
        self.detected: dict[str, dict[int, float]] = {m: {} for m in METHODS}
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
        methods: dict[str, Callable[[list[HeldCitation]], list[str]]] = {
            "title_only": self._title_only,
            "reread": self._reread,
            "poll": self._poll,
        }
        for name, method in methods.items():
            start = len(self.log)
            found = method(held)
            if name != "title_only" and found != status:
                wrong = [i for i, (a, b) in enumerate(zip(found, status, strict=True)) if a != b]
                raise GroundTruthMismatch(
                    f"seed {self.seed}, check {k}: {name} disagrees with ground truth on "
                    f"citations {wrong[:10]}"
                )
            self._record(k, name, held, truth, found, self.log.records[start:])
            flag_new(self.detected[name], found, self.env.now, status, at)

    # -- the three methods ------------------------------------------------------
    def _title_only(self, held: list[HeldCitation]) -> list[str]:
        """Search each kept title; a citation whose title no hit carries is flagged."""
        session = self.sessions["title_only"]
        found: dict[str, bool] = {}
        for title in dict.fromkeys(c.title for c in held):
            r = session.call(
                "search_knowledge_base",
                {
                    "knowledge_base_id": self.kb_id,
                    "query": title[:200],
                    "limit": self.params.title_check_limit,
                },
            )
            found[title] = any(h["title"] == title for h in r.structured.get("hits", []))
        return ["fresh" if found[c.title] else "changed" for c in held]

    def _reread(self, held: list[HeldCitation]) -> list[str]:
        return reread(self.sessions["reread"], self.kb_id, held)

    def _poll(self, held: list[HeldCitation]) -> list[str]:
        return self.poller.status(held)

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
