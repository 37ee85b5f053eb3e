"""The write gate: no write without a granted, unexpired, unused approval of exactly its
arguments; an approval is used at most once, in the write's own transaction; a replay
needs none and records none; refused calls leave the store as it was."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sim.kb import approvals
from sim.kb.store import KBStore
from sim.server.edit import EDIT_TOOL
from sim.server.tools import KBServer, Session
from tests.conftest import ARTICLES, KB, ManualClock, edit_args, examples, read

TTL_S = 600.0


def _gated() -> tuple[KBServer, Session, ManualClock]:
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    server = KBServer(store, clock, write_gate=True, approval_ttl_s=TTL_S)
    return server, server.connect("agent", [KB]), clock


def _approve(server: KBServer, session: Session, args: dict[str, Any], granted: bool = True) -> int:
    approval_id = session.request_approval(args)
    server.decide_approval(approval_id, granted, "tester")
    return approval_id


def test_a_write_without_an_approval_is_refused_and_says_how_to_get_one() -> None:
    server, session, _ = _gated()
    args = edit_args("a1", read(session, "a1")["updated_at"], "k1")
    before = server.store.snapshot()
    r = session.call(EDIT_TOOL, args)
    err = r.structured["error"]
    assert err["code"] == "approval_required"
    assert "none was asked for" in r.structured["message"]
    assert "approve this exact edit" in err["what_to_do"]
    assert "argument" not in err  # the version sent is fine: no argument is blamed
    assert server.store.snapshot() == before


@pytest.mark.parametrize(
    ("setup", "state"),
    [
        ("pending", "is not decided"),
        ("declined", "was declined"),
        ("expired", "expired at"),
        ("used", "was already used, by event"),
    ],
)
def test_only_a_granted_unexpired_unused_approval_lets_a_write_through(
    setup: str, state: str
) -> None:
    server, session, clock = _gated()
    args = edit_args("a1", read(session, "a1")["updated_at"], "k1")
    if setup == "pending":
        session.request_approval(args)
    elif setup == "declined":
        _approve(server, session, args, granted=False)
    elif setup == "expired":
        _approve(server, session, args)
        clock.advance(TTL_S + 1)
    else:
        _approve(server, session, args)
        assert not session.call(EDIT_TOOL, args).is_error
        args = {**args, "idempotency_key": "k2"}  # the same write again, as a new call
    before = server.store.snapshot()
    r = session.call(EDIT_TOOL, args)
    assert r.structured["error"]["code"] in ("approval_required", "version_conflict")
    if r.structured["error"]["code"] == "approval_required":
        assert state in r.structured["message"]
    assert server.store.snapshot() == before


def test_the_approval_covers_exactly_its_arguments_and_one_write() -> None:
    server, session, _ = _gated()
    args = edit_args("a1", read(session, "a1")["updated_at"], "k1", content="approved text")
    approval_id = _approve(server, session, args)
    other = {**args, "content": "something else"}
    assert session.call(EDIT_TOOL, other).structured["error"]["code"] == "approval_required"
    other_title = {**args, "title": "Another title"}
    assert session.call(EDIT_TOOL, other_title).structured["error"]["code"] == "approval_required"
    other_client = server.connect("someone-else", [KB])
    assert other_client.call(EDIT_TOOL, args).structured["error"]["code"] == "approval_required"
    saved = session.call(EDIT_TOOL, args)
    assert not saved.is_error and f"Approval {approval_id} authorised it" in saved.text
    used = server.store.approval(approval_id)
    assert used is not None and used.used_by_sequence == saved.structured["event_sequence"]
    # the approval is the log's too: its line names the call it authorised
    (line,) = [(a, n) for a, n in server.log.approvals if a.approval_id == approval_id]
    assert line[1] == len(server.log.records)


def test_a_replay_needs_no_approval_and_records_none() -> None:
    server, session, clock = _gated()
    args = edit_args("a1", read(session, "a1")["updated_at"], "k1")
    _approve(server, session, args)
    first = session.call(EDIT_TOOL, args)
    clock.advance(TTL_S * 3)  # long after any approval would have expired
    assert not session.approval_needed(args)
    before = server.store.snapshot()
    again = session.call(EDIT_TOOL, args)
    assert again.structured["replayed"] is True
    assert again.structured["updated_at"] == first.structured["updated_at"]
    assert server.store.snapshot() == before  # no approval asked, used or written


def test_the_host_side_refuses_to_ask_approval_for_an_invalid_call() -> None:
    _, session, _ = _gated()
    with pytest.raises(ValueError, match="not a valid edit call"):
        session.request_approval({"knowledge_base_id": KB, "article_id": "a1"})


def test_without_the_gate_nothing_about_approvals_changes() -> None:
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    session = KBServer(store, clock).connect("agent", [KB])
    r = session.call(EDIT_TOOL, edit_args("a1", read(session, "a1")["updated_at"], "k1"))
    assert not r.is_error and "Approval" not in r.text
    assert not session.approval_needed(edit_args("a2", "2026-01-01T00:00:00Z", "k2"))


# -- the invariants under random interleavings -----------------------------------------
OPS = st.lists(
    st.tuples(
        st.sampled_from(["ask", "grant", "decline", "edit", "human", "wait"]),
        st.integers(0, 1),  # which of two bodies
        st.integers(0, 1),  # which of two idempotency keys
        st.booleans(),  # the current version or the first one
    ),
    max_size=30,
)


@settings(max_examples=examples(150), deadline=None)
@given(ops=OPS)
@example(
    ops=[("ask", 0, 0, True), ("grant", 0, 0, True), ("wait", 0, 0, True)] * 2
    + [("edit", 0, 0, True)]
)
@example(ops=[("ask", 0, 0, True), ("decline", 0, 0, True), ("edit", 0, 0, True)])
@example(
    ops=[("ask", 0, 0, True), ("grant", 0, 0, True), ("edit", 1, 0, True), ("edit", 0, 1, True)]
)
def test_gate_invariants_hold_under_any_interleaving(
    ops: list[tuple[str, int, int, bool]],
) -> None:
    server, session, clock = _gated()
    store = server.store
    first_version = read(session, "a1")["updated_at"]
    pending: list[int] = []
    written: dict[int, tuple[str, int]] = {}  # event sequence -> (the call's digest, when)

    def variant(i: int, k: int, current: bool) -> dict[str, Any]:
        version = read(session, "a1")["updated_at"] if current else first_version
        return edit_args("a1", version, f"key{k}", content=f"text {i}")

    for op, i, k, current in ops:
        args = variant(i, k, current)
        if op == "ask":
            pending.append(session.request_approval(args))
        elif op in ("grant", "decline") and pending:
            server.decide_approval(pending.pop(i % len(pending)), op == "grant", "tester")
        elif op == "edit":
            before = store.snapshot()
            r = session.call(EDIT_TOOL, args)
            if r.is_error:
                assert store.snapshot() == before
            elif not r.structured["replayed"]:
                written[r.structured["event_sequence"]] = (
                    approvals.digest(EDIT_TOOL, args),
                    clock(),
                )
        elif op == "human":
            clock.advance(1)
            store.save(KB, "a1", f"human {i}")
        else:
            clock.advance(0.6 * TTL_S)  # one wait leaves a granted approval usable, two do not
    agent_writes = [e.sequence for e in store.all_events(KB) if e.actor == "agent"]
    used = [
        store.approval(n)
        for n in range(1, 200)
        if (a := store.approval(n)) is not None and a.used_by_sequence
    ]
    # no write without its approval; each approval used at most once, for exactly its call
    assert sorted(agent_writes) == sorted(written)
    assert sorted(a.used_by_sequence for a in used if a) == sorted(written)
    for a in used:
        assert a is not None and a.decision == "granted"
        digest, when = written[a.used_by_sequence]
        assert digest == a.args_digest
        assert a.decided_us <= when < a.expires_us  # granted before, and not yet expired


def test_approval_lines_are_json_of_the_same_log(tmp_path: Any) -> None:
    from sim.server.calllog import CallLog, read_jsonl

    path = tmp_path / "log.jsonl"
    with path.open("w") as sink:
        clock = ManualClock()
        store = KBStore(clock)
        store.create_kb(KB)
        store.create_articles(KB, ARTICLES)
        server = KBServer(store, clock, CallLog(sink=sink), write_gate=True)
        session = server.connect("agent", [KB])
        args = edit_args("a1", read(session, "a1")["updated_at"], "k1")
        _approve(server, session, {**args, "content": "no"}, granted=False)
        _approve(server, session, args)
        session.call(EDIT_TOOL, args)
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    kinds = [r.get("kind", "call") for r in rows]
    assert kinds == ["call", "approval", "call", "approval"]
    declined, used = rows[1], rows[3]
    assert declined["decision"] == "declined" and "authorised_call" not in declined
    assert used["decision"] == "granted" and used["authorised_call"] == 2
    assert len(read_jsonl(path)) == 2


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_over_stdio_the_server_asks_the_user_by_elicitation_and_records_the_answer(
    tmp_path: Any, mode: str, serve_command: list[str]
) -> None:
    """An SDK client that accepts the first elicitation and declines the second: asked over
    the back-channel in the handshake era, as input required in the 2026-07-28 era."""
    from pathlib import Path

    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    from sim.model.opening import KB_ID

    log = tmp_path / "gate.jsonl"
    params = StdioServerParameters(
        command=serve_command[0],
        args=[*serve_command[1:], "--articles", "20", "--write-gate", "--call-log", str(log)],
        cwd=str(Path(__file__).resolve().parents[1]),
    )
    prompts: list[str] = []

    async def answer(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        return types.ElicitResult(action="accept" if len(prompts) == 1 else "decline", content={})

    async def main() -> tuple[Any, Any, Any]:
        async with Client(params, elicitation_callback=answer, mode=mode) as client:
            read = await client.call_tool(
                "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": "art-00001"}
            )
            args = {
                "knowledge_base_id": KB_ID,
                "article_id": "art-00001",
                "content": "Approved new body.",
                "expected_version": read.structured_content["updated_at"],
                "idempotency_key": "k1",
            }
            saved = await client.call_tool(EDIT_TOOL, args)
            replay = await client.call_tool(EDIT_TOOL, args)  # no approval asked
            fresh = saved.structured_content["updated_at"]
            refused = await client.call_tool(
                EDIT_TOOL, {**args, "expected_version": fresh, "idempotency_key": "k2"}
            )
            return saved, replay, refused

    saved, replay, refused = anyio.run(main)
    assert not saved.is_error and "Approval 1 authorised it" in saved.content[0].text
    assert replay.structured_content["replayed"] is True
    assert refused.is_error and refused.structured_content["error"]["code"] == "approval_required"
    assert "approval 2 was declined" in refused.content[0].text
    assert len(prompts) == 2 and "art-00001" in prompts[0] and "Approval 1" in prompts[0]
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    approvals_logged = [r for r in rows if r.get("kind") == "approval"]
    assert [a["decision"] for a in approvals_logged] == ["granted", "declined"]
    calls = [r for r in rows if r.get("kind", "call") == "call"]
    granted = next(a for a in approvals_logged if a["decision"] == "granted")
    assert calls[granted["authorised_call"] - 1]["tool"] == EDIT_TOOL
    assert calls[granted["authorised_call"] - 1]["outcome"] == "ok"


def test_over_stdio_a_client_without_elicitation_is_told_why_it_cannot_write(
    serve_command: list[str],
) -> None:
    from sim.bench.stdio import RawClient, tool_call
    from sim.model.opening import KB_ID

    client = RawClient("--articles", "5", "--write-gate", serve=serve_command)
    client.handshake()  # declares no capabilities
    client.send(
        tool_call(
            1, "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": "art-00001"}
        )
    )
    version = client.receive()["result"]["structuredContent"]["updated_at"]  # type: ignore[index]
    edit = {
        "knowledge_base_id": KB_ID,
        "article_id": "art-00001",
        "content": "x",
        "expected_version": version,
        "idempotency_key": "k",
    }
    client.send(tool_call(2, EDIT_TOOL, edit))
    answer = client.receive()
    assert answer is not None
    result = answer["result"]
    assert result["isError"] and result["structuredContent"]["error"]["code"] == "approval_required"
    assert "elicitation" in result["structuredContent"]["error"]["what_to_do"]
    client.close()


def test_a_gated_day_keeps_the_humans_saves_and_the_strategies_differ_as_designed() -> None:
    from dataclasses import replace

    from sim.model.day import run_day
    from sim.params import Params
    from sim.study.experiments import experiment_params

    small = replace(experiment_params(Params(), "cas"), n_questions=40, n_saves=150)
    plain = run_day(small, 3)
    gated = {
        s: run_day(replace(small, write_gate=True, approval_strategy=s), 3)
        for s in ("approve_then_write", "reread_after_approval")
    }
    a, b = gated["approve_then_write"], gated["reread_after_approval"]
    for day in (a, b):  # the gate draws from its own streams: the humans' day is the same
        assert day.saves == plain.saves
        assert all(e.approvals >= 1 for e in day.edits)
        assert all(e.strategy for e in day.edits)
    assert all(e.approvals == 0 and e.strategy == "" for e in plain.edits)
    # re-reading after the approval leaves no write to be rejected (tools take no time)
    assert sum(e.first_outcome == "conflict" for e in b.edits) == 0
    assert sum(e.first_outcome == "conflict" for e in a.edits) > 0
    assert sum(e.would_overwrite for e in b.edits) == 0
    again = run_day(replace(small, write_gate=True), 3).edits
    assert repr(again) == repr(a.edits)  # deterministic (repr: NaN equals NaN)


@functools.cache
def _gated_edits(strategy: str, change: tuple[tuple[str, Any], ...] = ()) -> tuple[Any, ...]:
    """Seed 5's gated edits under one strategy, once a module: the tests only read them."""
    from dataclasses import replace

    from sim.model.day import run_day
    from sim.params import Params
    from sim.study.experiments import experiment_params

    small = replace(
        experiment_params(Params(), "cas"),
        n_questions=40,
        n_saves=150,
        write_gate=True,
        approval_strategy=strategy,
        **dict(change),
    )
    return tuple(run_day(small, 5).edits)


def test_with_instant_tools_the_strategies_are_one_process_at_different_costs() -> None:
    """Tools that take no time: the re-read lands where the write would, so every edit ends
    the same way after the same approvals and waits; re-reading costs more calls."""
    a, b = _gated_edits("approve_then_write"), _gated_edits("reread_after_approval")
    same = lambda e: (e.final_outcome, e.approvals, e.declined, e.approval_wait_s)  # noqa: E731
    assert [same(e) for e in a] == [same(e) for e in b]
    assert [e.first_grant_cause for e in a] == [e.first_grant_cause for e in b]
    assert sum(e.agent_calls for e in b) > sum(e.agent_calls for e in a)
    assert sum(e.agent_chars for e in b) > sum(e.agent_chars for e in a)
    causes = {e.first_grant_cause for e in a}
    assert causes <= {"human", "agent", "gone", "none", "not_sent"} and "human" in causes
    for e in a:  # a declined first approval sends nothing; a human save rejects the write
        assert (e.first_grant_cause == "not_sent") == (e.approvals == 1 and e.declined)
        if e.first_grant_cause in ("human", "agent"):
            assert e.first_outcome == "conflict"
        if e.first_grant_cause == "none":
            assert e.first_outcome == "ok"


def test_a_reviewer_in_bulk_decides_at_its_rounds_and_one_in_a_queue_makes_edits_wait() -> None:
    from sim.params import Params

    period = 2 * Params().approval_median_s
    batch = _gated_edits("approve_then_write", (("approval_reviewer", "batch"),))
    for e in batch:
        if e.approvals == 1:
            decided = e.edit_s + e.approval_wait_s
            assert abs(decided / period - round(decided / period)) < 1e-6
    alone = _gated_edits("approve_then_write")
    queued = _gated_edits("approve_then_write", (("approval_reviewer", "queue"),))
    assert sum(e.approval_wait_s for e in queued) > sum(e.approval_wait_s for e in alone)


@pytest.mark.deep
def test_human_caused_conflicts_of_first_writes_sent_match_their_closed_form(deep: bool) -> None:
    """Like with like: the share of first writes sent whose version a human's save (article
    still published) had overtaken, against theory.p_gated_write_meets, pooled over the
    ladder; within 3 standard errors + 1 point. Unpublished articles are counted apart.
    Seeds 1-4 in `make test`, 1-8 under --deep."""
    from dataclasses import replace

    import numpy as np

    from sim.params import Params
    from sim.study.experiments import experiment_params, run_study
    from sim.theory import p_gated_write_meets

    base = Params()
    gated = replace(experiment_params(base, "cas"), write_gate=True)
    seeds = list(range(1, 9 if deep else 5))
    edits = run_study(gated, seeds, ("cas",), workers=1, progress=False).edits
    sent = edits[edits["first_grant_cause"] != "not_sent"]
    forms = [p_gated_write_meets(base, d) for d in base.edit_delays_s]
    for kind in ("human", "gone"):
        expected = float(np.mean([f[kind] for f in forms]))
        observed = float((sent["first_grant_cause"] == kind).mean())
        se = (expected * (1 - expected) / len(sent)) ** 0.5
        assert abs(observed - expected) <= 3 * se + 0.01, (kind, observed, expected)


def test_a_seeds_gate_runs_depend_on_its_number_not_its_place_in_the_list() -> None:
    """The conditions grid runs on seeds 1..CONDITION_SEEDS by number: the regression test
    reruns a sampled seed alone, and seed 32 alone must not gain the grid's rows."""
    from sim.params import Params
    from sim.study.gate import CONDITION_SEEDS, gate_requests

    def grid_seeds(seeds: list[int]) -> tuple[int, ...]:
        main, conditions = gate_requests(Params(), seeds)
        assert main.seeds == tuple(seeds)
        return conditions.seeds

    assert grid_seeds([CONDITION_SEEDS + 12]) == ()
    assert grid_seeds([3, CONDITION_SEEDS + 1]) == (3,)
    assert grid_seeds(list(range(1, 41))) == tuple(range(1, CONDITION_SEEDS + 1))
