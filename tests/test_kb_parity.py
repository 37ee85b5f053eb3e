"""The tools as listed equal the real server's tools/list (the spec's tools.json)."""

from __future__ import annotations

import json
from pathlib import Path

from sim.kb.tools import KBServer

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "tools.json").read_text())["tools"]


def test_tools_list_equals_the_parity_fixture() -> None:
    assert KBServer.list_tools() == FIXTURE


def test_names_required_limits_and_annotations() -> None:
    tools = {t["name"]: t for t in KBServer.list_tools()}
    assert list(tools) == [
        "search_knowledge_base",
        "read_knowledge_article",
        "edit_knowledge_article",
        "poll_resource_events",
    ]
    q = tools["search_knowledge_base"]["inputSchema"]["properties"]
    assert (q["query"]["minLength"], q["query"]["maxLength"]) == (2, 200)
    assert (q["limit"]["minimum"], q["limit"]["maximum"]) == (1, 20)
    p = tools["poll_resource_events"]["inputSchema"]["properties"]
    assert p["after_sequence"]["minimum"] == 0
    assert (p["limit"]["minimum"], p["limit"]["maximum"]) == (1, 100)
    e = tools["edit_knowledge_article"]
    assert e["inputSchema"]["properties"]["expected_version"]["format"] == "date-time"
    assert set(e["inputSchema"]["required"]) == {
        "knowledge_base_id",
        "article_id",
        "content",
        "expected_version",
        "idempotency_key",
    }
    assert e["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": True,
    }
    for name in ("search_knowledge_base", "read_knowledge_article", "poll_resource_events"):
        assert tools[name]["annotations"] == {"readOnlyHint": True}


def test_list_tools_hands_out_a_copy() -> None:
    KBServer.list_tools()[0]["name"] = "changed"
    assert KBServer.list_tools() == FIXTURE
