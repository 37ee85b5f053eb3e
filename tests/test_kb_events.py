"""The event log: gap-free sequences, paging, and retention that never skips silently."""

from __future__ import annotations

import pytest

from sim.kb.store import KBStore
from sim.server.tools import KBServer, Session, ToolResult
from tests.conftest import ARTICLES, KB, ManualClock

POLL = "poll_resource_events"


def poll(session: Session, after: int = 0, limit: int = 100) -> ToolResult:
    return session.call(
        POLL,
        {
            "resource_type": "knowledge_base",
            "resource_id": KB,
            "after_sequence": after,
            "limit": limit,
        },
    )


def test_poll_hands_over_the_next_argument_and_says_if_more_wait(
    server: KBServer, clock: ManualClock
) -> None:
    for i in range(7):
        clock.advance(1)
        server.store.save(KB, "a1", f"v{i}")
    s = server.connect("p", [KB])
    seen, after = [], 0
    while True:
        result = poll(s, after, limit=3)
        r, first_line = result.structured, result.text.splitlines()[0]
        seen += [e["sequence"] for e in r["events"]]
        assert f"after_sequence={r['next_after_sequence']}" in first_line
        after = r["next_after_sequence"]
        if not r["has_more"]:
            assert "no more pages" in first_line
            break
        assert "more events wait" in first_line
    assert seen == list(range(1, len(ARTICLES) + 8))
    empty = poll(s, after).structured
    assert empty["events"] == [] and empty["next_after_sequence"] == after
    assert empty["has_more"] is False


def test_poll_from_beyond_the_head_is_refused(server: KBServer) -> None:
    s = server.connect("p", [KB])
    head = server.store.head_sequence(KB)
    r = poll(s, head + 1).structured
    assert r["error"]["code"] == "sequence_ahead_of_log"
    assert r["error"]["head_sequence"] == head
    # only what the server observed: no claim about where the cursor came from
    assert "cannot come from" not in r["message"] and "restarted" in r["message"]


def test_poll_names_the_articles_it_cannot_return_now(server: KBServer, clock: ManualClock) -> None:
    head = server.store.head_sequence(KB)
    clock.advance(1)
    server.store.save(KB, "a1", "new text")
    server.store.set_published(KB, "a3", False)
    server.store.save(KB, "a3", "a draft edit")
    r = poll(server.connect("p", [KB]), head)
    assert [e["article_id"] for e in r.structured["events"]] == ["a1", "a3", "a3"]
    assert r.structured["not_published"] == ["a3"]
    assert r.text.splitlines()[0].startswith("3 events on 2 articles after sequence")
    assert r.text.splitlines()[-1] == (
        "1 article of these is not published now, so read_knowledge_article cannot return it: a3."
    )


@pytest.mark.parametrize("retention", [1, 2, 5])
def test_trimmed_history_is_an_error_that_says_what_to_do(retention: int) -> None:
    clock = ManualClock()
    store = KBStore(clock, event_retention=retention)
    store.create_kb(KB)
    store.create_articles(KB, ARTICLES)
    for i in range(6):
        clock.advance(1)
        store.save(KB, "a2", f"v{i}")
    head = store.head_sequence(KB)
    oldest = head - retention + 1
    s = KBServer(store, clock).connect("p", [KB])
    before = store.snapshot()
    r = poll(s, oldest - 2).structured
    err = r["error"]
    assert err["code"] == "history_trimmed"
    assert (err["oldest_available_sequence"], err["head_sequence"]) == (oldest, head)
    assert "re-read every article you cite" in err["what_to_do"].lower()
    assert f"after_sequence={head}" in err["what_to_do"]
    assert store.snapshot() == before
    ok = poll(s, oldest - 1).structured
    assert [e["sequence"] for e in ok["events"]] == list(range(oldest, head + 1))


def test_event_retention_must_be_positive(clock: ManualClock) -> None:
    with pytest.raises(ValueError, match="event_retention"):
        KBStore(clock, event_retention=0)
