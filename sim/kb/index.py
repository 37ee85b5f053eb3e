"""FTS5's own bm25 ranking, computed over in-memory posting arrays.

FTS5 computes ``bm25()`` for every row that matches before it can sort, so a search
costs what its matches cost, and a question's common words match a fixed share of any
KB. This index holds, per term, the sorted rowids of the published rows containing it
with their title and body term counts and row lengths, and evaluates exactly FTS5's
formula (``ext/fts5/fts5_aux.c``, SQLite 3.40: k1 = 1.2, b = 0.75, idf =
log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, column weights title 4 and body 1, N and
the average row length over the whole FTS table) with the same floating-point operations
in the same order, then sorts by (score, rowid) as the SQL does. A property test holds
it to FTS5 on random corpora and edit sequences.

Scope: unicode61 tokenization is reproduced for ASCII only (runs of letters and digits,
lower-cased). While any indexed row holds a non-ASCII character, or a query word is not
a single ASCII token, ``search`` returns None and the store asks FTS5, which stays the
search of record. The store applies changes at commit, never for a rolled-back write.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 4.0
MAX_QUEUED = 64
_TOKEN = re.compile(r"[a-z0-9]+")
_ASCII_TOKEN = re.compile(r"[a-z0-9]+\Z")


def tokens(text: str) -> list[str]:
    """unicode61's tokens of ASCII text: runs of letters and digits, lower-cased."""
    return _TOKEN.findall(text.lower())


@dataclass
class Postings:
    """One term's rows, sorted by rowid. Writes are queued and merged, in a few array
    operations, when a search next needs the term: a save touches every term of its row,
    a search only its own few."""

    rowids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    title_tf: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    body_tf: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    length: np.ndarray = field(default_factory=lambda: np.empty(0, np.int32))
    term: str = ""
    added: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)

    def insert(self, rowid: int, title_tf: int, body_tf: int, length: int) -> None:
        self.added[rowid] = (title_tf, body_tf, length)
        self._bound_queue()

    def remove(self, rowid: int) -> None:
        self.added.pop(rowid, None)
        self.removed.add(rowid)  # harmless if only ever queued: the merge finds nothing
        self._bound_queue()

    def _bound_queue(self) -> None:
        """A term no search asks for still merges once its queue outgrows a quarter of its
        rows, so memory stays bounded and each merge's cost is amortised."""
        if len(self.added) + len(self.removed) > max(MAX_QUEUED, len(self.rowids) // 4):
            self.merged()

    def merged(self) -> Postings:
        if self.added or self.removed:
            keep = ~np.isin(self.rowids, np.fromiter(self.removed, np.int64, len(self.removed)))
            new = np.array([(r, *v) for r, v in self.added.items()], np.int64).reshape(-1, 4)
            rowids = np.concatenate([self.rowids[keep], new[:, 0]])
            order = np.argsort(rowids, kind="stable")
            self.rowids = rowids[order]
            i32 = np.int32
            self.title_tf = np.concatenate([self.title_tf[keep], new[:, 1].astype(i32)])[order]
            self.body_tf = np.concatenate([self.body_tf[keep], new[:, 2].astype(i32)])[order]
            self.length = np.concatenate([self.length[keep], new[:, 3].astype(i32)])[order]
            self.added, self.removed = {}, set()
        return self

    def copy(self) -> Postings:
        m = self.merged()
        return Postings(
            m.rowids.copy(), m.title_tf.copy(), m.body_tf.copy(), m.length.copy(), m.term
        )


@dataclass(slots=True)
class _Row:
    terms: tuple[str, ...]
    """The row's distinct terms, the postings' own key strings (one copy of each term)."""
    length: int
    ascii: bool


class BM25Index:
    def __init__(self) -> None:
        self.postings: dict[str, Postings] = {}
        self.rows: dict[int, _Row] = {}
        self.total_tokens = 0
        self.non_ascii_rows = 0
        self._queued: list[int | tuple[int, str, str]] = []

    def apply(self, ops: list[int | tuple[int, str, str]]) -> None:
        """Committed writes, in order: a rowid removed, or (rowid, title, content) added.
        They are tokenized when a search next needs them, so a save costs no more than
        FTS5's own update."""
        self._queued.extend(ops)

    def _drain(self) -> None:
        for op in self._queued:
            if isinstance(op, int):
                self.remove(op)
            else:
                self.add(*op)
        self._queued = []

    def compact(self) -> None:
        """Merge every queued write into the arrays (a bulk load calls it now and then, so
        the queue's Python objects never pile up)."""
        self._drain()
        for postings in self.postings.values():
            postings.merged()

    def copy(self) -> BM25Index:
        self._drain()
        other = BM25Index()
        other.postings = {t: p.copy() for t, p in self.postings.items()}
        other.rows = dict(self.rows)
        other.total_tokens = self.total_tokens
        other.non_ascii_rows = self.non_ascii_rows
        return other

    def add(self, rowid: int, title: str, content: str) -> None:
        is_ascii = title.isascii() and content.isascii()
        title_tokens, body_tokens = tokens(title), tokens(content)
        in_title, in_body = Counter(title_tokens), Counter(body_tokens)
        length = len(title_tokens) + len(body_tokens)
        keys = []
        for term in in_title.keys() | in_body.keys():
            postings = self.postings.get(term)
            if postings is None:
                postings = self.postings[term] = Postings(term=term)
            postings.insert(rowid, in_title[term], in_body[term], length)
            keys.append(postings.term)
        self.rows[rowid] = _Row(tuple(keys), length, is_ascii)
        self.total_tokens += length
        self.non_ascii_rows += not is_ascii

    def remove(self, rowid: int) -> None:
        row = self.rows.pop(rowid)
        self.total_tokens -= row.length
        self.non_ascii_rows -= not row.ascii
        for term in row.terms:
            self.postings[term].remove(rowid)

    def search(
        self, words: list[str], first_rowid: int, last_rowid: int, limit: int
    ) -> tuple[int, list[int]] | None:
        """(matches among rowids first..last, the best `limit` rowids), as FTS5 ranks the
        query "w1" OR "w2" ... (score, then rowid); None where only FTS5 can answer exactly."""
        scored = self.scores(words, first_rowid, last_rowid)
        if scored is None:
            return None
        rowids, score = scored
        order = np.lexsort((rowids, score))[:limit]
        return len(rowids), rowids[order].tolist()

    def scores(
        self, words: list[str], first_rowid: int, last_rowid: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Every matching rowid in first..last (ascending) with FTS5's bm25(title 4, body 1)."""
        self._drain()
        if self.non_ascii_rows or not all(_ASCII_TOKEN.match(w) for w in words):
            return None
        empty = np.empty(0, np.int64), np.empty(0)
        n_rows = len(self.rows)
        phrases = [p.merged() if (p := self.postings.get(w)) else None for w in words]
        phrases = [p if p is not None and len(p.rowids) else None for p in phrases]
        found = [p for p in phrases if p is not None]
        if not n_rows or not found:
            return empty
        matched = np.unique(np.concatenate([p.rowids for p in found]))
        lo, hi = np.searchsorted(matched, [first_rowid, last_rowid + 1])
        matched = matched[lo:hi]
        if not len(matched):
            return empty
        avgdl = float(self.total_tokens) / float(n_rows)
        length = np.zeros(len(matched))
        score = np.zeros(len(matched))
        weighted = []
        for p in found:
            at = np.searchsorted(matched, p.rowids)
            inside = at < len(matched)
            inside[inside] = matched[at[inside]] == p.rowids[inside]
            length[at[inside]] = p.length[inside]
            weighted.append((at[inside], TITLE_WEIGHT * p.title_tf[inside] + p.body_tf[inside]))
        norm = K1 * ((1 - B) + B * length / avgdl)
        terms = iter(weighted)
        for p in phrases:
            n_hit = 0 if p is None else len(p.rowids)
            idf = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5))
            if idf <= 0.0:
                idf = 1e-6
            freq = np.zeros(len(matched))
            if p is not None:
                at, weight = next(terms)
                freq[at] = weight
            score = score + idf * ((freq * (K1 + 1.0)) / (freq + norm))
        return matched, -1.0 * score
