"""The store's search: FTS5, the search of record, written inside the store's own
transactions, and the in-memory index that ranks exactly as FTS5 does, kept equal to the
committed published rows (a rolled-back write never reaches it).

The store owns one ``Search`` and calls it under its lock: ``add`` and ``remove`` inside
a transaction, ``committed`` or ``rolled_back`` when it ends.
"""

from __future__ import annotations

import sqlite3

from sim.kb.index import BM25Index, Op
from sim.kb.matrix_index import MatrixIndex
from sim.kb.rows import SearchHit
from sim.kb.schema import COUNT_SQL, SEARCH_SQL

INDEX_MIN_ROWS = 3_000
"""Published articles from which search ranks from posting arrays (``index.py``) rather
than the row × term matrix (``matrix_index.py``); both are exact. Measured on the study's
staleness day scaled with the KB (one run each, 2 cores): at 400 articles the day takes
0.15 s with the matrix and 0.30 s with postings, at 2,000 0.99 s and 1.45 s, at 3,000
1.94 s and 2.13 s, at 4,000 2.99 s and 2.77 s; the matrix's memory grows as rows × terms
(12 MiB more than postings at 3,000)."""

INDEX_BUILD_BATCH = 1_000
"""Rows the posting arrays' bulk build tokenizes at a time: bounds its memory."""

SearchIndex = BM25Index | MatrixIndex


class Search:
    def __init__(self, db: sqlite3.Connection, index_min_rows: int = INDEX_MIN_ROWS) -> None:
        self._db = db
        self.min_rows = index_min_rows
        self.index: SearchIndex | None = None
        self._ops: list[Op] = []
        self.rebuild()

    # -- writes, inside the store's transaction --------------------------------
    def add(self, rowid: int, title: str, content: str) -> None:
        """A row becomes published (or is saved while published)."""
        self._db.execute(
            "INSERT INTO articles_fts (rowid, title, content) VALUES (?, ?, ?)",
            (rowid, title, content),
        )
        if self.index is not None:
            self._ops.append((True, rowid, title, content))

    def add_many(self, rows: list[tuple[int, str, str]]) -> None:
        """Rows (rowid, title, content) become published: ``add`` for each, in order."""
        self._db.executemany(
            "INSERT INTO articles_fts (rowid, title, content) VALUES (?, ?, ?)", rows
        )
        if self.index is not None:
            self._ops += [(True, *row) for row in rows]

    def remove(self, rowid: int, title: str, content: str) -> None:
        """A published row leaves, by the text it was indexed with (external content)."""
        self._db.execute(
            "INSERT INTO articles_fts (articles_fts, rowid, title, content) "
            "VALUES ('delete', ?, ?, ?)",
            (rowid, title, content),
        )
        if self.index is not None:
            self._ops.append((False, rowid, title, content))

    def committed(self) -> None:
        if self.index is not None:
            self.index.apply(self._ops)  # exactly what was committed
        self._ops = []

    def rolled_back(self) -> None:
        self._ops = []

    # -- the in-memory index ----------------------------------------------------
    def rebuild(self) -> None:
        """Index the published rows if the index is missing or of the wrong layout: a
        matrix while the KB is small, posting arrays from min_rows on."""
        (rows,) = self._db.execute("SELECT count(*) FROM articles WHERE published = 1").fetchone()
        large = rows >= self.min_rows
        if self.index is not None and isinstance(self.index, BM25Index) == large:
            return
        rows = self._db.execute(
            "SELECT rowid, title, content FROM articles WHERE published = 1 ORDER BY rowid"
        )
        if large:
            self.index = BM25Index.built(rows, INDEX_BUILD_BATCH)
            return
        matrix = MatrixIndex()
        for rowid, title, content in rows:
            matrix.add(rowid, title, content)
        self.index = matrix

    def reload(self) -> None:
        """Index the published rows afresh: another connection changed them, and this index
        knows nothing of what it indexed then."""
        self.index = None
        self._ops = []
        self.rebuild()

    def before_bulk_load(self) -> None:
        """A matrix is dropped (and rebuilt after the load, from what committed): a bulk
        load may take the KB past min_rows, and the matrix must not grow that large."""
        if isinstance(self.index, MatrixIndex):
            self.index = None

    def copy_index(self, other: Search) -> None:
        """Take a copy of another store's index, its pages having been copied here."""
        self.index = other.index.copy() if other.index is not None else None

    # -- reads --------------------------------------------------------------------
    def search(
        self, first_rowid: int, last_rowid: int, words: list[str], limit: int
    ) -> tuple[int, list[SearchHit]]:
        """(rows in first..last containing any of the words, the best `limit` of them by
        FTS5's bm25): from the in-memory index where it is exact, else from FTS5."""
        ranked = None
        if self.index is not None:
            ranked = self.index.search(words, first_rowid, last_rowid, limit)
        if ranked is None:
            return self.search_fts5(first_rowid, last_rowid, words, limit)
        total, rowids = ranked
        if not rowids:
            return total, []
        found = {
            r[0]: SearchHit(*r[1:])
            for r in self._db.execute(
                "SELECT rowid, article_id, title, updated_us FROM articles WHERE rowid IN "
                f"({','.join('?' * len(rowids))})",  # at most MAX_SEARCH_LIMIT rowids
                rowids,
            )
        }
        return total, [found[r] for r in rowids]

    def search_fts5(
        self, first_rowid: int, last_rowid: int, words: list[str], limit: int
    ) -> tuple[int, list[SearchHit]]:
        """The same answer from FTS5 itself: the search of record."""
        fts_query = " OR ".join(f'"{w}"' for w in words)  # quoted: no operator can be injected
        rows = self._db.execute(SEARCH_SQL, (fts_query, first_rowid, last_rowid, limit)).fetchall()
        if not rows:
            return 0, []
        (total,) = self._db.execute(COUNT_SQL, (fts_query, first_rowid, last_rowid)).fetchone()
        return total, [SearchHit(*r) for r in rows]
