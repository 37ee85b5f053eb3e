"""The server as hosts use it, over stdio: what the approval prompt shows and how long it
is, no prompt for a write that cannot succeed, and every way asking can fail (a client
that can show no form, a prompt handler that fails, a malformed answer, an answer after
the client's own timeout, a forged requestState) is an isError refusal that wrote
nothing, never a JSON-RPC error."""

from __future__ import annotations

import difflib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from sim.bench.stdio import INITIALIZED, RawClient, tool_call
from sim.kb.rows import Article
from sim.model.opening import KB_ID
from sim.server.approval_prompt import (
    MAX_DIFF_LINES,
    MAX_LINE_CHARS,
    MAX_PROMPT_CHARS,
    approval_prompt,
)
from sim.server.edit import EDIT_TOOL
from sim.server.mcp_server import PACKAGE
from tests.conftest import examples

ROOT = Path(__file__).resolve().parents[1]
ARTICLE = "art-00001"
READ = {"knowledge_base_id": KB_ID, "article_id": ARTICLE}
V1 = 1_794_000_000_000_000
CURRENT = Article(
    KB_ID,
    "art-00003",
    "How to reset the password in the web app",
    "Open Settings and choose Password.\nPick Reset and follow the link we email you.\n"
    "Links expire after one hour.",
    True,
    V1,
)


def _server(serve: list[str], *flags: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=serve[0],
        args=[*serve[1:], "--articles", "5", "--write-gate", *flags],
        cwd=str(ROOT),
    )


def _edit(version: str, key: str = "k1", **extra: Any) -> dict[str, Any]:
    return {
        **READ,
        "content": "A new body.",
        "expected_version": version,
        "idempotency_key": key,
        **extra,
    }


# -- the prompt ----------------------------------------------------------------------
def test_a_body_edit_prompt_shows_title_diff_version_and_what_approving_does() -> None:
    new = CURRENT.content.replace("one hour", "24 hours")
    prompt = approval_prompt(7, CURRENT, new, None)
    assert "“How to reset the password in the web app” (art-00003" in prompt
    assert "-Links expire after one hour.\n+Links expire after 24 hours." in prompt
    assert "Body: 1 line(s) removed, 1 added:" in prompt
    assert "only if the article is still at version 2026-11-06T" in prompt
    assert "Declining writes nothing. Approval 7 covers this call only." in prompt
    assert "Title" not in prompt.split("\n\n", 2)[1]  # the title is left as it is


def test_a_retitle_prompt_shows_old_and_new_title_and_an_unchanged_body() -> None:
    prompt = approval_prompt(8, CURRENT, CURRENT.content, "Resetting your password")
    assert "Title: “How to reset the password in the web app” → “Resetting your password”" in prompt
    assert "Body: unchanged." in prompt


def test_a_second_request_for_the_same_write_says_so() -> None:
    from sim.kb.rows import Approval
    from sim.server.approval_prompt import Earlier

    first = Approval(1, KB_ID, "c", EDIT_TOOL, ARTICLE, "d", V1, 60, "pending", 0, "", 0)
    prompt = approval_prompt(2, CURRENT, "x", None, Earlier(first, "got no answer"), 2)
    assert "This is request 2 for this same edit: approval 1, asked at" in prompt
    assert "got no answer" in prompt


LONG_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=5_000) | st.builds(
    lambda n, w: "\n".join(w * (i % 7 + 1) for i in range(n)),
    st.integers(0, 3_000),
    st.sampled_from(["word ", "x" * 400, "\n"]),
)


@settings(max_examples=examples(120), deadline=None)
@given(old=LONG_TEXT, new=LONG_TEXT, title=st.none() | st.text(max_size=2_000))
def test_every_prompt_fits_what_a_host_can_show_and_says_what_it_cut(
    old: str, new: str, title: str | None
) -> None:
    current = Article(KB_ID, "a" * 200, "t" * 2_000, old, True, V1)
    prompt = approval_prompt(123456789, current, new, title)
    assert len(prompt) <= MAX_PROMPT_CHARS
    assert prompt.endswith("Approval 123456789 covers this call only.")
    full = list(difflib.unified_diff(old.splitlines(), new.splitlines(), n=1, lineterm=""))[2:]
    if len(full) > MAX_DIFF_LINES or any(len(x) > MAX_LINE_CHARS for x in full):
        assert "not shown]" in prompt  # what was cut is said, in lines and characters
    elif old != new:
        assert all(x in prompt for x in full)  # a small diff is shown whole


# -- over stdio, both eras -----------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_client_stale_version_is_refused_without_a_prompt_and_prompts_show_the_edit(
    mode: str, serve_command: list[str]
) -> None:
    prompts: list[str] = []

    async def accept(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        return types.ElicitResult(action="accept", content={})

    async def main() -> tuple[Any, ...]:
        async with Client(_server(serve_command), elicitation_callback=accept, mode=mode) as client:
            info, caps = client.server_info, client.server_capabilities
            read = await client.call_tool("read_knowledge_article", READ)
            version = read.structured_content["updated_at"]
            stale = await client.call_tool(EDIT_TOOL, _edit("2020-01-01T00:00:00Z"))
            prompts_before = len(prompts)
            saved = await client.call_tool(EDIT_TOOL, _edit(version))
            fresh = saved.structured_content["updated_at"]
            retitled = await client.call_tool(
                EDIT_TOOL, _edit(fresh, "k2", content="A new body.", title="A new title")
            )
            return info, caps, stale, prompts_before, saved, retitled

    info, caps, stale, prompts_before, saved, retitled = anyio.run(main)
    assert info.version == importlib.metadata.version(PACKAGE)
    assert caps.tools.list_changed is False and caps.resources.list_changed is False
    assert stale.is_error and stale.structured_content["error"]["code"] == "version_conflict"
    assert prompts_before == 0  # nobody is asked about a write that cannot succeed
    assert not saved.is_error and not retitled.is_error
    body_prompt, title_prompt = prompts
    assert "-This article explains" in body_prompt and "+A new body." in body_prompt
    assert "Title: “" in title_prompt and "→ “A new title”" in title_prompt
    assert "Body: unchanged." in title_prompt


def _raw(serve: list[str], capabilities: dict[str, Any], version: str = "2025-06-18") -> RawClient:
    client = RawClient("--articles", "5", "--write-gate", serve=serve)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
    )
    assert client.receive() is not None
    client.send(INITIALIZED)
    client.send(tool_call(1, "read_knowledge_article", READ))
    return client


def _version(client: RawClient) -> str:
    answer = client.receive()
    assert answer is not None
    return answer["result"]["structuredContent"]["updated_at"]


def test_a_client_with_url_mode_elicitation_only_is_not_sent_a_form_and_is_told_why(
    serve_command: list[str],
) -> None:
    client = _raw(serve_command, {"elicitation": {"url": {}}}, "2025-11-25")
    client.send(tool_call(2, EDIT_TOOL, _edit(_version(client))))
    answer = client.receive()
    assert answer is not None and answer.get("id") == 2, answer  # no elicitation/create came
    result = answer["result"]
    assert result["isError"] and result["structuredContent"]["error"]["code"] == "approval_required"
    assert "URL mode only" in result["content"][0]["text"]
    assert "Nothing was written" in result["content"][0]["text"]
    assert "Traceback" not in client.close()


MALFORMED_REPLIES = [
    {"result": {"action": "maybe"}},
    {"result": "yes"},
    {"error": {"code": -1, "message": "no"}},
]


def test_a_malformed_or_failed_answer_is_a_refusal_not_a_protocol_error(
    serve_command: list[str],
) -> None:
    """One session, one edit per reply (a refusal writes nothing, so each is sent with the
    version read first): a bad answer never poisons the next prompt."""
    client = _raw(serve_command, {"elicitation": {}})
    version = _version(client)
    for i, reply in enumerate(MALFORMED_REPLIES, start=2):
        client.send(tool_call(i, EDIT_TOOL, _edit(version, f"k{i}", content=f"Body {i}.")))
        ask = client.receive()
        assert ask is not None and ask["method"] == "elicitation/create", (reply, ask)
        assert "mode" not in ask["params"]  # 2025-06-18 has no such field
        assert "This is request" not in ask["params"]["message"]  # a new edit, a first prompt
        client.send({"jsonrpc": "2.0", "id": ask["id"], **reply})
        answer = client.receive()
        assert answer is not None and answer.get("id") == i and "result" in answer, (reply, answer)
        result = answer["result"]
        assert result["isError"], reply
        assert result["structuredContent"]["error"]["code"] == "approval_required", reply
        text = result["content"][0]["text"]
        assert "got no usable answer" in text and "Nothing was written" in text, reply
    assert "Traceback" not in client.close()


def test_a_prompt_handler_that_fails_is_a_refusal_and_the_next_prompt_says_it_asks_again(
    serve_command: list[str],
) -> None:
    prompts: list[str] = []

    async def flaky(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        if len(prompts) == 1:
            raise RuntimeError("the dialog could not be drawn")
        return types.ElicitResult(action="accept", content={})

    async def main() -> tuple[Any, Any]:
        async with Client(
            _server(serve_command), elicitation_callback=flaky, mode="legacy"
        ) as client:
            read = await client.call_tool("read_knowledge_article", READ)
            args = _edit(read.structured_content["updated_at"])
            return await client.call_tool(EDIT_TOOL, args), await client.call_tool(EDIT_TOOL, args)

    failed, saved = anyio.run(main)
    assert failed.is_error and failed.structured_content["error"]["code"] == "approval_required"
    assert "failed to show it" in failed.content[0].text
    assert "Nothing was written" in failed.content[0].text
    assert not saved.is_error
    assert "This is request 2 for this same edit: approval 1" in prompts[1]


def test_an_answer_after_the_clients_timeout_is_recorded_and_the_retry_uses_it(
    tmp_path: Path, serve_command: list[str]
) -> None:
    """The person answers a second after the prompt, the client gave up after a quarter of
    one: the retry, sent at once, finds the prompt still open (what the bounds' sizes do
    not change: a second for a host's person, not two, took a second off this test's wall)."""
    prompts: list[str] = []
    log = tmp_path / "calls.jsonl"

    async def slow(_context: Any, request: Any) -> types.ElicitResult:
        prompts.append(request.message)
        await anyio.sleep(1.0)
        return types.ElicitResult(action="accept", content={})

    async def main() -> tuple[str, Any, Any]:
        server = _server(serve_command, "--call-log", str(log))
        async with Client(server, elicitation_callback=slow, mode="legacy") as client:
            read = await client.call_tool("read_knowledge_article", READ)
            args = _edit(read.structured_content["updated_at"])
            try:
                await client.call_tool(EDIT_TOOL, args, read_timeout_seconds=0.25)
                first = "answered"
            except MCPError as e:
                first = f"timed out: {e.error.code}"
            retry = await client.call_tool(EDIT_TOOL, args)  # while the prompt is still open
            again = await client.call_tool(EDIT_TOOL, args)
            return first, retry, again

    first, retry, again = anyio.run(main)
    assert first.startswith("timed out")
    assert len(prompts) == 1  # the person is asked once
    assert not retry.is_error, retry.content[0].text
    assert again.structured_content["replayed"] is True
    rows = [json.loads(x) for x in log.read_text().splitlines()]
    writes = [r for r in rows if r.get("tool") == EDIT_TOOL and r.get("outcome") == "ok"]
    granted = [r for r in rows if r.get("kind") == "approval" and r["decision"] == "granted"]
    assert len(granted) == 1 and len(writes) >= 1


_MODERN_META = {
    types.PROTOCOL_VERSION_META_KEY: "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


FORGED_STATES = [
    "approval:²",
    "approval:" + "9" * 5_000,
    "approval:1",
    "x",
    42,
    {"a": [1]},
    [],
    True,
    1.5,
]


def test_a_forged_request_state_gets_a_clear_refusal_and_writes_nothing(
    serve_command: list[str],
) -> None:
    """2026-07-28 era: the first call returns the question as input required with
    requestState approval:N; a retry with another call's or a forged state is refused. One
    session goes through every forged state in turn, each round on the article as the last
    round left it: a refusal leaves nothing behind that the next round would meet."""
    client = RawClient("--articles", "5", "--write-gate", serve=serve_command)
    ids = iter(range(1, 1_000))

    def call(name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
        params = {"name": name, "arguments": args, "_meta": _MODERN_META, **extra}
        client.send({"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": params})
        answer = client.receive()
        assert answer is not None
        return answer

    answer = {"approval": {"action": "accept", "content": {}}}
    for round_, state in enumerate(FORGED_STATES):
        version = call("read_knowledge_article", READ)["result"]["structuredContent"]["updated_at"]
        args = _edit(version, f"k{round_}", content=f"A new body, round {round_}.")
        asked = call(EDIT_TOOL, args)["result"]
        n = int(asked["requestState"].removeprefix("approval:"))
        assert "approval" in asked["inputRequests"], state
        other = {**args, "content": "Something else."}  # approval n is of other arguments
        reply = call(EDIT_TOOL, other, requestState=state, inputResponses=answer)
        if "error" in reply:  # a state that is no string: invalid params, in this server's words
            assert reply["error"]["code"] == -32602, state
            assert "requestState" in reply["error"]["message"], state
        else:
            result = reply["result"]
            assert result["isError"], (state, result)
            assert result["structuredContent"]["error"]["code"] == "approval_required", state
            assert "Nothing was written" in result["content"][0]["text"], state
        malformed = call(
            EDIT_TOOL, args, requestState=f"approval:{n}", inputResponses={"approval": {"x": 1}}
        )
        assert malformed["result"]["isError"], state
        assert "no valid elicitation result" in malformed["result"]["content"][0]["text"], state
        again = call(EDIT_TOOL, args)["result"]  # the answer to approval n was dropped: asked anew
        assert again["requestState"] == f"approval:{n + 1}", state
        message = again["inputRequests"]["approval"]["params"]["message"]
        assert f"This is request 2 for this same edit: approval {n}" in message, state
        assert again["inputRequests"]["approval"]["params"]["mode"] == "form"  # 2026-07-28 has it
        saved = call(EDIT_TOOL, args, requestState=f"approval:{n + 1}", inputResponses=answer)
        assert not saved["result"]["isError"], (state, saved)
    assert "Traceback" not in client.close()
