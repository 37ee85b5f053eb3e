"""The store's reads the tools make: only published articles and the event log.

Whether a KB exists, a published article, both searches (the in-memory index where it is exact,
FTS5 the search of record), which of some ids are unpublished now, and the event log's head
and pages: everything the agent may see, and nothing else.
"""

from __future__ import annotations

from sim.kb.core import StoreCore, serialised
from sim.kb.rows import Article, Event, EventPage, SearchHit, StoreError


class ToolReads(StoreCore):
    """What the tools may read: published articles, search and the event log."""

    def kb_exists(self, kb_id: str) -> bool:
        """Every tool call asks; a KB known to exist is answered without the lock (a KB is
        never removed, and a dict lookup is atomic)."""
        return kb_id in self._rowid_ranges or self._kb_stored(kb_id)

    @serialised
    def _kb_stored(self, kb_id: str) -> bool:
        return (
            self._db.execute("SELECT 1 FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone() is not None
        )

    @serialised
    def published_article(self, kb_id: str, article_id: str) -> Article | None:
        row = self._row(kb_id, article_id)
        if row is None or not row[3]:
            return None
        return Article(kb_id, article_id, row[1], row[2], True, row[4])

    @serialised
    def search(self, kb_id: str, words: list[str], limit: int) -> tuple[int, list[SearchHit]]:
        """(published articles containing any of the words, the best `limit` of them by
        FTS5's bm25): from the in-memory index where it is exact, else from FTS5; the index
        first takes in any commit another connection made (``_sync``)."""
        self._sync()
        return self._search.search(*self._rowid_range(kb_id), words, limit)

    @serialised
    def search_fts5(self, kb_id: str, words: list[str], limit: int) -> tuple[int, list[SearchHit]]:
        """The same answer from FTS5 itself: the search of record."""
        return self._search.search_fts5(*self._rowid_range(kb_id), words, limit)

    @serialised
    def unpublished_among(self, kb_id: str, article_ids: list[str]) -> list[str]:
        """Those of the ids that name an article not published now, in the order given."""
        rows = self._db.execute(
            "SELECT article_id FROM articles WHERE kb_id = ? AND published = 0", (kb_id,)
        ).fetchall()  # few are unpublished; no bound parameter per id, however many ids
        hidden = {r[0] for r in rows}
        return [a for a in article_ids if a in hidden]

    @serialised
    def head_sequence(self, kb_id: str) -> int:
        row = self._db.execute("SELECT head_sequence FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone()
        if row is None:
            raise StoreError(f"no knowledge base {kb_id!r}")
        return row[0]

    @serialised
    def published_article_at_head(self, kb_id: str, article_id: str) -> tuple[Article | None, int]:
        """The published article (None if none) and the KB's head sequence, in one statement:
        the head is the one of the version read, and a read costs one statement, not two."""
        row = self._db.execute(
            "SELECT k.head_sequence, a.title, a.content, a.published, a.updated_us FROM kbs AS k "
            "LEFT JOIN articles AS a ON a.kb_id = k.kb_id AND a.article_id = ? WHERE k.kb_id = ?",
            (article_id, kb_id),
        ).fetchone()
        if row is None:
            raise StoreError(f"no knowledge base {kb_id!r}")
        head, title, content, published, updated_us = row
        if not published:
            return None, head
        return Article(kb_id, article_id, title, content, True, updated_us), head

    @serialised
    def events_after(self, kb_id: str, after_sequence: int, limit: int) -> EventPage:
        """The events after `after_sequence` (none if it is at or past the head: no statement
        is run for them, and a number too large for SQLite is never bound)."""
        row = self._db.execute(
            "SELECT head_sequence, (SELECT min(sequence) FROM events WHERE kb_id = ?1) "
            "FROM kbs WHERE kb_id = ?1",
            (kb_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no knowledge base {kb_id!r}")
        head, oldest = row
        rows = []
        if after_sequence < head:
            rows = self._db.execute(
                "SELECT sequence, type, article_id, updated_us, actor FROM events "
                "WHERE kb_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                (kb_id, after_sequence, limit),
            ).fetchall()
        events = list(map(Event._make, rows))
        return EventPage(events, head, head + 1 if oldest is None else oldest)
