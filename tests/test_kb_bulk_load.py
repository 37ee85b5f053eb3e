"""A bulk load (one create_articles call, its rows, FTS rows and events each inserted in one
executemany) leaves the store as creating the same articles one call at a time does: the
same rows and versions, event log and head (under any retention), the same changes told to
listeners, and the same FTS5 vocabulary, term by term and position by position."""

from __future__ import annotations

import itertools

import pytest

from sim.kb.rows import Change, StoreError
from sim.kb.store import KBStore

KB = "kb-bulk"
ARTICLES = [
    (f"a{i}", f"Export the invoice {i}", f"Open the web app. Step {i}, then {i * 7}.")
    for i in range(12)
]


def _store(retention: int | None) -> tuple[KBStore, list[Change]]:
    ticks = itertools.count(1_800_000_000_000_000, 1_000)
    store = KBStore(lambda: next(ticks), event_retention=retention, index_min_rows=5)
    heard: list[Change] = []
    store.add_listener(heard.append)
    store.create_kb(KB)
    return store, heard


def _state(store: KBStore) -> tuple:
    db = store._db
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, articles_fts, instance)"
    )
    return (
        db.execute("SELECT * FROM articles ORDER BY rowid").fetchall(),
        store.all_events(KB),
        store.head_sequence(KB),
        db.execute("SELECT * FROM temp.v ORDER BY term, doc, col, offset").fetchall(),
    )


@pytest.mark.parametrize("retention", [None, 1, 5, 100])
def test_a_bulk_load_equals_loading_one_article_at_a_time(retention: int | None) -> None:
    bulk, bulk_heard = _store(retention)
    bulk.create_articles(KB, ARTICLES)
    one_by_one, heard = _store(retention)
    for article in ARTICLES:
        one_by_one.create_articles(KB, [article])
    assert _state(bulk) == _state(one_by_one)
    assert bulk_heard == heard
    n = len(ARTICLES)
    assert [(c.sequence, c.article_id, c.type) for c in heard] == [
        (i, a, "created") for i, (a, _, _) in enumerate(ARTICLES, 1)
    ]
    kept = n if retention is None else min(n, retention)
    events = bulk.all_events(KB)
    assert [e.sequence for e in events] == list(range(n - kept + 1, n + 1))
    rows = bulk._db.execute("SELECT article_id, updated_us FROM articles ORDER BY rowid").fetchall()
    assert rows == [(a, 1_800_000_000_000_000 + 1_000 * i) for i, (a, _, _) in enumerate(ARTICLES)]
    assert [(e.article_id, e.updated_us, e.actor) for e in events] == [
        (a, us, "human") for a, us in rows[n - kept :]
    ]
    for words in (["invoice"], ["step", "3"], ["web", "21"]):
        assert bulk.search(KB, words, 5) == one_by_one.search(KB, words, 5)
        assert bulk.search(KB, words, 5) == bulk.search_fts5(KB, words, 5)
    bulk.save(KB, "a0", "A later save.")  # the one-event append continues the sequence
    assert bulk.head_sequence(KB) == n + 1 and bulk.all_events(KB)[-1].sequence == n + 1


def test_a_bulk_load_into_a_full_kb_changes_nothing() -> None:
    store, heard = _store(None)
    store.create_articles(KB, ARTICLES[:2])
    before = store.snapshot()
    store._rowid_ranges[KB] = (store._rowid_ranges[KB][0], store._rowid_ranges[KB][0] + 3)
    with pytest.raises(StoreError, match="is full"):
        store.create_articles(KB, ARTICLES[2:])
    assert store.snapshot() == before and len(heard) == 2
