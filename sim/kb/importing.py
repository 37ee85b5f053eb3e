"""The store's side of an import: a KB's history from outside, appended in one transaction.

An importer (``sim.importer``) hands the whole history it knows, oldest first, and the
articles' states after it. The events the KB already holds must be the start of that
history (an import again after new commits appends only the rest, so a client's cursor
stays valid); anything else is refused and nothing is written, but for an agent's saves
through ``serve`` that the new commits carry (``export``, then a commit: ``adopting.py``).
Rows are written where they differ, FTS kept equal to the published set as every other
write does. Beside them, each article's page (``imported_pages``: its file, its route under
the site's base URL in ``imported_sites``, the file's text before the article's and, in
``imported_tails``, after it, and a digest of the title and text imported), so that a
citation can carry the page's address (``page_url``) and an export can write back what was
edited since, byte for byte (``imported_pages``); and the digest of each edit log the
import wrote beside the KB (``imported_edit_logs``), the only files it may replace.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from typing import NamedTuple

from sim.kb.adopting import AgentEditsNotTaken, HistoryDiverged, align
from sim.kb.core import StoreCore, serialised
from sim.kb.rows import StoreError

__all__ = ["AgentEditsNotTaken", "HistoryDiverged", "Importing", "Page", "digest"]

ImportedEvent = tuple[str, str, int]
"""(type, article_id, updated_us) of one event of the history."""
ImportedRow = tuple[str, str, str, bool, int]
"""(article_id, title, content, published, updated_us): an article after the history."""

ImportedPage = tuple[str, str, str, str, str, str]
"""(article_id, path, route, the file's text before the article's (its front matter and the
line breaks after it) and after it (the line breaks that end it), as written, and the digest
of the title and text)."""


class Page(NamedTuple):
    """An imported article's file, as its last import read it: what export writes back."""

    path: str
    before: str
    after: str
    digest: str


PAGES_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS imported_pages (kb_id TEXT NOT NULL, article_id TEXT NOT NULL, "
    "path TEXT NOT NULL, route TEXT NOT NULL, front_matter TEXT NOT NULL, digest TEXT NOT NULL, "
    "PRIMARY KEY (kb_id, article_id))",
    "CREATE TABLE IF NOT EXISTS imported_tails (kb_id TEXT NOT NULL, article_id TEXT NOT NULL, "
    "tail TEXT NOT NULL, PRIMARY KEY (kb_id, article_id))",
    "CREATE TABLE IF NOT EXISTS imported_edit_logs (sha256 TEXT PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS imported_sites (kb_id TEXT PRIMARY KEY, base_url TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS imported_adoptions (kb_id TEXT NOT NULL, sequence INTEGER NOT "
    "NULL, type TEXT NOT NULL, article_id TEXT NOT NULL, history_us INTEGER NOT NULL, "
    "PRIMARY KEY (kb_id, sequence))",
)
"""Made by the first import that writes pages: a KB file without them is still one (one
without ``imported_tails``, written before it, exports each file ending in one newline)."""

_SUFFIXES = (".md", ".mdx", ".markdown")
"""The suffixes of an article's file (``sim.importer.markdown.SUFFIXES``)."""


def digest(title: str, content: str) -> str:
    """What an article's title and text are, short: equal digests, equal articles."""
    return hashlib.sha256(f"{title}\0{content}".encode()).hexdigest()


class Importing(StoreCore):
    """Appending an outside history to a KB."""

    @serialised
    def import_history(
        self,
        kb_id: str,
        history: Sequence[ImportedEvent],
        rows: Sequence[ImportedRow],
        pages: Sequence[ImportedPage] = (),
        base_url: str | None = None,
        edit_log: str | None = None,
    ) -> int:
        """Append the events of `history` the KB lacks and write `rows` and `pages` (and the
        site's `base_url`, kept from the last import when None, and the SHA-256 of the
        `edit_log` the import writes beside the KB: one it may replace); the events appended.

        Creates the KB if missing. Raises HistoryDiverged, writing nothing, when the KB's
        events are not ``history[:k]`` (k = how many it holds), unless those past it are an
        agent's saves the history's new commits carry (``adopting.py``: they then stand
        for those commits, which are not appended)."""
        self._search.before_bulk_load()
        try:
            with self._tx() as db:
                if not db.execute("SELECT 1 FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone():
                    db.execute(
                        "INSERT INTO kbs (kb_id, kb_no) VALUES (?, (SELECT coalesce(max(kb_no), "
                        "0) + 1 FROM kbs))",
                        (kb_id,),
                    )
                held = db.execute(
                    "SELECT sequence, type, article_id, updated_us, actor FROM events "
                    "WHERE kb_id = ? ORDER BY sequence",
                    (kb_id,),
                ).fetchall()
                adopted = self._adoptions(db, kb_id)
                final = {r[0]: r for r in rows}
                plan = align(kb_id, held, adopted, history, final, self._now_of(kb_id))
                for statement in PAGES_SCHEMA:
                    db.execute(statement)
                db.executemany(
                    "INSERT INTO imported_adoptions VALUES (?, ?, ?, ?, ?)",
                    [(kb_id, *a) for a in plan.adoptions],
                )
                kept = {(aid, us) for _, _, aid, us in [*adopted, *plan.adoptions]}
                self._write_rows(db, kb_id, [r for r in rows if (r[0], r[4]) not in kept])
                self._write_pages(db, kb_id, self._kept_pages(kb_id, pages, final, kept), base_url)
                if edit_log is not None:
                    db.execute("INSERT OR IGNORE INTO imported_edit_logs VALUES (?)", (edit_log,))
                new = [(t, a, us, "human") for t, a, us in plan.new]
                if new:
                    self._append_events(kb_id, new)
        finally:
            self._search.rebuild()
        return len(new)

    @serialised
    def shift_versions(self, kb_id: str, before_us: int) -> int:
        """Move every version of the KB back by one offset so that the latest is before
        `before_us` (order and spacing kept, so every CAS version and event stays
        consistent); the offset (0 if none was needed). For a copy that a simulated day
        opens: its clock starts at a fixed instant, which a history may run past."""
        with self._tx() as db:
            (latest,) = db.execute(
                "SELECT max(updated_us) FROM events WHERE kb_id = ?", (kb_id,)
            ).fetchone()
            by = 0 if latest is None or latest < before_us else latest - before_us + 1
            if by:
                for table in ("articles", "events"):
                    db.execute(
                        f"UPDATE {table} SET updated_us = updated_us - ? WHERE kb_id = ?",
                        (by, kb_id),
                    )
        return by

    def _write_pages(
        self,
        db: sqlite3.Connection,
        kb_id: str,
        pages: Sequence[ImportedPage],
        base_url: str | None,
    ) -> None:
        for statement in PAGES_SCHEMA:
            db.execute(statement)
        db.executemany(
            "INSERT OR REPLACE INTO imported_pages VALUES (?, ?, ?, ?, ?, ?)",
            [(kb_id, aid, path, route, before, dig) for aid, path, route, before, _, dig in pages],
        )
        db.executemany(
            "INSERT OR REPLACE INTO imported_tails VALUES (?, ?, ?)",
            [(kb_id, page[0], page[4]) for page in pages],
        )
        if base_url is not None:
            db.execute("INSERT OR REPLACE INTO imported_sites VALUES (?, ?)", (kb_id, base_url))

    def _adoptions(self, db: sqlite3.Connection, kb_id: str) -> list[tuple[int, str, str, int]]:
        """The KB's saves that stand for a commit (none before the first adoption)."""
        if not db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'imported_adoptions'"
        ).fetchone():
            return []
        return db.execute(
            "SELECT sequence, type, article_id, history_us FROM imported_adoptions "
            "WHERE kb_id = ? ORDER BY sequence",
            (kb_id,),
        ).fetchall()

    def _now_of(self, kb_id: str) -> Callable[[str], tuple[str, str, bool] | None]:
        def now(article_id: str) -> tuple[str, str, bool] | None:
            row = self._row(kb_id, article_id)
            return None if row is None else (row[1], row[2], bool(row[3]))

        return now

    def _kept_pages(
        self,
        kb_id: str,
        pages: Sequence[ImportedPage],
        final: dict[str, ImportedRow],
        kept: set[tuple[str, int]],
    ) -> list[ImportedPage]:
        """`pages`, the digest of an article whose row the KB keeps (an adopted edit) that of
        the KB's title and text, so export finds nothing to write back for it."""
        out = []
        for aid, path, route, before, after, dig in pages:
            if aid in final and (aid, final[aid][4]) in kept:
                row = self._row(kb_id, aid)
                dig = dig if row is None else digest(row[1], row[2])
            out.append((aid, path, route, before, after, dig))
        return out

    def _has_pages(self) -> bool:
        return bool(
            self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'imported_sites'").fetchone()
        )

    def page_url(self, kb_id: str, article_id: str) -> str | None:
        """The public address of an imported article's page: the site's base URL (``import
        --base-url``) and the page's route; None without one (or for an article no import
        wrote)."""
        return self.page_urls(kb_id, [article_id]).get(article_id)

    @serialised
    def page_urls(self, kb_id: str, article_ids: Sequence[str]) -> dict[str, str]:
        """Article id -> its page's public address, for those of `article_ids` that have one
        (none unless the KB was imported with ``--base-url``; a route that is not a path,
        an absolute URL, is the page's own address, never put under the base URL): what
        search and read give beside each citation so a person can open it."""
        if not article_ids or not self._has_pages():
            return {}
        marks = ", ".join("?" * len(article_ids))
        return {
            aid: base.rstrip("/") + route if route.startswith("/") else route
            for aid, base, route in self._db.execute(
                "SELECT p.article_id, s.base_url, p.route FROM imported_pages p "
                "JOIN imported_sites s USING (kb_id) "
                f"WHERE p.kb_id = ? AND p.route != '' AND p.article_id IN ({marks})",
                (kb_id, *article_ids),
            )
        }

    @serialised
    def article_at(self, kb_id: str, path_id: str) -> str | None:
        """The imported article whose file is now at `path_id` with a Markdown suffix, when
        that is not its id (a renamed file's current path, asked as an id), else None."""
        if not self._has_pages():
            return None
        paths = [path_id + suffix for suffix in _SUFFIXES]
        row = self._db.execute(
            "SELECT article_id FROM imported_pages WHERE kb_id = ? AND path IN (?, ?, ?) "
            "AND article_id != ? ORDER BY article_id LIMIT 1",
            (kb_id, *paths, path_id),
        ).fetchone()
        return None if row is None else str(row[0])

    @serialised
    def imported_pages(self, kb_id: str) -> dict[str, Page]:
        """Article id -> its file as its last import read it, for every article an import
        wrote."""
        if not self._has_pages():
            return {}
        tails = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'imported_tails'"
        ).fetchone()
        tail = "coalesce(t.tail, char(10))" if tails else "char(10)"
        join = "LEFT JOIN imported_tails t USING (kb_id, article_id) " if tails else ""
        return {
            row[0]: Page(*row[1:])
            for row in self._db.execute(
                f"SELECT article_id, path, front_matter, {tail}, digest FROM imported_pages "
                f"{join}WHERE kb_id = ? ORDER BY article_id",
                (kb_id,),
            )
        }

    def _write_rows(self, db: sqlite3.Connection, kb_id: str, rows: Sequence[ImportedRow]) -> None:
        first, last = self._rowid_range(kb_id)
        (rowid,) = db.execute(
            "SELECT coalesce(max(rowid), ?) FROM articles WHERE rowid BETWEEN ? AND ?",
            (first - 1, first, last),
        ).fetchone()
        for article_id, title, content, published, us in rows:
            old = self._row(kb_id, article_id)
            if old is None:
                rowid += 1
                if rowid > last:
                    raise StoreError(f"knowledge base {kb_id!r} is full")
                db.execute(
                    "INSERT INTO articles (rowid, kb_id, article_id, title, content, published, "
                    "updated_us) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rowid, kb_id, article_id, title, content, int(published), us),
                )
                if published:
                    self._search.add(rowid, title, content)
                continue
            old_rowid, old_title, old_content, was_published, old_us = old
            if (old_title, old_content, bool(was_published), old_us) == (
                title, content, published, us,
            ):  # fmt: skip
                continue
            db.execute(
                "UPDATE articles SET title = ?, content = ?, published = ?, updated_us = ? "
                "WHERE rowid = ?",
                (title, content, int(published), us, old_rowid),
            )
            if was_published:
                self._search.remove(old_rowid, old_title, old_content)
            if published:
                self._search.add(old_rowid, title, content)
