"""The tools under hostile input: any JSON value in any argument gets a result, never an
exception; one call-log line per call; a refusal changes no table, FTS shadow tables
included; every result encodes as UTF-8 and stays small."""

from __future__ import annotations

import json
import threading
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.kb.store import KBStore
from sim.kb.versions import format_version
from sim.server import validation
from sim.server.tools import KBServer
from sim.server.validation import TOOLS, ArgumentProblem
from tests.conftest import ARTICLES, KB, START_US, ManualClock, examples

# Every character, lone surrogates included (hypothesis leaves them out by default).
ANY_CHAR = st.characters(exclude_categories=())
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**63, 2**64, -(2**63) - 1])
    | st.integers(-1, 1).map(lambda sign: sign * 10**5000)  # too long even to print
    | st.floats()
    | st.text(ANY_CHAR, max_size=30)
    | st.sampled_from(["\ud800", "a\udfffb", "\x00", "x" * 1_000_000, "2026-11-08T09:00:00Z"])
)


def _deep(depth: int, kind: str) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(ANY_CHAR), inner),
    max_leaves=6,
) | st.sampled_from([_deep(5_000, "list"), _deep(5_000, "dict")])

PROPERTIES = {t["name"]: list(t["inputSchema"]["properties"]) for t in TOOLS}
VALID = {
    "search_knowledge_base": {"knowledge_base_id": KB, "query": "password", "limit": 3},
    "read_knowledge_article": {"knowledge_base_id": KB, "article_id": "a1"},
    "edit_knowledge_article": {
        "knowledge_base_id": KB,
        "article_id": "a1",
        "content": "new body",
        "expected_version": format_version(START_US),
        "idempotency_key": "k",
        "title": "New title",
    },
    "poll_resource_events": {
        "resource_type": "knowledge_base",
        "resource_id": KB,
        "after_sequence": 0,
        "limit": 10,
    },
}


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, Any]:
    tool = draw(st.sampled_from(sorted(VALID)))
    if draw(st.integers(0, 9)) == 0:
        return tool, draw(JSON)  # arguments that are no object at all
    args = dict(VALID[tool])
    for name in draw(st.lists(st.sampled_from(PROPERTIES[tool]), max_size=3, unique=True)):
        if draw(st.booleans()):
            args[name] = draw(JSON)
        else:
            args.pop(name, None)
    if draw(st.integers(0, 4)) == 0:
        args[draw(st.text(ANY_CHAR, max_size=8))] = draw(JSON)
    return tool, args


def _fresh() -> tuple[KBServer, Any]:
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    server = KBServer(store, clock)
    return server, server.connect("fuzzer", [KB])


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(call=calls())
def test_any_json_in_any_argument_gets_a_result_and_a_refusal_changes_nothing(
    call: tuple[str, Any],
) -> None:
    server, session = _fresh()
    tool, args = call
    before = server.store.snapshot()
    result = session.call(tool, args)  # must not raise
    assert len(server.log) == 1
    logged = server.log.records[0]
    assert logged.outcome != "internal_error", result.text
    result.text.encode("utf-8")  # no lone surrogate reaches a client
    assert len(logged.tool) < 100 and len(json.dumps(logged.args)) < 2_000
    if result.is_error:
        assert server.store.snapshot() == before
        err = result.structured["error"]
        assert len(result.text) < 4_000, result.text[:200]
        if err["code"] in ("invalid_argument", "missing_argument", "unknown_argument"):
            assert err["argument"] in result.structured["message"]
            assert err["allowed"] and err["received"] and err["what_to_do"]


def _whole_object_problem(tool: str, args: dict[str, Any]) -> ArgumentProblem | None:
    """The check as it was before values were checked one by one: names, then jsonschema
    over the whole object, then the text."""
    schema = validation._SCHEMAS[tool]
    if any(n not in args for n in schema["required"]) or any(
        n not in schema["properties"] for n in args
    ):
        return validation.check_arguments(tool, args)  # the names' checks are unchanged
    if any(True for _ in validation._VALIDATORS[tool].iter_errors(args)):
        return validation._schema_problem(tool, args)
    return validation._text_problem(args)


# Values of the right type near each limit, valid and not, besides any JSON at all.
NEAR_LIMITS = (
    st.text(ANY_CHAR, max_size=3)
    | st.text(min_size=198, max_size=202)
    | st.integers(-2, 102)
    | st.sampled_from(["2026-11-08T09:00:00Z", "2026-13-45T99:00:00Z", "yesterday", "", "\ud800"])
    | JSON
)


@st.composite
def argument_sets(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    tool = draw(st.sampled_from(sorted(VALID)))
    args = dict(VALID[tool])
    for name in draw(st.lists(st.sampled_from(PROPERTIES[tool]), max_size=3, unique=True)):
        if draw(st.integers(0, 4)):
            args[name] = draw(NEAR_LIMITS)
        else:
            args.pop(name, None)
    return tool, args


@settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(call=argument_sets())
def test_values_checked_one_by_one_and_remembered_answer_as_the_whole_object(
    call: tuple[str, dict[str, Any]],
) -> None:
    tool, args = call
    assert validation.check_arguments(tool, VALID[tool]) is None  # valid values remembered
    expected = _whole_object_problem(tool, args)
    assert validation.check_arguments(tool, args) == expected
    assert validation.check_arguments(tool, args) == expected  # now from memory too


@settings(max_examples=examples(60), deadline=None)
@given(tool=st.sampled_from(sorted(VALID)), name=JSON, args=JSON)
def test_any_tool_name_and_any_arguments_value(tool: str, name: Any, args: Any) -> None:
    server, session = _fresh()
    before = server.store.snapshot()
    for n, a in ((name, VALID[tool]), (tool, args)):
        r = session.call(n, a)
        r.text.encode("utf-8")
        if r.is_error:
            assert r.structured["error"]["code"] != "internal_error"
    assert len(server.log) == 2
    if server.store.snapshot() != before:  # only a valid edit may write
        assert tool == "edit_knowledge_article" and not isinstance(name, str)


def test_a_store_used_from_many_threads_serialises_every_operation() -> None:
    """The MCP bridge calls the tools from its loop thread while humans save from another."""
    clock = ManualClock()
    store = KBStore(clock)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    server = KBServer(store, clock)
    errors: list[BaseException] = []
    per_thread = 200

    def human() -> None:
        try:
            for i in range(per_thread):
                store.save(KB, "a2", f"human text {i}")
        except BaseException as e:
            errors.append(e)

    def agent(n: int) -> None:
        session = server.connect(f"agent{n}", [KB])
        try:
            for i in range(per_thread):
                v = session.call(
                    "read_knowledge_article", {"knowledge_base_id": KB, "article_id": "a1"}
                ).structured["updated_at"]
                edit = {
                    "knowledge_base_id": KB,
                    "article_id": "a1",
                    "content": f"agent {n} text {i}",
                    "expected_version": v,
                    "idempotency_key": f"k{i}",
                }
                session.call("edit_knowledge_article", edit)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=human)] + [
        threading.Thread(target=agent, args=(n,)) for n in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    events = store.all_events(KB)
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    saves = [e for e in events if e.type == "saved"]
    assert sum(e.actor == "human" for e in saves) == per_thread
    outcomes = [c.outcome for c in server.log.records if c.tool == "edit_knowledge_article"]
    assert sum(o == "ok" for o in outcomes) == sum(e.actor == "agent" for e in saves)
    assert set(outcomes) <= {"ok", "version_conflict"}
