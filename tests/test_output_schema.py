"""Every result of every tool, refusals included, validates against the outputSchema that
tool declares, under both validators hosts use: ajv's draft-07 (TypeScript SDK 1.x, MCP
Inspector, which check a result's structuredContent whether or not isError is set) and
Draft 2020-12 (the Python SDK's jsonschema), formats checked."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator, FormatChecker

from sim.kb.store import KBStore
from sim.server.edit import EDIT_TOOL
from sim.server.listing import OUTPUT_SCHEMAS
from sim.server.tools import KBServer, Session, ToolResult
from tests.conftest import ARTICLES, KB, ManualClock, edit_args, examples, read
from tests.test_kb_fuzz import ANY_CHAR, JSON, VALID, calls

VALIDATORS = {
    name: [
        cls(schema, format_checker=FormatChecker())
        for cls in (Draft7Validator, Draft202012Validator)
    ]
    for name, schema in OUTPUT_SCHEMAS.items()
}


def _conforms(tool: str, result: ToolResult) -> None:
    if tool not in VALIDATORS:  # an unknown tool declares no schema to check against
        return
    for validator in VALIDATORS[tool]:
        errors = [e.message for e in validator.iter_errors(result.structured)]
        assert not errors, (tool, result.structured, errors[:3])


def _session(gated: bool) -> tuple[KBServer, Session, ManualClock]:
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    server = KBServer(store, clock, write_gate=gated)
    return server, server.connect("fuzzer", [KB]), clock


def test_the_schemas_are_valid_in_both_drafts_and_rooted_at_an_object() -> None:
    for schema in OUTPUT_SCHEMAS.values():
        Draft7Validator.check_schema(schema)
        Draft202012Validator.check_schema(schema)
        assert schema["type"] == "object"  # MCP: an outputSchema's root is an object


@pytest.mark.parametrize("gated", [False, True])
def test_every_success_and_every_refusal_shape_conforms(gated: bool) -> None:
    """Each tool's success, and the refusals the edit can give, seen at least once."""
    server, session, clock = _session(gated)
    seen: set[str] = set()

    def call(tool: str, args: Any) -> ToolResult:
        r = session.call(tool, args)
        _conforms(tool, r)
        seen.add(r.structured["error"]["code"] if r.is_error else f"ok:{tool}")
        return r

    for tool, args in VALID.items():
        call(tool, {k: v for k, v in args.items() if k != "title"})
    version = read(session, "a1")["updated_at"]
    args = edit_args("a1", version, "k2")
    if gated:
        call(EDIT_TOOL, args)  # approval_required
        server.decide_approval(session.request_approval(args), True, "tester")
    call(EDIT_TOOL, args)
    call(EDIT_TOOL, args)  # replay
    call(EDIT_TOOL, {**args, "content": "other"})  # key reused
    call(EDIT_TOOL, edit_args("a1", version, "k3"))  # stale: version conflict
    call(EDIT_TOOL, edit_args("nope", version, "k4"))
    call("poll_resource_events", {**VALID["poll_resource_events"], "after_sequence": 10**6})
    call("read_knowledge_article", {"knowledge_base_id": "kb-x", "article_id": "a1"})
    call("search_knowledge_base", {"knowledge_base_id": KB, "query": 5})
    clock.advance(1)
    want = {f"ok:{t}" for t in VALID} | {
        "version_conflict",
        "idempotency_key_reused",
        "article_not_found",
        "sequence_ahead_of_log",
        "knowledge_base_not_found",
        "invalid_argument",
    }
    assert want <= seen, want - seen
    assert gated == ("approval_required" in seen)


def test_an_internal_error_conforms_too(monkeypatch: pytest.MonkeyPatch) -> None:
    _, session, _ = _session(False)

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("injected")

    monkeypatch.setattr(session.server.store, "search", broken)
    r = session.call("search_knowledge_base", VALID["search_knowledge_base"])
    assert r.structured["error"]["code"] == "internal_error"
    _conforms("search_knowledge_base", r)


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    sequence=st.lists(calls(), min_size=1, max_size=4),
    gated=st.booleans(),
    stray_tool=st.one_of(st.none(), st.text(ANY_CHAR, max_size=12), JSON),
)
def test_every_result_over_fuzzed_arguments_conforms_to_the_declared_schema(
    sequence: list[tuple[str, Any]], gated: bool, stray_tool: Any
) -> None:
    _, session, _ = _session(gated)
    for tool, args in sequence:  # a few calls in a row: replays, reused keys, conflicts
        _conforms(tool, session.call(tool, args))
    if stray_tool is not None:
        r = session.call(stray_tool, {})
        assert r.is_error or stray_tool in VALIDATORS
        if isinstance(stray_tool, str) and stray_tool in VALIDATORS:
            _conforms(stray_tool, r)
