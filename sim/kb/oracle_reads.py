"""The ground-truth oracle's reads, behind the tools' back (and test support).

Any article's state, drafts included, who saved it since a version, when it first changed after
a log position, every kept event with its actor, and the whole database as SQL text. The agent
never calls these.
"""

from __future__ import annotations

from sim.kb.core import serialised
from sim.kb.rows import Article, Event
from sim.kb.tool_reads import ToolReads


class OracleReads(ToolReads):
    """Extends the tool reads: ``all_events`` is their event page with no limit."""

    @serialised
    def article_state(self, kb_id: str, article_id: str) -> Article:
        """Any article, draft or published: for the ground-truth oracle only."""
        _, title, content, published, us = self._require_row(kb_id, article_id)
        return Article(kb_id, article_id, title, content, bool(published), us)

    @serialised
    def actors_since(self, kb_id: str, article_id: str, since_us: int) -> set[str]:
        """Who saved the article after a version: for the ground-truth oracle only."""
        rows = self._db.execute(
            "SELECT DISTINCT actor FROM events WHERE kb_id = ? AND article_id = ? "
            "AND updated_us > ?",
            (kb_id, article_id, since_us),
        ).fetchall()
        return {r[0] for r in rows}

    @serialised
    def first_change_us(self, kb_id: str, article_id: str, after_sequence: int) -> int | None:
        """When the article first changed after a log position: for the oracle only."""
        row = self._db.execute(
            "SELECT min(updated_us) FROM events WHERE kb_id = ? AND article_id = ? "
            "AND sequence > ?",
            (kb_id, article_id, after_sequence),
        ).fetchone()
        return row[0]

    def all_events(self, kb_id: str) -> list[Event]:
        """Every kept event with its actor: for tests, never the agent."""
        return self.events_after(kb_id, 0, 2**62).events

    @serialised
    def snapshot(self) -> str:
        """Every table, FTS shadow tables included, as SQL text: equal iff nothing changed."""
        return "\n".join(self._db.iterdump())
