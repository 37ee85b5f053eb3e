"""FTS5's own bm25 ranking, computed over in-memory posting arrays.

FTS5 computes ``bm25()`` for every row that matches before it can sort, so a search
costs what its matches cost, and a question's common words match a fixed share of any
KB. This index holds, per term, the sorted rowids of the published rows containing it
with the term's weighted count in each (title 4, body 1), and each row's length once. It
evaluates exactly FTS5's formula (``ext/fts5/fts5_aux.c``, SQLite 3.40: k1 = 1.2,
b = 0.75, idf = log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, column weights title 4
and body 1, N and the average row length over the whole FTS table) with the same
floating-point operations in the same order, then sorts by (score, rowid) as the SQL
does. A property test holds it to FTS5 on random corpora and edit sequences. The
tokenizer and the formula are ``fts5.py``'s, shared with the small KB's matrix index.

Scope: unicode61 tokenization is reproduced for ASCII only (runs of letters and digits,
lower-cased). While any indexed row holds a non-ASCII character, or a query word is not
a single ASCII token, ``search`` returns None and the store asks FTS5, which stays the
search of record. The store applies changes at commit, never for a rolled-back write.
A term's postings are ``postings.py``'s; the module runs a little past ~300 lines as one
class, ``BM25Index``, whose build, writes and search share its postings and row lengths.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from sim.kb.fts5 import (
    K1,
    B,
    batch_tokens,
    bm25,
    exact_words,
    idf,
    tokens,
    weighted_counts,
)
from sim.kb.postings import Postings, weighted_pairs
from sim.kb.schema import KB_ROWID_BITS

Term = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A word's rows within a KB: rowids, weighted counts (title 4, body 1), row lengths."""


Op = tuple[bool, int, str, str]
"""A committed write as the indexes take it: (added, rowid, title, content), the row as it
was added, or as it was when removed."""


KB_MASK = (1 << KB_ROWID_BITS) - 1


class BM25Index:
    def __init__(self) -> None:
        self.postings: dict[str, Postings] = {}
        self.lengths: dict[int, np.ndarray] = {}
        """Per KB (rowid >> KB_ROWID_BITS), each row's length in tokens by its place in the
        KB's rowid range (0 while out): a KB's rowids are dense, so no posting repeats a
        length, and no row keeps a list of its terms (removal reads them again from the
        text the store passes)."""
        self.n_rows = 0
        self.non_ascii: set[int] = set()
        self.total_tokens = 0
        self._queued: list[Op] = []

    def __len__(self) -> int:
        self._drain()
        return self.n_rows

    @classmethod
    def built(cls, rows: Iterable[tuple[int, str, str]], batch: int = 1_000) -> BM25Index:
        """The index of these rows (rowid, title, content; ascending rowids) as ``add`` row
        by row would leave it once merged, built in bulk: rows are tokenized `batch` at a
        time and each batch reduced at once to its (term, row) weighted counts, then one
        stable sort by term gives every term's postings in rowid order. (At 50,000 rows:
        a few queue writes per term and row, millions in all, are what this saves.)"""
        index = cls()
        vocabulary: defaultdict[bytes, int] = defaultdict(itertools.count().__next__)
        """Term -> its number, numbered in order of first appearance, as add's order them."""
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        last = -1
        rows = iter(rows)
        while chunk := list(itertools.islice(rows, batch)):
            rowids = np.fromiter((r for r, _, _ in chunk), np.int64, len(chunk))
            ascending = np.diff(rowids, prepend=last) > 0
            if not ascending.all():
                i = int(np.argmin(ascending))
                after = last if i == 0 else chunk[i - 1][0]
                raise ValueError(
                    f"BM25Index.built: rowids must ascend; {chunk[i][0]} after {after}"
                )
            last = chunk[-1][0]
            flat, counts = batch_tokens(chunk)
            term_ids = np.fromiter(map(vocabulary.__getitem__, flat), np.int64, len(flat))
            per_text = np.array(counts, np.int64).reshape(len(chunk), 2)  # body, title
            index._count_rows(chunk, rowids, per_text.sum(axis=1))
            parts.append(weighted_pairs(term_ids, per_text, rowids))
        if not parts:
            return index
        term_of, rowid_of, weight_of = (np.concatenate(p) for p in zip(*parts, strict=True))
        order = np.argsort(term_of, kind="stable")  # rowids ascend within a term
        term_of, rowid_of, weight_of = term_of[order], rowid_of[order], weight_of[order]
        cuts = np.flatnonzero(np.diff(term_of)) + 1
        starts, ends = np.concatenate([[0], cuts]), np.concatenate([cuts, [len(term_of)]])
        names = [t.decode() for t in vocabulary]
        for t, a, b in zip(term_of[starts].tolist(), starts.tolist(), ends.tolist(), strict=True):
            index.postings[names[t]] = Postings(rowid_of[a:b], weight_of[a:b], names[t])
        index.postings = {t: index.postings[t] for t in names}  # first appearance, as add's
        return index

    def _count_rows(
        self, chunk: list[tuple[int, str, str]], rowids: np.ndarray, length: np.ndarray
    ) -> None:
        """Rows' lengths, counts and non-ASCII rows, as ``_add`` keeps them (the length
        arrays grown at the rows where ``_length_of`` grows them)."""
        kbs = rowids >> KB_ROWID_BITS
        for kb in dict.fromkeys(kbs.tolist()):
            mine = kbs == kb
            places = rowids[mine] & KB_MASK
            lengths = self.lengths.get(kb)
            while lengths is None or places[-1] >= len(lengths):
                grows = int(np.searchsorted(places, 0 if lengths is None else len(lengths)))
                lengths, _ = self._length_of(int(rowids[mine][grows]))
            lengths[places] = length[mine]
        self.n_rows += len(chunk)
        self.total_tokens += int(length.sum())
        self.non_ascii.update(r for r, t, c in chunk if not (t.isascii() and c.isascii()))

    def apply(self, ops: list[Op]) -> None:
        """Committed writes, in order. They are tokenized when a search next needs them, so
        a save costs no more than FTS5's own update."""
        self._queued.extend(ops)

    def _drain(self) -> None:
        touched: dict[str, Postings] = {}
        for added, rowid, title, content in self._queued:
            if added:
                self._add(rowid, title, content, touched)
            else:
                self._remove(rowid, title, content, touched)
        self._queued = []
        for postings in touched.values():
            postings.bound_queue()

    def copy(self) -> BM25Index:
        self._drain()
        other = BM25Index()
        other.postings = {t: p.copy() for t, p in self.postings.items()}
        other.lengths = {kb: a.copy() for kb, a in self.lengths.items()}
        other.n_rows = self.n_rows
        other.non_ascii = set(self.non_ascii)
        other.total_tokens = self.total_tokens
        return other

    def _length_of(self, rowid: int) -> tuple[np.ndarray, int]:
        """The row's KB's length array (grown to hold it) and the row's place in it."""
        kb, place = rowid >> KB_ROWID_BITS, rowid & KB_MASK
        lengths = self.lengths.get(kb)
        if lengths is None or place >= len(lengths):
            grown = np.zeros(max(64, 2 * (place + 1)), np.int32)
            if lengths is not None:
                grown[: len(lengths)] = lengths
            lengths = self.lengths[kb] = grown
        return lengths, place

    def add(self, rowid: int, title: str, content: str) -> None:
        touched: dict[str, Postings] = {}
        self._add(rowid, title, content, touched)
        for postings in touched.values():
            postings.bound_queue()

    def remove(self, rowid: int, title: str, content: str) -> None:
        """Take out the row, given the text it was added with."""
        touched: dict[str, Postings] = {}
        self._remove(rowid, title, content, touched)
        for postings in touched.values():
            postings.bound_queue()

    def _add(self, rowid: int, title: str, content: str, touched: dict[str, Postings]) -> None:
        """Queue the row in each of its terms' postings (named in `touched`)."""
        weights, length = weighted_counts(title, content)
        for term, weight in weights.items():
            postings = self.postings.get(term)
            if postings is None:
                postings = self.postings[term] = Postings(term=term)
            postings.added[rowid] = weight
            touched[term] = postings
        lengths, place = self._length_of(rowid)
        lengths[place] = length
        self.n_rows += 1
        self.total_tokens += length
        if not (title.isascii() and content.isascii()):
            self.non_ascii.add(rowid)

    def _remove(self, rowid: int, title: str, content: str, touched: dict[str, Postings]) -> None:
        lengths, place = self._length_of(rowid)
        self.total_tokens -= int(lengths[place])
        lengths[place] = 0
        self.n_rows -= 1
        self.non_ascii.discard(rowid)
        for term in {*tokens(title), *tokens(content)}:
            postings = touched[term] = self.postings[term]
            postings.added.pop(rowid, None)
            postings.removed.add(rowid)  # harmless if only ever queued: the merge finds nothing

    def search(
        self, words: list[str], first_rowid: int, last_rowid: int, limit: int
    ) -> tuple[int, list[int]] | None:
        """(matches among rowids first..last, the best `limit` rowids), as FTS5 ranks the
        query "w1" OR "w2" ... (score, then rowid); None where only FTS5 can answer exactly.

        Only the rows that can reach the top `limit` are scored (MaxScore, Turtle & Flood
        1995): each word's score is bounded by its idf, its best weighted count and the
        shortest row holding it; once the rows of the highest-bound word set a threshold,
        a row holding only words whose bounds sum below it cannot enter, so it is counted
        and never scored. The rows that are scored get FTS5's exact score."""
        query = self._query(words, first_rowid, last_rowid)
        if query is None:
            return None
        terms, idfs, avgdl = query
        found = [t for t in terms if t is not None]
        if not found:
            return 0, []
        first = min(int(t[0][0]) for t in found)
        seen = np.zeros(max(int(t[0][-1]) for t in found) - first + 1, bool)
        for rowids, _, _ in found:
            seen[rowids - first] = True
        total = int(np.count_nonzero(seen))
        candidates = None
        if limit < total:
            bounds = [
                0.0 if t is None else self._bound(i, t, avgdl)
                for t, i in zip(terms, idfs, strict=True)
            ]
            top = max(range(len(terms)), key=bounds.__getitem__)
            top_term = terms[top]
            assert top_term is not None  # a found word's bound is above 0, a missing one's 0
            first_scores = -self._score(top_term[0], terms, idfs, avgdl)
            if len(first_scores) >= limit:
                threshold = np.partition(first_scores, len(first_scores) - limit)[-limit]
                by_bound = sorted(range(len(terms)), key=bounds.__getitem__)
                below = np.cumsum([bounds[i] for i in by_bound]) < threshold * (1 - 1e-9)
                essential = [terms[i] for i, cut in zip(by_bound, below, strict=True) if not cut]
                candidates = np.unique(np.concatenate([t[0] for t in essential if t is not None]))
        if candidates is None:
            candidates = np.flatnonzero(seen) + first
        score = self._score(candidates, terms, idfs, avgdl)
        order = np.lexsort((candidates, score))[:limit]
        return total, candidates[order].tolist()

    def scores(
        self, words: list[str], first_rowid: int, last_rowid: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Every matching rowid in first..last (ascending) with FTS5's bm25(title 4, body 1)."""
        query = self._query(words, first_rowid, last_rowid)
        if query is None:
            return None
        terms, idfs, avgdl = query
        found = [t[0] for t in terms if t is not None]
        matched = np.unique(np.concatenate(found)) if found else np.empty(0, np.int64)
        return matched, self._score(matched, terms, idfs, avgdl)

    def _query(
        self, words: list[str], first_rowid: int, last_rowid: int
    ) -> tuple[list[Term | None], list[float], float] | None:
        """Each word's rows within the KB range (None if none), its idf over the whole
        table, and the average row length; None where only FTS5 can answer exactly."""
        self._drain()
        if self.non_ascii or not exact_words(words):
            return None
        kb = first_rowid >> KB_ROWID_BITS
        if first_rowid & KB_MASK or last_rowid != first_rowid | KB_MASK:
            return None  # not one KB's range: FTS5 answers
        n_rows = self.n_rows
        avgdl = float(self.total_tokens) / float(n_rows) if n_rows else 1.0
        terms: list[Term | None] = []
        idfs = []
        for w in words:
            posting = self.postings.get(w)
            p = posting.merged() if posting is not None else None
            n_hit = 0 if p is None else len(p.rowids)
            idfs.append(idf(n_rows, n_hit))
            if p is None or not n_hit:
                terms.append(None)
                continue
            lo, hi = np.searchsorted(p.rowids, [first_rowid, last_rowid + 1])
            if lo == hi:
                terms.append(None)
                continue
            rowids = p.rowids[lo:hi]
            length = self.lengths[kb][rowids - first_rowid].astype(np.float64)
            terms.append((rowids, p.weight[lo:hi].astype(np.float64), length))
        return terms, idfs, avgdl

    @staticmethod
    def _bound(word_idf: float, term: Term, avgdl: float) -> float:
        """No row's score for this word exceeds this: the best count in the shortest row."""
        _, weight, length = term
        f, shortest = float(weight.max()), float(length.min())
        return word_idf * ((f * (K1 + 1.0)) / (f + K1 * ((1 - B) + B * shortest / avgdl)))

    @staticmethod
    def _score(
        rowids: np.ndarray, terms: list[Term | None], idfs: list[float], avgdl: float
    ) -> np.ndarray:
        """FTS5's bm25 of these rows (ascending rowids)."""
        length = np.zeros(len(rowids))
        freqs = np.zeros((len(rowids), len(terms)))
        for j, term in enumerate(terms):
            if term is not None:
                term_rowids, weight, term_length = term
                at = np.searchsorted(term_rowids, rowids)
                inside = at < len(term_rowids)
                inside[inside] = term_rowids[at[inside]] == rowids[inside]
                freqs[inside, j] = weight[at[inside]]
                length[inside] = term_length[at[inside]]
        return bm25(freqs, np.array(idfs), length, avgdl)
