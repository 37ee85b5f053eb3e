"""The KB over real MCP: the SDK's own client sees the tools as listed by the real server,
gets the in-process results and errors, and the simulation's numbers do not change."""

from __future__ import annotations

import sqlite3
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pandas as pd
import pytest
from mcp import Client, StdioServerParameters

from sim.kb.store import KBStore
from sim.kb.versions import format_version
from sim.params import Params
from sim.server.mcp_server import build_server
from sim.server.tools import KBServer
from sim.study.experiments import run_study
from tests.conftest import ARTICLES, KB, START_US, ManualClock
from tests.test_kb_limits import ACCEPTED, REFUSED
from tests.test_kb_parity import FIXTURE, published


def _twin_stores() -> tuple[Any, Any]:
    """Two identical KBs: one behind MCP, one called in-process."""
    pairs = []
    for _ in range(2):
        clock = ManualClock()
        store = KBStore(clock)
        store.create_kb(KB)
        store.create_articles(KB, ARTICLES)
        pairs.append(KBServer(store, clock).connect("client", [KB]))
    return pairs[0], pairs[1]


def _tool_dicts(tools: list[Any]) -> list[dict]:
    return [
        t.model_dump(
            by_alias=True,
            exclude_none=True,
            include={"name", "description", "input_schema", "output_schema", "annotations"},
        )
        for t in tools
    ]


def test_tools_list_over_mcp_equals_the_parity_fixture() -> None:
    async def main() -> list[dict]:
        over_mcp, _ = _twin_stores()
        async with Client(build_server(over_mcp), mode="legacy") as client:
            return _tool_dicts((await client.list_tools()).tools)

    listed = anyio.run(main)
    assert listed == KBServer.list_tools()
    assert published(listed) == FIXTURE


def test_every_call_and_every_refusal_is_the_in_process_one() -> None:
    calls = [(tool, args) for tool, args, *_ in ACCEPTED + REFUSED]
    v0 = format_version(START_US)  # every article's version in both twin stores
    edit = {
        "knowledge_base_id": KB,
        "article_id": "a1",
        "content": "x",
        "expected_version": v0,
        "idempotency_key": "k1",
    }
    calls += [
        ("no_such_tool", {}),
        ("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a2"}),
        ("read_knowledge_article", {"knowledge_base_id": KB, "article_id": "nope"}),
        ("read_knowledge_article", {"knowledge_base_id": "kb-not-granted", "article_id": "a1"}),
        ("edit_knowledge_article", edit),  # saved
        ("edit_knowledge_article", edit),  # replay
        ("edit_knowledge_article", {**edit, "content": "y"}),  # key reused
        ("edit_knowledge_article", {**edit, "idempotency_key": "k2"}),  # version conflict
        ("edit_knowledge_article", {**edit, "article_id": "nope", "idempotency_key": "k3"}),
        (
            "poll_resource_events",
            {"resource_type": "knowledge_base", "resource_id": KB, "after_sequence": 99},
        ),  # ahead of the log
        ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB}),
    ]

    async def main() -> None:
        over_mcp, direct = _twin_stores()
        async with Client(build_server(over_mcp), mode="legacy") as client:
            for tool, args in calls:
                got = await client.call_tool(tool, args)
                want = direct.call(tool, args)
                assert got.is_error == want.is_error, (tool, args)
                assert got.structured_content == want.structured
                assert got.content[0].text == want.text

    anyio.run(main)


def test_a_replayed_edit_over_mcp_is_a_replay() -> None:
    async def main() -> None:
        over_mcp, _ = _twin_stores()
        async with Client(build_server(over_mcp), mode="legacy") as client:
            read = await client.call_tool(
                "read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a1"}
            )
            args = {
                "knowledge_base_id": KB,
                "article_id": "a1",
                "content": "new",
                "expected_version": read.structured_content["updated_at"],
                "idempotency_key": "k1",
            }
            first = await client.call_tool("edit_knowledge_article", args)
            again = await client.call_tool("edit_knowledge_article", args)
            assert first.structured_content["replayed"] is False
            assert again.structured_content["replayed"] is True
            assert (
                again.structured_content["event_sequence"]
                == (first.structured_content["event_sequence"])
            )
            poll = await client.call_tool(
                "poll_resource_events",
                {
                    "resource_type": "knowledge_base",
                    "resource_id": KB,
                    "after_sequence": first.structured_content["event_sequence"],
                },
            )
            assert poll.structured_content["events"] == []

    anyio.run(main)


def test_serve_over_stdio_with_a_live_human_editor(
    tmp_path: Path, serve_command: list[str]
) -> None:
    db = tmp_path / "kb.sqlite"
    params = StdioServerParameters(
        command=serve_command[0],
        args=[
            *serve_command[1:],
            "--articles",
            "40",
            "--db",
            str(db),
            "--create",
            "--human-edits-per-minute",
            "1200",
        ],
        cwd=str(Path(__file__).resolve().parents[1]),
    )

    async def main() -> None:
        async with Client(params) as client:
            assert published(_tool_dicts((await client.list_tools()).tools)) == FIXTURE
            hits = await client.call_tool(
                "search_knowledge_base", {"knowledge_base_id": "kb-support", "query": "password"}
            )
            assert not hits.is_error
            head = (
                await client.call_tool(
                    "poll_resource_events",
                    {"resource_type": "knowledge_base", "resource_id": "kb-support"},
                )
            ).structured_content["head_sequence"]
            with anyio.fail_after(20):
                while True:
                    await anyio.sleep(0.2)
                    r = await client.call_tool(
                        "poll_resource_events",
                        {
                            "resource_type": "knowledge_base",
                            "resource_id": "kb-support",
                            "after_sequence": head,
                        },
                    )
                    if r.structured_content["events"]:
                        break
            assert r.structured_content["events"][0]["type"] == "saved"

    anyio.run(main)
    assert db.exists()


def test_serve_refuses_a_kb_file_of_another_schema_version(
    tmp_path: Path, serve_command: list[str]
) -> None:
    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE kbs (kb_id TEXT PRIMARY KEY)")
    before = db.read_bytes()
    run = subprocess.run(
        [*serve_command, "--db", str(db)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert run.returncode == 2
    assert "schema version 0; this code reads version 5" in run.stderr
    assert "Traceback" not in run.stderr
    assert db.read_bytes() == before


MCP_SEEDS = {False: [1], True: [1, 2]}
"""A day over MCP costs about six direct ones (the SDK's client and server on both ends):
`make test` compares seed 1, `make check` (--deep) seeds 1 and 2."""
MCP_DAY = Params(n_questions=40)
"""The write-up's day with a third of its questions: on seed 1 its CAS day still has first
tries that succeed, meet a human's save, meet the agent's own edit, or find the article
gone, retries and replays (33 ok, 4 human and 2 agent conflicts, 1 gone), and its staleness
day every kind of read, at about half the CPU."""


@pytest.mark.deep
@pytest.mark.parametrize("experiment", ["staleness", "cas"])
def test_every_record_of_a_day_is_identical_through_mcp(experiment: str, deep: bool) -> None:
    """The staleness day makes every kind of read (search, read, poll; the checker's three
    methods) and the CAS day every kind of edit (saves, conflicts, retries, replays); the
    control is the staleness day with other articles."""
    seeds = MCP_SEEDS[deep]
    direct = run_study(MCP_DAY, seeds, (experiment,), workers=1, progress=False)
    mcp = run_study(
        replace(MCP_DAY, transport="mcp"), seeds, (experiment,), workers=1, progress=False
    )
    for a, b in zip(direct.frames(), mcp.frames(), strict=True):
        pd.testing.assert_frame_equal(a, b)
    if experiment == "cas":
        causes = set(direct.edits["conflict_cause"]) | set(direct.edits["first_outcome"])
        assert {"ok", "human", "agent", "gone"} <= causes, causes
        assert direct.edits["replayed"].any()


def test_the_methods_a_refusal_names_are_those_of_the_requests_era() -> None:
    from mcp_types.version import LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

    from sim.server.methods import answered

    over_mcp, _ = _twin_stores()
    server = build_server(over_mcp)
    legacy, modern = (
        answered(server, LATEST_HANDSHAKE_VERSION),
        answered(server, MODERN_PROTOCOL_VERSIONS[-1]),
    )
    assert {"initialize", "ping", "resources/subscribe", "tools/call"} <= set(legacy)
    assert "subscriptions/listen" not in legacy and "initialize" not in modern
    assert {"subscriptions/listen", "tools/call", "resources/read"} <= set(modern)
    assert not {"prompts/list", "completion/complete"} & set(legacy + modern)  # not served
