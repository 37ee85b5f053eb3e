"""The in-memory bm25 indexes rank exactly as FTS5 does, through any sequence of writes.

Both kinds are held to it: the matrix a small KB searches and the posting arrays of a
large one (``index_min_rows`` picks which).

Random corpora in two KBs (so N and the average row length span the whole FTS table, as
in FTS5), random saves, retitles, unpublishes, republishes and writes that roll back;
after each, random queries: the index's scores equal FTS5's bm25(title 4, body 1) bit for
bit, and the store's answer (total and the ranked hits at several limits) equals the
answer of FTS5's own SQL.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.kb.fts5 import ascii_tokens, tokens
from sim.kb.index import BM25Index
from sim.kb.matrix_index import MatrixIndex
from sim.kb.postings import Postings
from sim.kb.rows import StoreError
from sim.kb.schema import SCHEMA
from sim.kb.store import KBStore
from tests.conftest import examples

WORDS = ["invoice", "pdf", "export", "web", "app", "Team", "SSO", "2fa", "alert", "plan"]
SEPARATORS = [" ", ", ", ". ", "\n\n", " - ", "/", "_", "'"]
KBS = ("kb-a", "kb-b")

text = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1, max_size=25
).map(lambda pairs: "".join(w + s for w, s in pairs).strip() or "x")

operation = st.tuples(
    st.sampled_from(["save", "retitle", "unpublish", "republish", "missing"]),
    st.sampled_from(KBS),
    st.integers(0, 7),
    text,
    text,
)
query = st.lists(st.sampled_from([w.lower() for w in WORDS] + ["absent"]), min_size=1, max_size=5)


def _fts5_scores(store: KBStore, kb_id: str, words: list[str]) -> dict[int, float]:
    first, last = store._rowid_range(kb_id)
    match = " OR ".join(f'"{w}"' for w in words)
    rows = store._db.execute(
        "SELECT rowid, bm25(articles_fts, 4.0, 1.0) FROM articles_fts "
        "WHERE articles_fts MATCH ? AND rowid BETWEEN ? AND ?",
        (match, first, last),
    ).fetchall()
    return dict(rows)


def _check(store: KBStore, queries: list[list[str]]) -> None:
    for kb_id, words in itertools.product(KBS, queries):
        first, last = store._rowid_range(kb_id)
        scored = store._search.index.scores(words, first, last)
        assert scored is not None
        rowids, score = scored
        expected = _fts5_scores(store, kb_id, words)
        assert dict(zip(rowids.tolist(), score.tolist(), strict=True)) == expected  # bit for bit
        for limit in (1, 3, 50):
            assert store.search(kb_id, words, limit) == store.search_fts5(kb_id, words, limit)


def _clock() -> object:
    t = itertools.count(1_800_000_000_000_000, 1_000)
    return lambda: next(t)


SMALL, LARGE = 10**9, 0
"""index_min_rows that make every store search from the matrix, or from the postings."""


@pytest.mark.parametrize("index_min_rows", [SMALL, LARGE], ids=["matrix", "postings"])
@settings(max_examples=examples(60), deadline=None)
@given(
    corpus=st.lists(st.tuples(text, text), min_size=1, max_size=8),
    operations=st.lists(operation, max_size=12),
    queries=st.lists(query, min_size=1, max_size=4),
)
def test_the_index_ranks_exactly_as_fts5_through_any_writes(
    index_min_rows: int,
    corpus: list[tuple[str, str]],
    operations: list[tuple],
    queries: list[list[str]],
) -> None:
    store = KBStore(_clock(), index_min_rows=index_min_rows)
    for kb_id in KBS:
        store.create_kb(kb_id)
        store.create_articles(
            kb_id, ((f"art-{i}", t, c) for i, (t, c) in enumerate(corpus)), published=True
        )
    _check(store, queries)
    for kind, kb_id, i, title, content in operations:
        article = f"art-{i % len(corpus)}"
        if kind == "missing":  # a write that fails inside its transaction: rolled back
            with pytest.raises(StoreError):
                store.save(kb_id, "no-such-article", content)
        elif kind in ("save", "retitle"):
            store.save(kb_id, article, content, title=title if kind == "retitle" else None)
        else:
            store.set_published(kb_id, article, kind == "republish")
        _check(store, queries)
    copy = KBStore.copy_of(store, _clock())
    assert copy._search.index is not None
    _check(copy, queries)
    _check_fts5_holds_exactly_the_published_text(store)
    if index_min_rows == LARGE:
        _check_postings_equal_a_fresh_build(store)


def _check_postings_equal_a_fresh_build(store: KBStore) -> None:
    """After any writes, the postings (saves queued, drained, merged whenever) hold what a
    bulk build of the committed published rows holds."""
    rows = store._db.execute(
        "SELECT rowid, title, content FROM articles WHERE published = 1 ORDER BY rowid"
    ).fetchall()

    def held(index: BM25Index) -> tuple:
        index = index.copy()
        terms = {
            t: (p.rowids.tolist(), p.weight.tolist())
            for t, p in index.postings.items()
            if len(p.rowids)
        }
        lengths = {r: int(index.lengths[r >> 32][r & (2**32 - 1)]) for r, _, _ in rows}
        return terms, lengths, index.n_rows, index.total_tokens, index.non_ascii

    assert held(store._search.index) == held(BM25Index.built(rows))


def _check_fts5_holds_exactly_the_published_text(store: KBStore) -> None:
    """The FTS table indexes the articles' own text (external content), and a row leaves
    it only by the text it went in with: its vocabulary, term by term with row and token
    counts, is what the published rows' text gives."""
    expected: Counter[tuple[str, str, str]] = Counter()
    for title, content in store._db.execute(
        "SELECT title, content FROM articles WHERE published = 1"
    ):
        for column, text in (("title", title), ("content", content)):
            for term, n in Counter(tokens(text)).items():
                expected[(term, column, "rows")] += 1
                expected[(term, column, "tokens")] += n
    store._db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, articles_fts, col)"
    )
    seen: Counter[tuple[str, str, str]] = Counter()
    for term, column, rows, count in store._db.execute(
        "SELECT term, col, doc, cnt FROM temp.vocab"
    ):
        seen[(term, column, "rows")] += rows
        seen[(term, column, "tokens")] += count
    assert seen == expected


def test_a_small_kb_searches_from_the_matrix_and_a_large_one_from_postings() -> None:
    store = KBStore(_clock(), index_min_rows=3)
    store.create_kb("kb-a")
    store.create_articles("kb-a", [("a1", "Export", "Invoice."), ("a2", "Plan", "Invoice.")])
    assert isinstance(store._search.index, MatrixIndex) and len(store._search.index) == 2
    store.save("kb-a", "a1", "Invoice, invoice.")
    assert store.search("kb-a", ["invoice"], 5) == store.search_fts5("kb-a", ["invoice"], 5)
    store.create_articles("kb-a", [("a3", "Team plan", "Export the invoice.")])
    assert isinstance(store._search.index, BM25Index) and len(store._search.index) == 3
    assert store.search("kb-a", ["invoice"], 5) == store.search_fts5("kb-a", ["invoice"], 5)


def test_a_bulk_load_that_rolls_back_leaves_the_index_as_committed() -> None:
    store = KBStore(_clock(), index_min_rows=SMALL)
    store.create_kb("kb-a")
    store.create_articles("kb-a", [("a1", "Export", "Invoice.")])
    with pytest.raises(sqlite3.IntegrityError):  # the second a1 breaks UNIQUE: all roll back
        store.create_articles("kb-a", [("a2", "Invoice plan", "Invoice."), ("a1", "x", "y")])
    assert store.search("kb-a", ["invoice"], 5) == store.search_fts5("kb-a", ["invoice"], 5)
    assert store.search("kb-a", ["invoice"], 5)[0] == 1


@pytest.mark.parametrize("index_min_rows", [SMALL, LARGE], ids=["matrix", "postings"])
def test_a_store_opened_from_a_file_indexes_what_it_finds(
    tmp_path: object, index_min_rows: int
) -> None:
    path = str(tmp_path / "kb.sqlite")  # type: ignore[operator]
    store = KBStore(_clock(), path=path, index_min_rows=index_min_rows)
    store.create_kb("kb-a")
    store.create_articles("kb-a", [("a1", "Export the invoice PDF", "Open the web app.")])
    store.create_articles("kb-a", [("a2", "Invoice plan", "Team plan, invoice.")])
    store.set_published("kb-a", "a2", False)
    reopened = KBStore(_clock(), path=path, index_min_rows=index_min_rows)
    assert reopened.search("kb-a", ["invoice"], 5) == store.search_fts5("kb-a", ["invoice"], 5)
    assert reopened.search("kb-a", ["invoice"], 5)[0] == 1


@pytest.mark.parametrize("index_min_rows", [SMALL, LARGE], ids=["matrix", "postings"])
def test_where_ascii_tokens_are_not_enough_fts5_answers(index_min_rows: int) -> None:
    store = KBStore(_clock(), index_min_rows=index_min_rows)
    store.create_kb("kb-a")
    store.create_articles(
        "kb-a", [("a1", "Export the invoice", "Plain text."), ("a2", "Café invoice", "Déjà vu.")]
    )
    first, last = store._rowid_range("kb-a")
    assert store._search.index.search(["invoice"], first, last, 5) is None  # a non-ASCII row
    assert store.search("kb-a", ["invoice"], 5) == store.search_fts5("kb-a", ["invoice"], 5)
    store.set_published("kb-a", "a2", False)
    assert store._search.index.search(["invoice"], first, last, 5) is not None
    assert store._search.index.search(["foo_bar"], first, last, 5) is None  # a phrase of two tokens
    assert store.search("kb-a", ["foo_bar"], 5) == store.search_fts5("kb-a", ["foo_bar"], 5)


def test_ascii_tokens_are_the_ones_fts5_sees() -> None:
    """unicode61 on ASCII: runs of letters and digits, lower-cased (checked against FTS5's
    own vocabulary of the same text)."""
    sample = "Export_the invoice-PDF (v2.1) in the Web app's 2FA page; x86_64 & ISO8601!"
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO articles_fts (rowid, title, content) VALUES (1, ?, '')", (sample,))
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(articles_fts, instance)")
    seen = [t for (t,) in db.execute("SELECT term FROM v ORDER BY offset")]
    assert seen == tokens(sample)
    assert np.array_equal(np.array(seen), np.array(tokens(sample)))


def _postings_state(index: BM25Index) -> tuple:
    index = index.copy()  # every queued write merged
    return (
        [
            (t, p.rowids.dtype, p.rowids.tolist(), p.weight.dtype, p.weight.tolist())
            for t, p in index.postings.items()
        ],
        {kb: (a.dtype, a.tolist()) for kb, a in index.lengths.items()},
        index.n_rows,
        index.total_tokens,
        index.non_ascii,
    )


@settings(max_examples=examples(60), deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([1, 2]),
            text | st.just("") | st.just("Café") | st.just("a NUL\x00between"),
            text,
        ),
        max_size=40,
    ),
    batch=st.integers(1, 7),
)
def test_the_bulk_build_equals_adding_row_by_row(
    rows: list[tuple[int, str, str]], batch: int
) -> None:
    """The posting arrays a bulk load builds at once are those ``add`` builds a row at a
    time: every term's rowids and weights (and their order), lengths, counts, non-ASCII rows
    (a batch holding non-ASCII text or a NUL is tokenized text by text)."""
    numbered = sorted(
        ((kb << 32) + i, title, content) for i, (kb, title, content) in enumerate(rows)
    )
    one_by_one = BM25Index()
    for row in numbered:
        one_by_one.add(*row)
    assert _postings_state(BM25Index.built(numbered, batch)) == _postings_state(one_by_one)


def test_the_bulk_build_refuses_rowids_out_of_order() -> None:
    with pytest.raises(ValueError, match="rowids must ascend"):
        BM25Index.built([(2, "a", "b"), (1, "c", "d")])


@settings(max_examples=examples(300), deadline=None)
@given(st.text() | st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_byte_tokenizers_give_the_regexs_runs(text: str) -> None:
    """Both tokenizers translate bytes; they give the runs of letters and digits the regex
    finds in the lower-cased text (which test_ascii_tokens_are_the_ones_fts5_sees holds to
    FTS5)."""
    runs = re.findall(r"[a-z0-9]+", text.lower())
    assert tokens(text) == runs
    assert ascii_tokens(text) == [t.encode() for t in runs]


@settings(max_examples=examples(200), deadline=None)
@given(rowids=st.sets(st.integers(0, 60)), removed=st.sets(st.integers(-5, 70)))
def test_a_merge_keeps_the_rows_np_isin_keeps(rowids: set[int], removed: set[int]) -> None:
    """A merge finds its removed rows by binary search: the rows np.isin finds, whether a
    removed row is held, was only ever queued (absent), or lies beyond the ends."""
    postings = Postings(
        np.array(sorted(rowids), np.int64), np.zeros(len(rowids), np.int32), "t", {}, removed
    )
    expected = ~np.isin(postings.rowids, np.fromiter(removed, np.int64, len(removed)))
    assert np.array_equal(postings._kept(), expected)
