"""The human side of the store: what the KB editor app does.

It creates knowledge bases and articles, saves, publishes and unpublishes, and lists a KB's
articles, drafts included. The agent never calls these; its edit is the CAS in ``cas.py``.
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.kb.core import StoreCore, serialised
from sim.kb.rows import StoreError


class EditorSide(StoreCore):
    """The KB editor app's operations."""

    @serialised
    def create_kb(self, kb_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO kbs (kb_id, kb_no) VALUES (?, (SELECT coalesce(max(kb_no), 0) + 1 "
                "FROM kbs))",
                (kb_id,),
            )

    @serialised
    def create_articles(
        self, kb_id: str, articles: Iterable[tuple[str, str, str]], published: bool = True
    ) -> None:
        """Bulk create (article_id, title, content); one event each, one transaction."""
        self._search.before_bulk_load()
        try:
            self._create_articles(kb_id, articles, published)
        finally:
            self._search.rebuild()

    def _create_articles(
        self, kb_id: str, articles: Iterable[tuple[str, str, str]], published: bool
    ) -> None:
        with self._tx() as db:
            first, last = self._rowid_range(kb_id)
            (rowid,) = db.execute(
                "SELECT coalesce(max(rowid), ?) FROM articles WHERE rowid BETWEEN ? AND ?",
                (first - 1, first, last),
            ).fetchone()
            new = []
            for article_id, title, content in articles:
                us = self._clock()
                rowid += 1
                if rowid > last:
                    raise StoreError(f"knowledge base {kb_id!r} is full")
                new.append((rowid, kb_id, article_id, title, content, int(published), us))
            db.executemany(  # one statement run per row, as a loop of execute would
                "INSERT INTO articles (rowid, kb_id, article_id, title, content, published, "
                "updated_us) VALUES (?, ?, ?, ?, ?, ?, ?)",
                new,
            )
            if published:
                self._search.add_many([(r[0], r[3], r[4]) for r in new])
            if new:
                self._append_created(kb_id, new[0][0], [r[2] for r in new])

    @serialised
    def save(
        self,
        kb_id: str,
        article_id: str,
        content: str,
        title: str | None = None,
        actor: str = "human",
    ) -> int:
        """Human save of a published article or a draft; returns the new version."""
        with self._tx():
            row = self._require_row(kb_id, article_id)
            _, old_title, _, published, _ = row
            us, _ = self._write(
                row,
                kb_id,
                article_id,
                old_title if title is None else title,
                content,
                bool(published),
                "saved",
                actor,
            )
        return us

    @serialised
    def set_published(self, kb_id: str, article_id: str, published: bool) -> int:
        with self._tx():
            row = self._require_row(kb_id, article_id)
            _, title, content, _, _ = row
            type_ = "published" if published else "unpublished"
            us, _ = self._write(row, kb_id, article_id, title, content, published, type_, "human")
        return us

    @serialised
    def article_ids(self, kb_id: str) -> list[str]:
        """Every article of a KB, drafts included, in id order: the editor app's list."""
        rows = self._db.execute(
            "SELECT article_id FROM articles WHERE kb_id = ? ORDER BY article_id", (kb_id,)
        ).fetchall()
        return [r[0] for r in rows]
