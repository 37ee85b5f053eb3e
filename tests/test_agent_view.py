"""What an agent connected to `python -m sim serve` sees, through the SDK's own client over
real stdio: the KB id and defaults before any call, the sentence first in every result,
each machine value once, nothing asserted that the server did not observe, and a call
log that reproduces the client's call and character counts exactly."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from sim.model.opening import KB_ID
from sim.server.calllog import read_jsonl
from sim.server.logreport import summarise

ROOT = Path(__file__).resolve().parents[1]


def _received(result: Any) -> int:
    structured = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return len(result.content[0].text) + len(structured)


def _opens_with_a_sentence(text: str) -> bool:
    """Prose, not a JSON dump: the first line is words ending in a full stop."""
    first = text.splitlines()[0]
    return bool(re.match(r"^\w", first)) and first.endswith(".") and len(first.split()) > 4


def test_an_sdk_client_over_stdio_sees_what_the_rules_promise(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sim", "serve", "--articles", "60", "--call-log", str(log)],
        cwd=str(ROOT),
    )
    received: list[tuple[str, int]] = []

    async def main() -> None:
        async with Client(params) as client:
            # discovery: the KB id and the defaults, before any call
            assert client.instructions is not None and KB_ID in client.instructions
            assert "returns 5 hits" in client.instructions
            tools = (await client.list_tools()).tools
            for tool in tools:
                for prop in tool.input_schema["properties"].values():
                    assert prop.get("description"), tool.name
                assert tool.output_schema is not None
                if tool.annotations.read_only_hint:
                    assert tool.annotations.open_world_hint is False

            async def call(name: str, arguments: dict[str, Any]) -> Any:
                result = await client.call_tool(name, arguments)
                received.append((name, _received(result)))
                assert _opens_with_a_sentence(result.content[0].text), result.content[0].text
                return result

            found = await call(
                "search_knowledge_base",
                {"knowledge_base_id": KB_ID, "query": "how to reset the password in the web app"},
            )
            s = found.structured_content
            assert len(s["hits"]) == 5 and s["total_matches"] > 5 and s["complete"] is False
            assert json.dumps(s).count(KB_ID) == 1  # the KB id once, not once per hit
            assert found.content[0].text.count("\n") == 5  # the sentence, then a line a hit
            assert "at least one of the words: reset, password, web, app;" in found.content[0].text
            assert "showing the 5 most relevant (limit goes up to 20)" in found.content[0].text

            common = await call(
                "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "how do I the"}
            )
            assert common.content[0].text.startswith("Nothing was searched")

            article = s["hits"][0]["article_id"]
            read = await call(
                "read_knowledge_article", {"knowledge_base_id": KB_ID, "article_id": article}
            )
            version = read.structured_content["updated_at"]
            assert json.dumps(read.structured_content).count(version) == 1

            edit = {
                "knowledge_base_id": KB_ID,
                "article_id": article,
                "content": "A new body.",
                "expected_version": version,
                "idempotency_key": "k1",
            }
            saved = await call("edit_knowledge_article", edit)
            new = saved.structured_content["updated_at"]
            assert json.dumps(saved.structured_content).count(new) == 1
            assert saved.content[0].text.count(new) == 1
            replay = await call("edit_knowledge_article", edit)
            assert replay.structured_content["replayed"] is True
            assert "re-read it before a further edit" in replay.content[0].text

            never = await call(
                "edit_knowledge_article",
                {**edit, "expected_version": "2001-01-01T00:00:00Z", "idempotency_key": "k2"},
            )
            assert never.is_error
            assert "not a version of it that the event log holds" in never.content[0].text
            assert "after your read" not in never.content[0].text

            page = await call(
                "poll_resource_events",
                {"resource_type": "knowledge_base", "resource_id": KB_ID, "after_sequence": 0},
            )
            assert page.content[0].text.startswith("61 events on 60 articles after sequence 0")

            ahead = await call(
                "poll_resource_events",
                {"resource_type": "knowledge_base", "resource_id": KB_ID, "after_sequence": 10**6},
            )
            assert ahead.is_error and "cannot come from" not in ahead.content[0].text

            refused = await call(
                "search_knowledge_base", {"knowledge_base_id": KB_ID, "query": "x"}
            )
            err = refused.structured_content["error"]
            assert err["what_to_do"] not in refused.structured_content["message"]

    anyio.run(main)
    logged = read_jsonl(log)
    assert [(c.tool, c.result_chars) for c in logged] == received
    (total,) = [r for r in summarise(logged) if r["tool"] == "all tools"]
    assert (total["calls"], total["chars"]) == (len(received), sum(n for _, n in received))
    assert all("query" not in c.args or isinstance(c.args["query"], dict) for c in logged)
