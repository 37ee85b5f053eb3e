"""Published articles only; unpublishing is immediate and logged; grants isolate KBs."""

from __future__ import annotations

from sim.kb.store import KBStore
from sim.server.tools import KBServer, Session
from tests.conftest import KB, OTHER_KB, ManualClock, read


def search(session: Session, query: str, kb: str = KB, limit: int = 20) -> dict:
    args = {"knowledge_base_id": kb, "query": query, "limit": limit}
    return session.call("search_knowledge_base", args).structured


def test_search_ranks_by_relevance_and_cites(session: Session) -> None:
    result = session.call(
        "search_knowledge_base", {"knowledge_base_id": KB, "query": "reset password web app"}
    )
    r = result.structured
    assert r["hits"][0]["article_id"] == "a1"
    hit = r["hits"][0]
    assert set(hit) == {"article_id", "title", "updated_at"}  # with the KB id: the citation
    assert r["knowledge_base_id"] == KB
    assert r["searched_words"] == ["reset", "password", "web", "app"]
    first, *lines = result.text.splitlines()
    assert first.startswith(f"{r['total_matches']} published articles in {KB} contain")
    assert f"all {r['total_matches']} shown" in first and r["complete"] is True
    assert lines[0] == f"1. a1 | {hit['title']} | {hit['updated_at']}"


def test_search_says_when_it_shows_only_part_and_how_far_limit_goes(session: Session) -> None:
    result = session.call(
        "search_knowledge_base", {"knowledge_base_id": KB, "query": "password pdf", "limit": 1}
    )
    assert result.structured["complete"] is False
    assert "showing the 1 most relevant (limit goes up to 20)" in result.text


def test_a_query_of_common_words_only_says_nothing_was_searched(session: Session) -> None:
    result = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "how to the"})
    assert not result.is_error and result.structured["searched_words"] == []
    assert "total_matches" not in result.structured  # not searched, so not counted
    assert result.text.startswith("Nothing was searched")
    assert "No published article" not in result.text


def test_search_words_cannot_inject_fts_syntax(session: Session) -> None:
    for q in ['password" OR *', "NEAR(a b)", "title:password", "-- ; DROP", "()"]:
        r = session.call("search_knowledge_base", {"knowledge_base_id": KB, "query": q})
        assert not r.is_error, r.text


def test_drafts_are_never_visible(store: KBStore, session: Session, clock: ManualClock) -> None:
    store.create_articles(KB, [("draft", "Unreleased password feature", "secret")], published=False)
    assert all(h["article_id"] != "draft" for h in search(session, "unreleased password")["hits"])
    assert read(session, "draft")["error"]["code"] == "article_not_found"


def test_unpublished_article_vanishes_on_the_next_call_and_leaves_an_event(
    store: KBStore, session: Session, clock: ManualClock
) -> None:
    assert read(session, "a1")["article_id"] == "a1"
    head = store.head_sequence(KB)
    clock.advance(1)
    store.set_published(KB, "a1", False)
    assert read(session, "a1")["error"]["code"] == "article_not_found"
    assert all(h["article_id"] != "a1" for h in search(session, "reset password")["hits"])
    events = session.call(
        "poll_resource_events",
        {
            "resource_type": "knowledge_base",
            "resource_id": KB,
            "after_sequence": head,
        },
    ).structured["events"]
    assert [(e["type"], e["article_id"]) for e in events] == [("unpublished", "a1")]


def test_grants_isolate_kbs_without_revealing_existence(server: KBServer) -> None:
    mine = server.connect("mine", [KB])
    missing = read(mine, "secret", kb="kb-does-not-exist")["error"]
    not_granted = read(mine, "secret", kb=OTHER_KB)["error"]
    assert missing["code"] == not_granted["code"] == "knowledge_base_not_found"
    assert {k: v for k, v in missing.items() if k != "received"} == {
        k: v for k, v in not_granted.items() if k != "received"
    }
    assert search(mine, "password", kb=OTHER_KB)["error"]["code"] == "knowledge_base_not_found"
    r = mine.call(
        "poll_resource_events", {"resource_type": "knowledge_base", "resource_id": OTHER_KB}
    )
    assert r.structured["error"]["code"] == "knowledge_base_not_found"
    theirs = server.connect("theirs", [OTHER_KB])
    assert read(theirs, "secret", kb=OTHER_KB)["article_id"] == "secret"
    assert all(h["article_id"] != "secret" for h in search(mine, "password")["hits"])


def test_search_counts_and_ranks_only_its_own_kb_whatever_the_creation_order(
    store: KBStore, server: KBServer
) -> None:
    """Articles of two KBs created interleaved: each KB's search sees exactly its own."""
    store.create_articles(KB, [("a4", "Password expiry", "When a password expires.")])
    store.create_articles(OTHER_KB, [("s2", "Password vault", "Team password vault.")])
    store.create_articles(KB, [("a5", "Password hints", "Hints for a password.")])
    mine = search(server.connect("mine", [KB]), "password")
    theirs = search(server.connect("theirs", [OTHER_KB]), "password", kb=OTHER_KB)
    assert {h["article_id"] for h in mine["hits"]} == {"a1", "a4", "a5"}
    assert mine["total_matches"] == 3
    assert {h["article_id"] for h in theirs["hits"]} == {"secret", "s2"}
    assert theirs["total_matches"] == 2


def test_equal_scores_go_to_the_earlier_created_article(store: KBStore, session: Session) -> None:
    """Identical texts score the same; the tie goes by creation order, not by id."""
    twins = [(aid, "Quarterly roadmap", "The quarterly roadmap.") for aid in ("z9", "b2", "m5")]
    store.create_articles(KB, twins)
    r = search(session, "quarterly roadmap")
    assert [h["article_id"] for h in r["hits"]] == ["z9", "b2", "m5"]
