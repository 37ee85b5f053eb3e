"""Every tool argument at and beyond each limit: a clear error, and nothing changes."""

from __future__ import annotations

import json

import pytest

from sim.server.tools import KBServer, Session
from sim.server.validation import TOOL_NAMES
from tests.conftest import KB

SEARCH = "search_knowledge_base"
READ = "read_knowledge_article"
EDIT = "edit_knowledge_article"
POLL = "poll_resource_events"


def search(query: object = "password", **extra: object) -> dict:
    return {"knowledge_base_id": KB, "query": query, **extra}


def poll(**extra: object) -> dict:
    return {"resource_type": "knowledge_base", "resource_id": KB, **extra}


def edit(**extra: object) -> dict:
    base = {
        "knowledge_base_id": KB,
        "article_id": "a1",
        "content": "x",
        "expected_version": "2026-11-08T09:00:00.000000Z",
        "idempotency_key": "k",
    }
    return {**base, **extra}


ACCEPTED = [
    (SEARCH, search("ab")),
    (SEARCH, search("x" * 200)),
    (SEARCH, search(limit=1)),
    (SEARCH, search(limit=20)),
    (POLL, poll(after_sequence=0)),
    (POLL, poll(limit=1)),
    (POLL, poll(limit=100)),
]

REFUSED = [
    # (tool, arguments, code, argument named, allowed range named)
    (SEARCH, search("a"), "invalid_argument", "query", "2 to 200 characters"),
    (SEARCH, search("x" * 201), "invalid_argument", "query", "2 to 200 characters"),
    (SEARCH, search(""), "invalid_argument", "query", "2 to 200 characters"),
    (SEARCH, search(limit=0), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(limit=21), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(limit=-1), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(limit=5.0), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(limit=True), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(limit="5"), "invalid_argument", "limit", "from 1 to 20"),
    (SEARCH, search(query=12), "invalid_argument", "query", "2 to 200 characters"),
    (SEARCH, {"query": "password"}, "missing_argument", "knowledge_base_id", "a string"),
    (SEARCH, {"knowledge_base_id": KB}, "missing_argument", "query", "2 to 200"),
    (SEARCH, search(limt=5), "unknown_argument", "limt", "knowledge_base_id, query, limit"),
    (POLL, poll(limit=0), "invalid_argument", "limit", "from 1 to 100"),
    (POLL, poll(limit=101), "invalid_argument", "limit", "from 1 to 100"),
    (POLL, poll(after_sequence=-1), "invalid_argument", "after_sequence", "0 or more"),
    (POLL, poll(after_sequence=1.5), "invalid_argument", "after_sequence", "0 or more"),
    (POLL, poll(after_sequence=None), "invalid_argument", "after_sequence", "0 or more"),
    (POLL, {"resource_type": "knowledge_base"}, "missing_argument", "resource_id", "a string"),
    (POLL, poll(resource_type="kb"), "invalid_argument", "resource_type", "knowledge_base"),
    (
        POLL,
        poll(resource_type="channel"),
        "resource_type_not_simulated",
        "resource_type",
        "knowledge_base",
    ),
    (READ, {"knowledge_base_id": KB}, "missing_argument", "article_id", "a string"),
    (
        READ,
        {"knowledge_base_id": KB, "article_id": 7},
        "invalid_argument",
        "article_id",
        "a string",
    ),
    (EDIT, edit(expected_version="yesterday"), "invalid_argument", "expected_version", "RFC 3339"),
    (
        EDIT,
        edit(expected_version="2026-11-08 09:00"),
        "invalid_argument",
        "expected_version",
        "RFC 3339",
    ),
    (
        EDIT,
        edit(expected_version="2026-11-08T09:00:00"),
        "invalid_argument",
        "expected_version",
        "RFC 3339",
    ),
    (
        EDIT,
        edit(expected_version="0001-01-01T00:00:00+01:00"),  # before year 1 in UTC
        "invalid_argument",
        "expected_version",
        "years 0001 to 9999",
    ),
    (
        EDIT,
        edit(expected_version="9999-12-31T23:59:59-01:00"),  # after year 9999 in UTC
        "invalid_argument",
        "expected_version",
        "years 0001 to 9999",
    ),
    (EDIT, edit(title="   "), "invalid_argument", "title", "non-blank"),
    (
        EDIT,
        {k: v for k, v in edit().items() if k != "idempotency_key"},
        "missing_argument",
        "idempotency_key",
        "a string",
    ),
    (
        EDIT,
        {k: v for k, v in edit().items() if k != "expected_version"},
        "missing_argument",
        "expected_version",
        "RFC 3339",
    ),
    (EDIT, edit(content=None), "invalid_argument", "content", "a string"),
]


@pytest.mark.parametrize(("tool", "args"), ACCEPTED)
def test_values_at_the_limits_are_accepted(session: Session, tool: str, args: dict) -> None:
    r = session.call(tool, args)
    assert not r.is_error, r.text


@pytest.mark.parametrize(("tool", "args", "code", "argument", "allowed"), REFUSED)
def test_values_beyond_the_limits_are_refused_clearly_and_change_nothing(
    server: KBServer,
    session: Session,
    tool: str,
    args: dict,
    code: str,
    argument: str,
    allowed: str,
) -> None:
    before = server.store.snapshot()
    r = session.call(tool, args)
    assert r.is_error
    err = r.structured["error"]
    assert err["code"] == code
    assert err["argument"] == argument
    assert allowed in err["allowed"]
    assert "received" in err
    message = r.structured["message"]
    assert argument in message and allowed in message
    assert err["what_to_do"] and err["what_to_do"] not in message  # each said once
    assert r.text == f"{message} {err['what_to_do']}"  # the sentence first
    assert server.store.snapshot() == before
    assert server.log.records[-1].outcome == code


def test_error_names_the_value_received(session: Session) -> None:
    r = session.call(SEARCH, search(limit=21))
    assert r.structured["error"]["received"] == "21"
    assert "received 21" in r.structured["message"]
    r = session.call(SEARCH, search(limit=5.0))
    assert "(5)" in r.structured["error"]["what_to_do"]
    r = session.call(SEARCH, search(limit=json.loads("1e400")))  # past a double: read as inf
    assert "received a number too large to hold (infinity as read)" in r.structured["message"]
    assert "decimal point" not in r.structured["message"]


def test_unknown_tool_and_non_object_arguments(server: KBServer, session: Session) -> None:
    before = server.store.snapshot()
    r = session.call("delete_knowledge_base", {"knowledge_base_id": KB})
    assert r.is_error and r.structured["error"]["code"] == "unknown_tool"
    assert "search_knowledge_base" in r.structured["error"]["what_to_do"]
    r = session.call(None, {})  # no name sent: said so, not "no tool null"
    assert r.is_error and r.structured["message"].startswith("No tool was named")
    assert r.structured["error"]["received"] == "no name"
    r = session.call(["x"], {})  # a name that is no string: said so, and the four tools
    said = r.structured["message"]
    assert said == "A tool's name is a string; received a JSON array of 1 items as name."
    assert len(TOOL_NAMES) == 4 and r.structured["error"]["allowed"] == ", ".join(TOOL_NAMES)
    assert r.structured["error"]["what_to_do"] == f"Call one of: {', '.join(TOOL_NAMES)}."
    r = session.call(SEARCH, ["password"])
    assert r.is_error and r.structured["error"]["code"] == "invalid_arguments"
    assert server.store.snapshot() == before


def test_no_result_carries_null(session: Session) -> None:
    """Omit, don't null: walk every result of a varied set of calls."""

    def walk(v: object) -> None:
        assert v is not None
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for tool, args, *_ in REFUSED + ACCEPTED:
        walk(session.call(tool, args).structured)
