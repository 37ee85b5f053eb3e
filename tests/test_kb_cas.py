"""Compare-and-swap edits, version ties, idempotent replays, key reuse."""

from __future__ import annotations

import pytest

from sim.kb.store import KBStore
from sim.kb.versions import format_version, parse_version
from sim.server.tools import KBServer, Session
from tests.conftest import KB, ManualClock, edit_args, read

EDIT = "edit_knowledge_article"


def test_edit_with_the_current_version_is_accepted(
    store: KBStore, session: Session, clock: ManualClock
) -> None:
    v = read(session, "a1")["updated_at"]
    clock.advance(10)
    r = session.call(EDIT, edit_args("a1", v, "k1", content="fresh text", title="New title"))
    assert not r.is_error, r.text
    s = r.structured
    assert s["previous_version"] == v and s["updated_at"] > v and s["replayed"] is False
    assert (s["knowledge_base_id"], s["article_id"]) == (KB, "a1")  # the citation, each once
    assert r.text.startswith(f"Saved a1 as version {s['updated_at']}, replacing version {v}")
    after = read(session, "a1")
    assert (after["content"], after["title"], after["updated_at"]) == (
        "fresh text",
        "New title",
        s["updated_at"],
    )
    assert s["event_sequence"] == store.head_sequence(KB)


def test_title_is_kept_when_left_out(session: Session) -> None:
    before = read(session, "a2")
    session.call(EDIT, edit_args("a2", before["updated_at"], "k"))
    assert read(session, "a2")["title"] == before["title"]


def test_edit_with_an_older_version_is_rejected_and_changes_nothing(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    old = read(session, "a1")["updated_at"]
    clock.advance(60)
    server.store.save(KB, "a1", "a human's newer text")
    current = read(session, "a1")["updated_at"]
    before = server.store.snapshot()
    r = session.call(EDIT, edit_args("a1", old, "k1"))
    assert r.is_error
    err = r.structured["error"]
    assert err["code"] == "version_conflict" and err["current_version"] == current
    assert f"it has been saved since version {old}" in r.structured["message"]
    assert "re-read" in err["what_to_do"].lower()
    assert f"expected_version={current}" in err["what_to_do"]
    assert r.text == f"{r.structured['message']} {err['what_to_do']}"
    assert server.store.snapshot() == before
    # The remedy: re-read, re-apply, write with the new version (the key is still free).
    fresh = read(session, "a1")
    r = session.call(
        EDIT, edit_args("a1", fresh["updated_at"], "k1", content=fresh["content"] + " + my change")
    )
    assert not r.is_error
    assert read(session, "a1")["content"] == "a human's newer text + my change"


def test_a_different_spelling_of_the_same_instant_is_the_same_version(session: Session) -> None:
    v = read(session, "a1")["updated_at"]
    other = format_version(parse_version(v)).replace("Z", "+00:00")
    assert not session.call(EDIT, edit_args("a1", other, "k")).is_error


def test_a_version_truncated_to_the_second_is_rejected(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    clock.advance(0.25)
    server.store.save(KB, "a1", "saved at a fractional second")
    v = read(session, "a1")["updated_at"]
    assert not v.endswith(".000000Z")
    truncated = v[:19] + "Z"
    r = session.call(EDIT, edit_args("a1", truncated, "k"))
    assert r.structured["error"]["code"] == "version_conflict"


def test_two_writes_in_one_instant_get_distinct_versions(store: KBStore, session: Session) -> None:
    v0 = read(session, "a1")["updated_at"]  # the clock does not move in this test
    store.save(KB, "a1", "first")
    v1 = read(session, "a1")["updated_at"]
    r = session.call(EDIT, edit_args("a1", v1, "k"))
    v2 = r.structured["updated_at"]
    assert v0 < v1 < v2
    assert parse_version(v1) - parse_version(v0) == 1
    assert session.call(EDIT, edit_args("a1", v1, "k-again")).structured["error"]["code"] == (
        "version_conflict"
    )


def test_replay_returns_the_first_result_and_appends_no_event(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    args = edit_args("a1", read(session, "a1")["updated_at"], "same-key")
    first = session.call(EDIT, args)
    head = server.store.head_sequence(KB)
    clock.advance(5)
    before = server.store.snapshot()
    again = session.call(EDIT, args)
    assert not again.is_error
    assert again.structured["replayed"] is True
    assert again.text.startswith("Replay:") and "nothing was written again" in again.text
    strip = lambda s: {k: v for k, v in s.items() if k != "replayed"}  # noqa: E731
    assert strip(again.structured) == strip(first.structured)
    assert server.store.head_sequence(KB) == head
    assert server.store.snapshot() == before


def test_replay_still_answers_after_the_article_moved_on(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    args = edit_args("a1", read(session, "a1")["updated_at"], "k")
    first = session.call(EDIT, args)
    clock.advance(1)
    server.store.save(KB, "a1", "human edit after the agent's")
    again = session.call(EDIT, args)
    assert again.structured["replayed"] is True
    assert again.structured["updated_at"] == first.structured["updated_at"]


@pytest.mark.parametrize("change", [{"content": "other"}, {"title": "Other"}, {"article_id": "a2"}])
def test_key_reused_with_different_arguments_is_refused(
    server: KBServer, session: Session, change: dict
) -> None:
    args = edit_args("a1", read(session, "a1")["updated_at"], "k")
    session.call(EDIT, args)
    if "article_id" in change:
        change = {**change, "expected_version": read(session, "a2")["updated_at"]}
    before = server.store.snapshot()
    r = session.call(EDIT, {**args, **change})
    assert r.structured["error"]["code"] == "idempotency_key_reused"
    assert "new key" in r.structured["error"]["what_to_do"]
    assert server.store.snapshot() == before


def test_edit_of_an_unpublished_article_is_gone(server: KBServer, session: Session) -> None:
    v = read(session, "a3")["updated_at"]
    server.store.set_published(KB, "a3", False)
    before = server.store.snapshot()
    r = session.call(EDIT, edit_args("a3", v, "k"))
    assert r.structured["error"]["code"] == "article_not_found"
    assert server.store.snapshot() == before


def test_idempotency_keys_belong_to_the_client_that_sent_them(
    server: KBServer, session: Session, clock: ManualClock
) -> None:
    """The same key from another client is another edit, and reveals nothing of the first."""
    other = server.connect("other-client", [KB])
    v = read(session, "a1")["updated_at"]
    first = session.call(EDIT, edit_args("a1", v, "shared-key", content="from the first client"))
    assert not first.is_error
    stale = other.call(EDIT, edit_args("a1", v, "shared-key", content="from the other client"))
    assert stale.structured["error"]["code"] == "version_conflict"  # not key_reused
    fresh = read(other, "a1")["updated_at"]
    clock.advance(1)
    second = other.call(EDIT, edit_args("a1", fresh, "shared-key", content="from the other"))
    assert not second.is_error and second.structured["replayed"] is False
    assert read(session, "a1")["content"] == "from the other"
    # each client's replay returns its own first result
    again = session.call(EDIT, edit_args("a1", v, "shared-key", content="from the first client"))
    assert again.structured["replayed"] is True
    assert again.structured["updated_at"] == first.structured["updated_at"]


@pytest.mark.parametrize("content", ["", "   ", "\n\t"])
def test_a_blank_body_is_refused_and_changes_nothing(
    server: KBServer, session: Session, content: str
) -> None:
    v = read(session, "a1")["updated_at"]
    before = server.store.snapshot()
    r = session.call(EDIT, edit_args("a1", v, "k1", content=content))
    err = r.structured["error"]
    assert err["code"] == "invalid_argument" and err["argument"] == "content"
    assert "unpublish" in r.text
    assert server.store.snapshot() == before
    assert not session.call(EDIT, edit_args("a1", v, "k1", content="real text")).is_error


def test_a_version_the_article_never_had_is_not_called_a_change_after_the_read(
    session: Session,
) -> None:
    """The server says only what its log shows: this version was never the article's."""
    r = session.call(EDIT, edit_args("a1", "2001-01-01T00:00:00Z", "k"))
    message = r.structured["message"]
    assert r.structured["error"]["code"] == "version_conflict"
    assert "is not a version of it that the event log holds" in message
    assert "saved since" not in message and "after your read" not in message
