"""The tools as listed carry the real server's tools/list (the spec's tools.json) exactly,
and add only descriptions, output schemas and openWorldHint: false on read-only tools."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from sim.server.listing import PROPERTY_DESCRIPTIONS, instructions
from sim.server.tools import KBServer

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "tools.json").read_text())["tools"]


def published(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listed tools less what this server adds: must equal the real server's list."""
    out = []
    for tool in copy.deepcopy(tools):
        tool.pop("outputSchema", None)
        for schema in tool["inputSchema"]["properties"].values():
            schema.pop("description", None)
        if (
            tool["annotations"].get("readOnlyHint")
            and tool["annotations"].get("openWorldHint") is False
        ):
            del tool["annotations"]["openWorldHint"]
        out.append(tool)
    return out


def test_published_fields_equal_the_parity_fixture() -> None:
    assert published(KBServer.list_tools()) == FIXTURE


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
        assert tools[name]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}


def test_every_input_property_is_described_and_every_output_schema_is_valid() -> None:
    for tool in KBServer.list_tools():
        for name, schema in tool["inputSchema"]["properties"].items():
            assert schema["description"] == PROPERTY_DESCRIPTIONS[tool["name"]][name]
            assert len(schema["description"]) > 20
        Draft202012Validator.check_schema(tool["outputSchema"])
    limits = {
        t["name"]: t["inputSchema"]["properties"]["limit"]["description"]
        for t in KBServer.list_tools()
        if "limit" in t["inputSchema"]["properties"]
    }
    assert "5 if left out" in limits["search_knowledge_base"]
    assert "100 if left out" in limits["poll_resource_events"]


def test_the_instructions_name_the_granted_kbs_and_the_defaults() -> None:
    text = instructions(["kb-b", "kb-a"])
    assert "granted to this session: kb-a, kb-b" in text
    assert "returns 5 hits" in text and "up to 100 events" in text
    assert "Re-read an article right before editing it" in text


def test_list_tools_hands_out_a_copy() -> None:
    KBServer.list_tools()[0]["name"] = "changed"
    assert published(KBServer.list_tools()) == FIXTURE
