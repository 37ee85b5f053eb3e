"""The call log: one line per call, free text only as its length, sizes as the client
receives them, and a cost table computed from the log alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sim.kb.store import KBStore
from sim.server.calllog import CallLog, line, parse_line, read_jsonl
from sim.server.logreport import summarise
from sim.server.tools import KBServer, Session
from tests.conftest import ARTICLES, KB, ManualClock


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
    assert a.args == {"knowledge_base_id": KB, "query": {"length": len(query)}}
    received = len(r1.text) + len(json.dumps(r1.structured, separators=(",", ":")))
    assert a.result_chars == r1.chars == received and not a.empty and a.outcome == "ok"
    assert b.empty and b.outcome == "ok" and b.result_chars == r2.chars
    assert c.empty and c.outcome == "article_not_found" and c.article_id == "nope"
    assert c.result_chars == r3.chars
    assert all(x.wall_us >= 0 for x in log)


def test_free_text_and_keys_are_never_logged(
    server: KBServer, session: Session, tmp_path: Path
) -> None:
    secret = "customer Jane Doe account 4242"
    session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": secret})
    session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "x" * 300})
    session.call(
        "edit_knowledge_article",
        {
            "knowledge_base_id": KB,
            "article_id": "a1",
            "title": "Jane's private title",
            "content": "Jane's body text",
            "expected_version": "2026-01-01T00:00:00Z",
            "idempotency_key": "jane-key",
        },
    )
    path = tmp_path / "calls.jsonl"
    server.log.write_jsonl(path)
    text = path.read_text()
    assert "Jane" not in text and "jane" not in text and "x" * 20 not in text
    assert read_jsonl(path) == server.log.records
    edit = server.log.records[-1].args
    assert edit["idempotency_key"] == "?" and edit["content"] == {"length": 16}
    assert edit["expected_version"] == "2026-01-01T00:00:00Z"
    frame = server.log.frame()
    assert list(frame.columns)[:3] == ["t_us", "client_id", "tool"]
    assert "Jane" not in frame.to_csv()


def test_the_log_line_has_the_sources_fields_and_parses_back(session: Session) -> None:
    log = CallLog()
    session.server.log = log
    session.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB})
    row = json.loads(line(log.records[0]))
    assert list(row) == ["t", "client", "tool", "args", "chars", "empty", "outcome", "dispatch_us"]
    assert row["args"] == {"resource_id": KB, "resource_type": "knowledge_base"}
    assert parse_line(line(log.records[0])) == log.records[0]


def test_a_served_log_is_written_as_calls_happen(tmp_path: Path) -> None:
    path = tmp_path / "served.jsonl"
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    with path.open("a", encoding="utf-8") as sink:
        server = KBServer(store, clock, CallLog(sink=sink, keep=False))
        s = server.connect("c", [KB])
        s.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a1"})
        assert len(read_jsonl(path)) == 1  # flushed at once, not at exit
        s.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a2"})
    assert len(server.log) == 0 and len(read_jsonl(path)) == 2


def test_log_report_counts_what_the_log_holds(
    server: KBServer, session: Session, tmp_path: Path
) -> None:
    for article in ("a1", "a2", "gone"):
        session.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article})
    session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "password"})
    rows = {r["tool"]: r for r in summarise(server.log.records)}
    reads = rows["read_knowledge_article"]
    assert (reads["calls"], reads["empty"], reads["refused"]) == (3, 1, 1)
    assert rows["all tools"]["calls"] == 4
    assert rows["all tools"]["chars"] == sum(c.result_chars for c in server.log.records)
    path = tmp_path / "calls.jsonl"
    server.log.write_jsonl(path)
    run = subprocess.run(
        [sys.executable, "-m", "sim", "log-report", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"4 tool calls in {path}")
    assert "| read_knowledge_article | 3 |" in run.stdout


def test_log_report_refuses_a_file_that_is_no_call_log(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text('{"hello": 1}\n')
    run = subprocess.run(
        [sys.executable, "-m", "sim", "log-report", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "not a call log" in run.stderr
    assert "Traceback" not in run.stderr
