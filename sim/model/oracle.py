"""The ground-truth oracle: the only model code that reads the store directly.

It sees drafts and who wrote each event, which no tool reveals; the checks are
judged against it and never use it.
"""

from __future__ import annotations

from sim.kb.rows import Article
from sim.kb.store import KBStore
from sim.kb.versions import parse_version


class GroundTruthOracle:
    def __init__(self, store: KBStore, kb_id: str) -> None:
        self._store = store
        self._kb_id = kb_id

    def statuses(self, cited: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
        """Each citation's (article_id, version, title) status now, as (status, kind):
        ('fresh', ''), ('stale', 'body' | 'title') or ('gone', 'gone'). Each article is read
        once: a day's citations repeat its popular articles, and a check judges them all."""
        states: dict[str, Article] = {}
        out = []
        for article_id, version, title in cited:
            a = states.get(article_id)
            if a is None:
                a = states[article_id] = self._store.article_state(self._kb_id, article_id)
            out.append(self._judged(a, version, title))
        return out

    @staticmethod
    def _judged(a: Article, cited_version: str, cited_title: str) -> tuple[str, str]:
        if not a.published:
            return "gone", "gone"
        if a.updated_us > parse_version(cited_version):
            return "stale", "title" if a.title != cited_title else "body"
        return "fresh", ""

    def first_change_us(self, article_id: str, event_sequence: int) -> int | None:
        """When the article first changed after a read at this log position (any actor)."""
        return self._store.first_change_us(self._kb_id, article_id, event_sequence)

    def writers_since(self, article_id: str, cited_version: str) -> set[str]:
        """Actors ('human', 'agent') of the saves of this article after the cited version."""
        return self._store.actors_since(self._kb_id, article_id, parse_version(cited_version))

    def head_sequence(self) -> int:
        return self._store.head_sequence(self._kb_id)

    def unpublished_count(self, article_ids: list[str]) -> int:
        """How many of these articles of the KB are unpublished now: one statement, not
        one read per article (a 50,000-article day ends with it)."""
        return len(self._store.unpublished_among(self._kb_id, article_ids))
