"""The tools' reads that save statements per call say what the plain reads say."""

from __future__ import annotations

from pathlib import Path

from sim.kb.store import KBStore
from tests.conftest import ARTICLES, KB, OTHER_KB, ManualClock


def test_a_read_with_its_head_equals_the_article_and_head_read_apart(
    store: KBStore, clock: ManualClock
) -> None:
    clock.advance(1)
    store.save(KB, "a1", "new text")
    store.set_published(KB, "a3", False)
    for kb, article_id in [(KB, "a1"), (KB, "a2"), (KB, "a3"), (KB, "nope"), (OTHER_KB, "secret")]:
        assert store.published_article_at_head(kb, article_id) == (
            store.published_article(kb, article_id),
            store.head_sequence(kb),
        )
    assert store.published_article_at_head(KB, "a3")[0] is None  # unpublished: not returned


def test_a_page_from_the_head_or_beyond_is_empty_and_binds_no_number(store: KBStore) -> None:
    head = store.head_sequence(KB)
    for after in (head, head + 1, 2**70):  # 2**70 is too large for an SQLite integer
        page = store.events_after(KB, after, 100)
        assert (page.events, page.head_sequence, page.oldest_sequence) == ([], head, 1)
    assert [e.sequence for e in store.events_after(KB, head - 2, 100).events] == [head - 1, head]


def test_a_kb_another_connection_created_exists_here(tmp_path: Path, clock: ManualClock) -> None:
    path = str(tmp_path / "kb.sqlite")
    here = KBStore(clock, path)
    here.create_kb(KB)
    here.create_articles(KB, ARTICLES)
    assert here.kb_exists(KB) and not here.kb_exists(OTHER_KB)
    KBStore(clock, path).create_kb(OTHER_KB)
    assert here.kb_exists(OTHER_KB)
