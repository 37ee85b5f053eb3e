"""FTS5's bm25 over a dense matrix of terms and rows: the search of a small KB.

A help centre of a few hundred articles has a few hundred distinct terms (the study's
400 articles hold 249), so its whole index is a small matrix of weighted counts (title
4, body 1, as FTS5 weighs them). A search gathers its words' counts and scores every
row of the KB in a handful of array operations, whatever share of the rows match; a
save rewrites one row's counts. The matrix is stored a term to a line (terms × rows): a
search's gather then copies a few contiguous lines rather than picking a few values out
of every row (measured: the matrix's search some 15 % cheaper on a day's queries).
The posting arrays of ``index.py`` pay per merge and per array operation, which is what
a large KB needs and a small one cannot amortise (the store says where it switches, and
why).

Same formula, same scope (ASCII tokens; else None and FTS5 answers) and the same
property test against FTS5 as ``index.py``. Changes apply at once, at commit.
"""

from __future__ import annotations

import numpy as np

from sim.kb.fts5 import bm25, exact_words, idf, weighted_counts
from sim.kb.index import Op


class MatrixIndex:
    def __init__(self) -> None:
        self.columns: dict[str, int] = {}
        """Term -> its column."""
        self.slots: dict[int, int] = {}
        """Rowid -> its slot (a column of counts), all zeros while the row is out (a save
        takes it back)."""
        self.indexed: set[int] = set()
        self.non_ascii: set[int] = set()
        self.counts: np.ndarray = np.zeros((64, 64), np.int32)
        """Weighted counts, terms × slots."""
        self.rowid: np.ndarray = np.zeros(64, np.int64)
        self.length: np.ndarray = np.zeros(64)
        self.df: np.ndarray = np.zeros(64, np.int64)
        """Rows holding each term, over the whole table (FTS5's idf counts them all)."""
        self.total_tokens = 0
        self._range_key: tuple[int, int, int] | None = None
        self._range_mask = np.zeros(0, bool)

    def __len__(self) -> int:
        return len(self.indexed)

    def apply(self, ops: list[Op]) -> None:
        """Committed writes, in order, at once (a row's own counts say what to take out)."""
        for added, rowid, title, content in ops:
            if added:
                self.add(rowid, title, content)
            else:
                self.remove(rowid)

    def copy(self) -> MatrixIndex:
        other = MatrixIndex()
        other.columns = dict(self.columns)
        other.slots = dict(self.slots)
        other.indexed = set(self.indexed)
        other.non_ascii = set(self.non_ascii)
        for name in ("counts", "rowid", "length", "df"):
            setattr(other, name, getattr(self, name).copy())
        other.total_tokens = self.total_tokens
        return other

    def add(self, rowid: int, title: str, content: str) -> None:
        weights, length = weighted_counts(title, content)
        known = list(map(self.columns.get, weights))
        if None in known:
            known = list(map(self._column, weights))
        columns = np.array(known, np.int64)
        slot = self._slot(rowid)
        self.counts[columns, slot] = list(weights.values())
        self.df[columns] += 1
        self.indexed.add(rowid)
        self.length[slot] = length
        self.total_tokens += length
        if not (title.isascii() and content.isascii()):
            self.non_ascii.add(rowid)

    def remove(self, rowid: int) -> None:
        slot = self.slots[rowid]
        columns = np.flatnonzero(self.counts[:, slot])
        self.counts[columns, slot] = 0
        self.df[columns] -= 1
        self.indexed.remove(rowid)
        self.total_tokens -= int(self.length[slot])
        self.non_ascii.discard(rowid)

    def _column(self, term: str) -> int:
        column = self.columns.get(term)
        if column is None:
            column = self.columns[term] = len(self.columns)
            if column == self.counts.shape[0]:
                self.counts = np.pad(self.counts, ((0, column), (0, 0)))
                self.df = np.pad(self.df, (0, column))
        return column

    def _slot(self, rowid: int) -> int:
        slot = self.slots.get(rowid)
        if slot is None:
            slot = self.slots[rowid] = len(self.slots)
            if slot == len(self.rowid):
                self.counts = np.pad(self.counts, ((0, 0), (0, slot)))
                self.rowid, self.length = (np.pad(a, (0, slot)) for a in (self.rowid, self.length))
            self.rowid[slot] = rowid
        return slot

    def search(
        self, words: list[str], first_rowid: int, last_rowid: int, limit: int
    ) -> tuple[int, list[int]] | None:
        """(matches among rowids first..last, the best `limit` rowids), as FTS5 ranks the
        query "w1" OR "w2" ... (score, then rowid); None where only FTS5 can answer exactly."""
        scored = self._matches(words, first_rowid, last_rowid)
        if scored is None:
            return None
        rowids, score = scored
        order = np.lexsort((rowids, score))[:limit]
        return len(rowids), rowids[order].tolist()

    def scores(
        self, words: list[str], first_rowid: int, last_rowid: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """Every matching rowid in first..last (ascending) with FTS5's bm25(title 4, body 1)."""
        scored = self._matches(words, first_rowid, last_rowid)
        if scored is None:
            return None
        rowids, score = scored
        order = np.argsort(rowids)
        return rowids[order], score[order]

    def _matches(
        self, words: list[str], first_rowid: int, last_rowid: int
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The matching rows' rowids (in slot order) and scores."""
        if self.non_ascii:
            return None
        columns = self.columns
        found = []
        for w in words:
            column = columns.get(w)
            if column is not None:  # a term indexed is one ASCII token: exact
                found.append(column)
            elif not exact_words([w]):
                return None
            # a word no row holds adds +0.0 to every score, which changes no score: left out
        n = len(self.slots)
        if not found or not n:
            return np.empty(0, np.int64), np.empty(0)
        block = self.counts[found, :n]
        hit = (block.any(axis=0) & self._in_range(n, first_rowid, last_rowid)).nonzero()[0]
        n_rows = len(self.indexed)
        avgdl = float(self.total_tokens) / float(n_rows) if n_rows else 1.0
        idfs = np.array([idf(n_rows, df) for df in self.df[found].tolist()])
        return self.rowid[hit], bm25(block[:, hit].T, idfs, self.length[hit], avgdl)

    def _in_range(self, n: int, first_rowid: int, last_rowid: int) -> np.ndarray:
        """Which of the first n slots hold a rowid of the KB (kept until a slot is added)."""
        key = (n, first_rowid, last_rowid)
        if self._range_key != key:
            rowid = self.rowid[:n]
            self._range_mask = (rowid >= first_rowid) & (rowid <= last_rowid)
            self._range_key = key
        return self._range_mask
