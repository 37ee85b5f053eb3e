"""The KB's transactional store: SQLite (in memory by default) with FTS5 search.

Two kinds of caller use it. The tool layer (``tools.py``, ``edit.py``) reads
published articles, the event log, and performs the compare-and-swap edit. The human side
(the KB editor app) creates, saves, publishes and unpublishes. Every change and
the event recording it are written in one transaction; the FTS index holds
exactly the published articles, so search can never return a draft (``search.py`` keeps
FTS5 and the in-memory index a search ranks from).
"""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Concatenate, ParamSpec, Self, TypeVar

from sim.kb import approvals
from sim.kb.rows import (
    Approval,
    ApprovalMissing,
    Article,
    Conflict,
    EditOutcome,
    Event,
    EventPage,
    Gone,
    KeyReused,
    Replayed,
    ResultRenderer,
    Saved,
    SearchHit,
)
from sim.kb.schema import KB_ROWID_BITS, SCHEMA, SCHEMA_VERSION
from sim.kb.search import INDEX_MIN_ROWS, Search
from sim.kb.versions import Clock


@dataclass(frozen=True, slots=True)
class Change:
    """A committed event, as the store's listeners hear of it."""

    kb_id: str
    sequence: int
    type: str
    article_id: str


class StoreError(Exception):
    """A human-side operation named something that does not exist."""


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _serialised(
    method: Callable[Concatenate[KBStore, _P], _R],
) -> Callable[Concatenate[KBStore, _P], _R]:
    """One operation at a time on the connection, from whichever thread.

    The simulation's MCP transport calls the tools from its event-loop thread while the
    humans save from the SimPy thread; without the lock two threads' statements would
    interleave inside one BEGIN IMMEDIATE.
    """

    @functools.wraps(method)
    def locked(self: KBStore, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            self._depth += 1
            try:
                result = method(self, *args, **kwargs)
            finally:
                self._depth -= 1
            committed = self._committed if self._depth == 0 else []
            if committed:
                self._committed = []
        for change in committed:  # outside the lock: a listener may block on another thread
            for listener in self._listeners:
                listener(change)
        return result

    return locked


class KBStore:
    def __init__(
        self,
        clock: Clock,
        path: str = ":memory:",
        event_retention: int | None = None,
        index_min_rows: int = INDEX_MIN_ROWS,
    ) -> None:
        if event_retention is not None and event_retention < 1:
            raise ValueError(f"event_retention must be None or >= 1, got {event_retention}")
        self._clock = clock
        self._retention = event_retention
        self._rowid_ranges: dict[str, tuple[int, int]] = {}
        self._lock = threading.RLock()
        self._depth = 0
        self._pending: list[Change] = []
        self._committed: list[Change] = []
        self._listeners: list[Callable[[Change], None]] = []
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        if not self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'kbs'").fetchone():
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version != SCHEMA_VERSION:
            self._db.close()
            raise StoreError(
                f"{path}: a KB file of schema version {version}; this code reads version "
                f"{SCHEMA_VERSION}. Open another file, or remove this one to start afresh."
            )
        self._search = Search(self._db, index_min_rows)

    @classmethod
    def copy_of(cls, template: KBStore, clock: Clock) -> Self:
        """A new in-memory store holding every page of `template` (SQLite online backup)."""
        store = cls(
            clock, event_retention=template._retention, index_min_rows=template._search.min_rows
        )
        with template._lock:
            template._db.backup(store._db)
            store._search.copy_index(template._search)
        return store

    # -- transactions -------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            self._pending = []
            self._search.rolled_back()
            raise
        self._db.execute("COMMIT")
        self._committed.extend(self._pending)
        self._pending = []
        self._search.committed()

    def add_listener(self, listener: Callable[[Change], None]) -> None:
        """Call `listener` with every change once its transaction has committed (never for a
        rolled-back one), in sequence order, after the store's lock is released."""
        self._listeners.append(listener)

    def _next_version(self, current_us: int | None) -> int:
        now = self._clock()
        return now if current_us is None or now > current_us else current_us + 1

    def _append_event(self, kb_id: str, type_: str, article_id: str, us: int, actor: str) -> int:
        (seq,) = self._db.execute(
            "UPDATE kbs SET head_sequence = head_sequence + 1 WHERE kb_id = ? "
            "RETURNING head_sequence",
            (kb_id,),
        ).fetchone()
        self._db.execute(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)",
            (kb_id, seq, type_, article_id, us, actor),
        )
        self._pending.append(Change(kb_id, seq, type_, article_id))
        if self._retention is not None and seq > self._retention:
            self._db.execute(
                "DELETE FROM events WHERE kb_id = ? AND sequence <= ?",
                (kb_id, seq - self._retention),
            )
        return seq

    def _row(self, kb_id: str, article_id: str) -> tuple[int, str, str, int, int] | None:
        return self._db.execute(
            "SELECT rowid, title, content, published, updated_us FROM articles "
            "WHERE kb_id = ? AND article_id = ?",
            (kb_id, article_id),
        ).fetchone()

    def _require_row(self, kb_id: str, article_id: str) -> tuple[int, str, str, int, int]:
        row = self._row(kb_id, article_id)
        if row is None:
            raise StoreError(f"no article {article_id!r} in knowledge base {kb_id!r}")
        return row

    def _write(
        self,
        kb_id: str,
        article_id: str,
        title: str,
        content: str,
        published: bool,
        type_: str,
        actor: str,
    ) -> tuple[int, int]:
        """Write the new state, keep FTS equal to the published set, append the event."""
        rowid, old_title, old_content, was_published, current_us = self._require_row(
            kb_id, article_id
        )
        us = self._next_version(current_us)
        self._db.execute(
            "UPDATE articles SET title = ?, content = ?, published = ?, updated_us = ? "
            "WHERE rowid = ?",
            (title, content, int(published), us, rowid),
        )
        if was_published:
            self._search.remove(rowid, old_title, old_content)
        if published:
            self._search.add(rowid, title, content)
        return us, self._append_event(kb_id, type_, article_id, us, actor)

    # -- the human side (the KB editor app) -----------------------------------
    @_serialised
    def create_kb(self, kb_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO kbs (kb_id, kb_no) VALUES (?, (SELECT coalesce(max(kb_no), 0) + 1 "
                "FROM kbs))",
                (kb_id,),
            )

    def _rowid_range(self, kb_id: str) -> tuple[int, int]:
        """The KB's article rowids, first and last possible; fixed once the KB exists."""
        if kb_id not in self._rowid_ranges:
            row = self._db.execute("SELECT kb_no FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone()
            if row is None:
                raise StoreError(f"no knowledge base {kb_id!r}")
            first = row[0] << KB_ROWID_BITS
            self._rowid_ranges[kb_id] = (first, first + (1 << KB_ROWID_BITS) - 1)
        return self._rowid_ranges[kb_id]

    @_serialised
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
            for article_id, title, content in articles:
                us = self._clock()
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
                self._append_event(kb_id, "created", article_id, us, "human")

    @_serialised
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
            _, old_title, _, published, _ = self._require_row(kb_id, article_id)
            us, _ = self._write(
                kb_id,
                article_id,
                old_title if title is None else title,
                content,
                bool(published),
                "saved",
                actor,
            )
        return us

    @_serialised
    def set_published(self, kb_id: str, article_id: str, published: bool) -> int:
        with self._tx():
            _, title, content, _, _ = self._require_row(kb_id, article_id)
            type_ = "published" if published else "unpublished"
            us, _ = self._write(kb_id, article_id, title, content, published, type_, "human")
        return us

    @_serialised
    def article_ids(self, kb_id: str) -> list[str]:
        """Every article of a KB, drafts included, in id order: the editor app's list."""
        rows = self._db.execute(
            "SELECT article_id FROM articles WHERE kb_id = ? ORDER BY article_id", (kb_id,)
        ).fetchall()
        return [r[0] for r in rows]

    # -- reads used by the tools ----------------------------------------------
    @_serialised
    def kb_exists(self, kb_id: str) -> bool:
        if kb_id in self._rowid_ranges:  # known to exist: a KB is never removed
            return True
        return (
            self._db.execute("SELECT 1 FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone() is not None
        )

    @_serialised
    def published_article(self, kb_id: str, article_id: str) -> Article | None:
        row = self._row(kb_id, article_id)
        if row is None or not row[3]:
            return None
        return Article(kb_id, article_id, row[1], row[2], True, row[4])

    @_serialised
    def search(self, kb_id: str, words: list[str], limit: int) -> tuple[int, list[SearchHit]]:
        """(published articles containing any of the words, the best `limit` of them by
        FTS5's bm25): from the in-memory index where it is exact, else from FTS5."""
        return self._search.search(*self._rowid_range(kb_id), words, limit)

    @_serialised
    def search_fts5(self, kb_id: str, words: list[str], limit: int) -> tuple[int, list[SearchHit]]:
        """The same answer from FTS5 itself: the search of record."""
        return self._search.search_fts5(*self._rowid_range(kb_id), words, limit)

    @_serialised
    def unpublished_among(self, kb_id: str, article_ids: list[str]) -> list[str]:
        """Those of the ids that name an article not published now, in the order given."""
        rows = self._db.execute(
            "SELECT article_id FROM articles WHERE kb_id = ? AND published = 0", (kb_id,)
        ).fetchall()  # few are unpublished; no bound parameter per id, however many ids
        hidden = {r[0] for r in rows}
        return [a for a in article_ids if a in hidden]

    @_serialised
    def head_sequence(self, kb_id: str) -> int:
        row = self._db.execute("SELECT head_sequence FROM kbs WHERE kb_id = ?", (kb_id,)).fetchone()
        if row is None:
            raise StoreError(f"no knowledge base {kb_id!r}")
        return row[0]

    @_serialised
    def events_after(self, kb_id: str, after_sequence: int, limit: int) -> EventPage:
        head = self.head_sequence(kb_id)
        (oldest,) = self._db.execute(
            "SELECT coalesce(min(sequence), ?) FROM events WHERE kb_id = ?", (head + 1, kb_id)
        ).fetchone()
        rows = self._db.execute(
            "SELECT sequence, type, article_id, updated_us, actor FROM events "
            "WHERE kb_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            (kb_id, after_sequence, limit),
        ).fetchall()
        return EventPage([Event(*r) for r in rows], head, oldest)

    # -- the tool's compare-and-swap edit ---------------------------------------
    def _prior_request(self, kb_id: str, client_id: str, key: str) -> tuple[str, str] | None:
        """(request hash, first result) stored with this client's idempotency key, if any."""
        return self._db.execute(
            "SELECT request_hash, result_json FROM idempotency "
            "WHERE kb_id = ? AND client_id = ? AND key = ?",
            (kb_id, client_id, key),
        ).fetchone()

    @_serialised
    def cas_edit(
        self,
        kb_id: str,
        client_id: str,
        article_id: str,
        expected_us: int,
        content: str,
        title: str | None,
        idempotency_key: str,
        request_hash: str,
        render: ResultRenderer,
        approval_digest: str | None = None,
    ) -> EditOutcome:
        """Idempotency lookup, approval check (with the write gate on), version check, write,
        event, key record and the approval marked used: one transaction."""
        with self._tx() as db:
            prior = self._prior_request(kb_id, client_id, idempotency_key)
            if prior is not None:
                return Replayed(prior[1]) if prior[0] == request_hash else KeyReused()
            approval = None
            if approval_digest is not None:
                approval, latest = approvals.usable_or_latest(
                    db, kb_id, client_id, approval_digest, self._clock()
                )
                if approval is None:
                    return ApprovalMissing(latest)
            row = self._row(kb_id, article_id)
            if row is None or not row[3]:
                return Gone()
            if row[4] != expected_us:
                known = db.execute(
                    "SELECT 1 FROM events WHERE kb_id = ? AND article_id = ? AND updated_us = ?",
                    (kb_id, article_id, expected_us),
                ).fetchone()
                return Conflict(row[4], known is not None)
            us, seq = self._write(
                kb_id,
                article_id,
                row[1] if title is None else title,
                content,
                True,
                "saved",
                "agent",
            )
            result_json = render(us, seq)
            db.execute(
                "INSERT INTO idempotency VALUES (?, ?, ?, ?, ?)",
                (kb_id, client_id, idempotency_key, request_hash, result_json),
            )
            if approval is None:
                return Saved(us, seq, result_json)
            approvals.mark_used(db, approval.approval_id, seq)
            return Saved(us, seq, result_json, approval.approval_id)

    # -- the write gate's approvals (asked and decided by the host app, not by tools) ----
    @_serialised
    def request_approval(
        self, kb_id: str, client_id: str, tool: str, article_id: str, args_digest: str, ttl_us: int
    ) -> int:
        with self._tx() as db:
            return approvals.request(
                db, kb_id, client_id, tool, article_id, args_digest, self._clock(), ttl_us
            )

    @_serialised
    def decide_approval(self, approval_id: int, granted: bool, approver: str) -> bool:
        with self._tx() as db:
            return approvals.decide(db, approval_id, granted, approver, self._clock())

    @_serialised
    def approval(self, approval_id: int) -> Approval | None:
        return approvals.get(self._db, approval_id)

    @_serialised
    def approval_needed(self, kb_id: str, client_id: str, key: str, args_digest: str) -> bool:
        """The key is unused (a replay needs no approval; a reused key is refused for that)
        and no usable approval of this digest waits."""
        if self._prior_request(kb_id, client_id, key) is not None:
            return False
        usable, _ = approvals.usable_or_latest(
            self._db, kb_id, client_id, args_digest, self._clock()
        )
        return usable is None

    # -- ground truth and test support (never called by the agent) ---------------
    @_serialised
    def article_state(self, kb_id: str, article_id: str) -> Article:
        """Any article, draft or published: for the ground-truth oracle only."""
        _, title, content, published, us = self._require_row(kb_id, article_id)
        return Article(kb_id, article_id, title, content, bool(published), us)

    @_serialised
    def actors_since(self, kb_id: str, article_id: str, since_us: int) -> set[str]:
        """Who saved the article after a version: for the ground-truth oracle only."""
        rows = self._db.execute(
            "SELECT DISTINCT actor FROM events WHERE kb_id = ? AND article_id = ? "
            "AND updated_us > ?",
            (kb_id, article_id, since_us),
        ).fetchall()
        return {r[0] for r in rows}

    @_serialised
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

    @_serialised
    def snapshot(self) -> str:
        """Every table, FTS shadow tables included, as SQL text: equal iff nothing changed."""
        return "\n".join(self._db.iterdump())
