"""The KB as it opens at 09:00: the seed's corpus, published.

Every experiment of a seed opens on the same corpus. Drawing and loading 400
articles costs about a tenth of a default day, so a seed's runs can share one
``Opening`` and give each day a page copy of its store (SQLite's online backup)
instead of re-creating every article.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim import corpus, rng
from sim.corpus import DAY_START_US, KB_ID, ArticleSpec
from sim.gcpause import collector_paused
from sim.kb.store import KBStore


def open_kb(store: KBStore, seed: int, n_articles: int) -> tuple[ArticleSpec, ...]:
    """Draw the seed's corpus and publish it in `store`, as the editors would at opening."""
    with collector_paused():
        articles = corpus.build_corpus(n_articles, rng.streams(seed)["corpus"])
        corpus.load(store, KB_ID, articles)
        return tuple(spec for spec, _ in articles)


@dataclass(frozen=True)
class Opening:
    """A seed's corpus and a store holding it as opened; the store is only ever copied."""

    seed: int
    specs: tuple[ArticleSpec, ...]
    store: KBStore

    @staticmethod
    def build(seed: int, n_articles: int, corpus_db: str = "", queries: str = "") -> Opening:
        """The seed's synthetic corpus, or the published articles of an imported KB file."""
        if corpus_db:
            from sim.importer.corpus import imported

            specs, template = imported(corpus_db, queries)
            return Opening(seed, specs, KBStore.copy_of(template, lambda: DAY_START_US))
        store = KBStore(lambda: DAY_START_US)
        return Opening(seed, open_kb(store, seed, n_articles), store)

    def check(self, seed: int, n_articles: int) -> None:
        if (self.seed, len(self.specs)) != (seed, n_articles):
            raise ValueError(
                f"opening: built for seed {self.seed} with {len(self.specs)} articles; "
                f"this day is seed {seed} with {n_articles}. Build one with "
                f"Opening.build({seed}, {n_articles}) or pass none."
            )
