"""The call log: one line per call, free text only as its length, sizes as sent."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from sim.kb.tools import KBServer, Session
from tests.conftest import KB, ManualClock


def test_one_line_per_call_with_sizes_and_outcomes(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    query = "reset the password please"
    clock.advance(42)
    r1 = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": query})
    r2 = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "zzzz qqqq"})
    r3 = session.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "nope"})
    log = server.log.records
    assert len(log) == 3
    a, b, c = log
    assert (a.tool, a.client_id, a.t_us) == ("search_knowledge_base", "tester", clock())
    assert a.arg_names == "knowledge_base_id,query"
    assert a.query_chars == len(query)
    assert a.result_chars == len(r1.text) and not a.empty and a.outcome == "ok"
    assert b.empty and b.outcome == "ok" and b.result_chars == len(r2.text)
    assert c.empty and c.outcome == "article_not_found" and c.article_id == "nope"
    assert c.result_chars == len(r3.text)
    assert all(x.wall_us >= 0 for x in log)


def test_the_query_text_is_never_logged(server: KBServer, session: Session, tmp_path: Path) -> None:
    secret = "customer Jane Doe account 4242"
    session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": secret})
    session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "x" * 300})
    path = tmp_path / "calls.jsonl"
    server.log.write_jsonl(path)
    text = path.read_text()
    assert "Jane" not in text and "x" * 20 not in text
    rows = [json.loads(line) for line in text.splitlines()]
    assert rows == [asdict(r) for r in server.log.records]
    frame = server.log.frame()
    assert list(frame.columns)[:4] == ["t_us", "client_id", "tool", "arg_names"]
    assert frame["query_chars"].tolist() == [len(secret), 300]
    assert "Jane" not in frame.to_csv()


def test_results_are_mcp_shaped(session: Session) -> None:
    r = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "invoice"})
    m = r.to_mcp()
    assert m["isError"] is False
    assert json.loads(m["content"][0]["text"]) == m["structuredContent"]
    bad = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "x"})
    assert bad.to_mcp()["isError"] is True
