"""`advise --call-log`: an agent's habits estimated from the call log `serve --call-log`
writes. Scripted sessions with known habits, logged by the real server, are recovered within
the estimate's interval; a session driven by the MCP SDK's client over stdio is read too;
and the estimate changes the advice as it should."""

from __future__ import annotations

import heapq
import json
import math
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from sim.__main__ import main
from sim.advise.calllog import habits
from sim.bench.docsrepo import build
from sim.kb.store import KBStore
from sim.model.opening import KB_ID, Opening
from sim.server.calllog import CallLog
from sim.server.tools import KBServer
from tests.conftest import ManualClock
from tests.test_advise_sampled import one_simulation_per_arguments  # noqa: F401  (autouse)

ROOT = Path(__file__).resolve().parents[1]
DAY_S = 86_400


def _scripted(
    path: Path, per_day: list[int], edit_every: int, delays: list[float], reread: bool
) -> None:
    """Days of answers through the real server, logged: each answer one search and a read
    of each of its 2 hits (its citations); every `edit_every`-th answer edits its first
    citation after the next delay in turn, re-reading it at once before if `reread`."""
    clock = ManualClock()
    opening = Opening.build(1, 60)
    store = KBStore.copy_of(opening.store, clock)
    with path.open("w", encoding="utf-8") as sink:
        session = KBServer(store, clock, CallLog(sink=sink, keep=False)).connect("agent", [KB_ID])
        events: list[tuple[float, int, str, Any]] = []
        n = 0
        for day, count in enumerate(per_day):
            for k in range(count):
                t = day * DAY_S + 3600 + k * 600.0
                heapq.heappush(events, (t, n, "answer", n))
                n += 1
        edits = 0
        start = (clock.us // (DAY_S * 10**6) + 1) * DAY_S * 10**6  # a midnight (UTC)
        while events:
            t, order, kind, data = heapq.heappop(events)
            clock.us = start + round(t * 1e6)
            if kind == "answer":
                query = opening.specs[data % 60].title
                found = session.call(
                    "search_knowledge_base",
                    {"knowledge_base_id": KB_ID, "query": query, "limit": 2},
                )
                cited = []
                for hit in found.structured["hits"]:
                    r = session.call(
                        "read_knowledge_article",
                        {"knowledge_base_id": KB_ID, "article_id": hit["article_id"]},
                    )
                    cited.append(r.structured)
                if data % edit_every == 0 and cited:
                    delay = delays[edits % len(delays)]
                    edits += 1
                    heapq.heappush(events, (t + delay, order, "edit", (data, cited[0])))
            else:
                answer, c = data
                version, content = c["updated_at"], c["content"]
                if reread:
                    clock.us -= 2_000_000  # the re-read, 2 s before the edit
                    fresh = session.call(
                        "read_knowledge_article",
                        {"knowledge_base_id": KB_ID, "article_id": c["article_id"]},
                    )
                    clock.us += 2_000_000
                    version, content = fresh.structured["updated_at"], fresh.structured["content"]
                session.call(
                    "edit_knowledge_article",
                    {
                        "knowledge_base_id": KB_ID,
                        "article_id": c["article_id"],
                        "content": content + f" Note {answer}.",
                        "expected_version": version,
                        "idempotency_key": f"a{answer}",
                    },
                )


def _inside(r: Any, value: float) -> bool:
    return r.lo <= value <= r.hi


@pytest.mark.parametrize("reread", [False, True])
def test_a_scripted_sessions_habits_are_recovered_within_their_intervals(
    tmp_path: Path, reread: bool
) -> None:
    log = tmp_path / "calls.jsonl"
    _scripted(log, [30, 40, 50, 40], edit_every=2, delays=[60.0, 600.0], reread=reread)
    h = habits(log)
    assert (h.days, h.answers) == (4, 160)
    assert h.questions_per_day.mean == 40 and _inside(h.questions_per_day, 40)
    assert h.searches_per_answer.mean == 1 and h.reads_per_answer.mean == 2
    assert h.citations_per_answer.mean == 2
    assert h.edit_share.mean == pytest.approx(0.5, abs=0.01) and _inside(h.edit_share, 0.5)
    assert h.edit_share.lo >= 0 and h.edit_share.hi <= 1
    assert h.reread_share.mean == (1.0 if reread else 0.0)
    assert sorted(set(h.delays_s)) == [60.0, 600.0]
    assert _inside(h.delay_median, 330.0)
    agent = h.agent()
    assert agent.citations == 2 and agent.reread_before_edit is reread
    assert sorted(set(agent.edit_delays_s)) == [60.0, 600.0]
    assert "calls.jsonl" in agent.source


def test_a_session_through_the_mcp_sdk_client_is_read(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sim", "serve", "--articles", "60", "--call-log", str(log)],
        cwd=str(ROOT),
    )

    async def run() -> None:
        async with Client(params) as client:
            for k, query in enumerate(["reset the password", "export invoices", "invite a team"]):
                found = await client.call_tool(
                    "search_knowledge_base",
                    {"knowledge_base_id": KB_ID, "query": query, "limit": 2},
                )
                reads = []
                for hit in found.structured_content["hits"]:
                    r = await client.call_tool(
                        "read_knowledge_article",
                        {"knowledge_base_id": KB_ID, "article_id": hit["article_id"]},
                    )
                    reads.append(r.structured_content)
                if k != 1 and reads:
                    await anyio.sleep(1.0)
                    await client.call_tool(
                        "edit_knowledge_article",
                        {
                            "knowledge_base_id": KB_ID,
                            "article_id": reads[0]["article_id"],
                            "content": reads[0]["content"] + " Clarified.",
                            "expected_version": reads[0]["updated_at"],
                            "idempotency_key": f"k{k}",
                        },
                    )

    anyio.run(run)
    h = habits(log)
    assert h.answers == 3 and h.citations_per_answer.mean == 2
    assert h.edit_share.mean == pytest.approx(2 / 3) and h.reread_share.mean == 0
    assert len(h.delays_s) == 2 and all(1.0 <= d < 10 for d in h.delays_s)
    assert math.isnan(h.questions_per_day.lo)  # one day: no interval
    assert "one day: no interval" in "\n".join(h.lines())  # said once, not per figure


def test_advise_uses_the_call_logs_habits(tmp_path: Path, capsys) -> None:
    repo = build(tmp_path / "docs", 30, commits=200)
    db = tmp_path / "kb.sqlite"
    assert main(["import", str(repo), "--db", str(db)]) == 0
    log = tmp_path / "calls.jsonl"
    # delays shorter than the 600 s between answers: no later answer cites the article first
    _scripted(log, [20, 30], edit_every=1, delays=[30.0, 300.0], reread=False)
    capsys.readouterr()
    args = ["advise", "--db", str(db), "--call-log", str(log), "--simulate", "2"]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["call_log"]["questions_per_day"]["mean"] == 25
    assert out["agent"]["source"] == "the agent of the call log calls.jsonl"
    assert [r["delay_s"] for r in out["cas_by_delay"]] == [30.0, 300.0]
    assert any("25 a day (--questions-per-day)" in x for x in out["assumptions"])
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "From the call log calls.jsonl (50 answers on 2 days" in text
    for bad in (["--edit-delays", "5"], ["--citations-per-answer", "3"]):
        with pytest.raises(SystemExit):
            main([*args, *bad])
        assert "--call-log: not with" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(SystemExit):
        main(["advise", "--db", str(db), "--call-log", str(tmp_path / "empty.jsonl")])
    assert "no agent in it" in capsys.readouterr().err


def test_an_edit_after_a_new_citation_is_a_first_try_not_a_retry(tmp_path: Path) -> None:
    """Two answers a minute apart each read and edit one article: the second edit comes
    within REPEAT_S of the first, but after a new citation of it, so it is its answer's
    own edit (it was taken for a retry of the first, and the log's edits vanished)."""

    def call(t_s: float, tool: str, outcome: str = "ok", **args: Any) -> str:
        when = f"2026-12-03T05:{int(t_s) // 60:02d}:{t_s % 60:09.6f}Z"
        return json.dumps(
            {"t": when, "client": "agent", "tool": tool, "chars": 100, "empty": False,
             "outcome": outcome, "dispatch_us": 100, "args": {"knowledge_base_id": KB_ID, **args}}
        )  # fmt: skip

    lines = []
    for start in (0.0, 60.0):
        lines += [
            call(start, "search_knowledge_base", query={"length": 8}),
            call(start + 1, "read_knowledge_article", article_id="a"),
            call(start + 2.5, "edit_knowledge_article", article_id="a"),
            call(start + 2.6, "edit_knowledge_article", "version_conflict", article_id="a"),
        ]
    log = tmp_path / "calls.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    h = habits(log)
    assert h.answers == 2 and h.edit_share.mean == 1.0  # the conflict right after: a retry
    assert h.delays_s == (1.5, 1.5)
    assert "2 answers on 1 day with a call" in h.lines()[0]
