"""An imported KB file as the day's corpus: its published articles and the questions asked.

The study's day asks each question about one article (its popularity decides how often)
and its humans edit articles. On an imported KB the articles are the team's own, and an
article's questions are its title and its headings, in turn (the day's n-th answer asks
the n-th modulo their count); with a query log (one query a line) they are the queries
whose best search hit (the KB's own bm25) it is, and its title and headings where no
query finds it first. The simulated human edits rewrite or add one
paragraph in the study's words (``sim.corpus.edited_body``): only their sizes and timing
matter to the figures, and the article keeps the text its question finds. A history that
runs past the simulated day's start is moved back by one offset, order and spacing kept.
"""

from __future__ import annotations

import functools
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sim.corpus import DAY_START_US, KB_ID, ArticleSpec
from sim.importer.markdown import headings
from sim.kb.rows import StoreError
from sim.kb.store import KBStore
from sim.prog import PROG
from sim.server.reads import search_words

MAX_QUERIES = 100_000
"""Lines of a query log read at most: a day asks at most one question per article."""


@dataclass(frozen=True, slots=True)
class ImportedSpec(ArticleSpec):
    asked: tuple[str, ...] = ()

    @property
    def query(self) -> str:
        return self.asked[0]

    def question(self, answer: int) -> str:
        return self.asked[answer % len(self.asked)]


def _spec(article_id: str, title: str, asked: tuple[str, ...]) -> ImportedSpec:
    obj = title[:1].lower() + title[1:80]  # the study's edit sentences name the article
    return ImportedSpec(
        article_id, "docs", "update", "updating", obj, "documentation", title, asked
    )


def _own(title: str, content: str) -> tuple[str, ...]:
    """The title and the body's headings, each once, those with a word to search."""
    return tuple(q for q in dict.fromkeys([title, *headings(content)]) if search_words(q))


@functools.lru_cache(maxsize=2)
def imported(corpus_db: str, queries: str = "") -> tuple[tuple[ImportedSpec, ...], KBStore]:
    """The published articles of the KB file (in id order) as specs, and the store holding
    them, read once per process; ValueError naming the file when it holds no KB."""
    if Path(corpus_db).is_dir():
        raise ValueError(
            f"--db {corpus_db}: is a folder; name the KB file {PROG} import wrote "
            "(import DOCS_DIR --db kb.sqlite, then --db kb.sqlite)"
        )
    _a_kb_file(corpus_db)
    try:
        on_disk = KBStore(lambda: 0, path=corpus_db)
    except (StoreError, sqlite3.Error) as e:
        raise ValueError(f"--db {corpus_db}: {e}") from None
    store = KBStore.copy_of(on_disk, lambda: 0)  # in memory: forked workers share no file
    on_disk.close()
    if store.kb_exists(KB_ID):  # the day's clock starts at DAY_START_US: history before it
        store.shift_versions(KB_ID, DAY_START_US)
    if not store.kb_exists(KB_ID):
        raise ValueError(
            f"--db {corpus_db}: holds no imported KB; write one with {PROG} import DOCS_DIR"
        )
    ids = store.article_ids(KB_ID)
    hidden = set(store.unpublished_among(KB_ID, ids))
    published = [a for a in ids if a not in hidden]
    if not published:
        raise ValueError(f"--db {corpus_db}: no published article to ask questions of")
    asked = _asked(store, Path(queries)) if queries else {}
    specs = []
    for a in published:
        article = store.article_state(KB_ID, a)
        own = asked.get(a) or _own(article.title, article.content) or (article.title,)
        specs.append(_spec(a, article.title, tuple(own)))
    return tuple(specs), store


def _a_kb_file(corpus_db: str) -> None:
    """A file to read a KB from: one that exists and is not empty (SQLite would make an
    empty file a new KB, writing to a file these readers must only read)."""
    if not Path(corpus_db).is_file():
        raise ValueError(f"--db {corpus_db}: no such file; write one with {PROG} import")
    if Path(corpus_db).stat().st_size == 0:
        raise ValueError(
            f"--db {corpus_db}: an empty file, not a KB; write one with {PROG} import"
            f" DOCS_DIR --db {corpus_db}"
        )


def _asked(store: KBStore, path: Path) -> dict[str, list[str]]:
    """Article → the queries of the log whose best hit it is, in the log's order."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ValueError(f"--queries {path}: cannot read it ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ValueError(
            f"--queries {path}: not UTF-8 text ({e.reason} at byte {e.start})"
        ) from None
    lines = [q.strip() for q in text.splitlines()[:MAX_QUERIES] if q.strip()]
    if not lines:
        raise ValueError(f"--queries {path}: no query in it; write one query a line")
    asked: dict[str, list[str]] = {}
    for q in lines:
        words = search_words(q)
        if words:
            _, hits = store.search(KB_ID, words, 1)
            if hits:
                asked.setdefault(hits[0].article_id, []).append(q)
    return asked


def published_count(corpus_db: str, queries: str = "") -> int:
    return len(imported(corpus_db, queries)[0])


EVENT_CHANGES = {"created": "add", "saved": "modify", "published": "add", "unpublished": "delete"}
"""An event of the KB's log as an edit log's change (``sim.calibrate.logs.CHANGES``)."""


def event_log_rows(corpus_db: str) -> list[tuple[str, int, str, str, str, int, int]]:
    """The KB file's own event log as edit-log rows (``calibrate.logs.COLUMNS``' order):
    each event a row, its actor the author, the events of one instant one publish, no line
    counts (the log does not keep them). What `advise --db` fits when no edit log is beside
    the KB (copied or renamed without its NAME.edits.csv)."""
    _a_kb_file(corpus_db)
    try:
        store = KBStore(lambda: 0, path=corpus_db)
    except (StoreError, sqlite3.Error) as e:
        raise ValueError(f"--db {corpus_db}: {e}") from None
    try:
        events = store.all_events(KB_ID) if store.kb_exists(KB_ID) else []
    finally:
        store.close()
    rows, publish, last = [], 0, None
    for event in events:
        if event.type not in EVENT_CHANGES:
            continue
        publish += last is not None and event.updated_us != last
        last = event.updated_us
        when = datetime.fromtimestamp(event.updated_us // 1_000_000, UTC)
        change = EVENT_CHANGES[event.type]
        rows.append((f"{when:%Y-%m-%dT%H:%M:%SZ}", publish, event.actor or "?", event.article_id,
                     change, 0, 0))  # fmt: skip
    return rows
